// The scenario schema: what each key of a scenario file means and which values it takes.
// A step is a row of kSteps and a read function; a check section a row of kChecks.
#include "scenario/schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <unordered_set>

#include "core/gauges.h"
#include "core/lane.h"
#include "core/limits.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

namespace {

namespace fs = std::filesystem;
using yaml::error_at;
using yaml::Fields;
using yaml::join;
using yaml::quote;
using yaml::Value;

// How an integer field of a step is written and bounded.
struct IntRule {
  std::string_view what;   // the accepted forms, e.g. "an integer or a size such as 4KiB"
  std::string_view bound;  // e.g. "a size >= 0"
  int64_t min = 0;
  int64_t max = yaml::kNoMax;
};

constexpr IntRule kSizeRule{"an integer or a size such as 4KiB", "a size from 0 to 128MiB", 0, kMaxStoreBytes};
constexpr IntRule kOffsetRule{"an integer or a size such as 4KiB", "an offset from 0 to 128MiB", 0, kMaxStoreBytes};
static_assert(kMaxStoreBytes == int64_t{128} << 20, "the rules above spell the limit out");
constexpr IntRule kPaletteRule{"an integer", "a palette index >= 0"};
constexpr IntRule kBandIndexRule{"an integer", "a band index >= 0"};
constexpr IntRule kBandCountRule{"an integer", "a band count >= 1", 1};
constexpr IntRule kGpuRule{"an integer", "a GPU id from 0 to 4294967295", 0, 0xffffffff};
constexpr IntRule kPidRule{"an integer", "a pid from 0 to 4294967295", 0, 0xffffffff};
constexpr IntRule kBytesRule{"an integer or a size such as 4KiB", "a size >= 0"};
constexpr IntRule kAllocationIdRule{"an integer", "an allocation id >= 0"};
constexpr IntRule kAttachFailuresRule{"an integer", "a count of failed attaches from 0 to 1000", 0, 1000};
constexpr IntRule kWalkStepRule{"an integer", "a walk step from 0 to 4096", 0, 4096};
constexpr IntRule kFenceRule{"an integer", "a fence value from 1", 1};
constexpr IntRule kSemaphoreRule{"an integer", "a semaphore id >= 0"};
constexpr IntRule kMicrosecondsRule{"an integer", "a time in microseconds >= 0"};
constexpr IntRule kTimestampRule{"an integer (virtual ns)", "a timestamp >= 0"};
constexpr IntRule kCounterValueRule{"an integer, a decimal such as 15.5, or an expression", "any value", yaml::kNoMin};
constexpr IntRule kRepeatRule{"an integer", "a repeat count from 1 to 10000000", 1, kMaxRepeatCount};

std::vector<std::string_view> knob_names() {
  std::vector<std::string_view> names;
  for (const auto& knob : known_knobs()) names.push_back(knob.name);
  return names;
}

std::vector<std::string_view> lane_names() {
  std::vector<std::string_view> names;
  for (Lane lane : kAllLanes) names.push_back(lane_name(lane));
  return names;
}

class Schema {
 public:
  Schema(const yaml::Source& source, fs::path file) : read_(source), file_(std::move(file)) {}

  Result<Scenario> scenario(const Value& root) {
    if (root.node.IsNull())
      return error_at(root.where, "a scenario map (name, group, workload, expect, ...)", "an empty document");
    TIDEMARK_TRY(top, read_.fields(root, "the scenario",
                                   {"name", "group", "description", "knobs", "target", "kernel", "kmd", "kgsl",
                                    "tracing", "counters", "buffers", "workload", "expect", "controls"}));
    Scenario scenario;
    scenario.file = file_;
    auto kebab = [&](const Value& v) { return read_.kebab_name(v); };
    TIDEMARK_CHECK(yaml::required(top, "name", scenario.name, kebab));
    TIDEMARK_CHECK(yaml::required(top, "group", scenario.group, kebab));
    TIDEMARK_CHECK(yaml::optional(top, "description", scenario.description,
                                  [&](const Value& v) { return read_.text(v, "a description"); }));
    TIDEMARK_CHECK(yaml::optional(top, "knobs", scenario.knobs, [&](const Value& v) { return knobs(v); }));
    TIDEMARK_CHECK(yaml::optional(top, "target", target_, [&](const Value& v) { return target(v); }));
    TIDEMARK_CHECK(yaml::optional(top, "kernel", scenario.kernel, [&](const Value& v) { return kernel(v); }));
    TIDEMARK_CHECK(yaml::optional(top, "kmd", scenario.kmd, [&](const Value& v) { return kmd(v); }));
    TIDEMARK_CHECK(yaml::optional(top, "kgsl", scenario.kgsl, [&](const Value& v) { return kgsl(v); }));
    TIDEMARK_CHECK(yaml::optional(top, "counters", scenario.counters, [&](const Value& v) { return counters(v); }));
    counters_ = scenario.counters ? &*scenario.counters : nullptr;
    TIDEMARK_CHECK(yaml::optional(top, "tracing", scenario.trace_memory, [&](const Value& v) -> Result<tracer::MemorySource> {
      TIDEMARK_TRY(entries, read_.fields(v, "tracing", {"gpu_memory"}));
      tracer::MemorySource source = tracer::MemorySource::Both;
      TIDEMARK_CHECK(yaml::optional(entries, "gpu_memory", source, [&](const Value& item) {
        return named_value(item, "the GPU-memory sources", tracer::kMemorySourceNames, tracer::MemorySource::Both);
      }));
      return source;
    }));
    TIDEMARK_CHECK(yaml::optional(top, "buffers", buffers_, [&](const Value& v) { return buffers(v); }));
    scenario.target = target_;
    scenario.buffers = buffers_;
    TIDEMARK_CHECK(yaml::required(top, "workload", scenario.workload,
                                  [&](const Value& v) { return steps(v, "workload"); }));
    if (auto calls = within_call_budget(scenario.workload); !calls) return std::unexpected(calls.error());
    scenario.fences = fences_;
    TIDEMARK_TRY(expect_value, top.required("expect"));
    TIDEMARK_CHECK(expect(expect_value, scenario));
    // After expect wherever it sits in the file: a control names checks of this scenario.
    TIDEMARK_CHECK(yaml::optional(top, "controls", scenario.controls,
                                  [&](const Value& v) { return controls(v, scenario); }));
    return scenario;
  }

 private:
  // ---- readers of values, used as one-line field parsers ---------------------------

  // The backend calls `steps` make with repeats expanded, as far as their counts are known now
  // (a count over a loop variable is checked as it runs); an error at the repeat that goes over.
  static Result<int64_t> within_call_budget(const std::vector<Step>& steps) {
    int64_t calls = 0;
    for (const auto& step : steps) {
      int64_t step_calls = 1;
      if (const auto* repeat = std::get_if<Repeat>(step.kind.get())) {
        TIDEMARK_TRY(body, within_call_budget(repeat->steps));
        auto count = repeat->count.expr.literal_value();
        if (!count) continue;
        if (__builtin_mul_overflow(*count, body, &step_calls)) step_calls = kMaxWorkloadCalls + 1;
      }
      calls = std::min(calls + step_calls, kMaxWorkloadCalls + 1);
      if (calls > kMaxWorkloadCalls)
        return error_at(step.where, fmt::format("a workload of at most {} backend calls", kMaxWorkloadCalls),
                        "more, with its repeats expanded");
    }
    return calls;
  }

  // A literal, a size or an expression over loop variables in scope; constant values are
  // range-checked now, the rest when the step runs.
  auto int_field(const IntRule& rule) const {
    return [this, &rule](const Value& value) -> Result<IntField> {
      TIDEMARK_TRY(expression, read_.expression(value, rule.what));
      const std::string& written = value.node.Scalar();
      for (const auto& name : expression.identifiers()) {
        if (yaml::contains(loop_variables_, name)) continue;
        if (loop_variables_.empty() && name == expression.text()) return error_at(value.where, rule.what, quote(written));
        return error_at(read_.source().inside(value, yaml::word_offset(written, name)),
                        fmt::format("a loop variable in scope ({})", join(loop_variables_)), quote(name));
      }
      if (expression.identifiers().empty()) {
        auto constant = expression.evaluate([](std::string_view) { return std::nullopt; });
        if (!constant) return error_at(value.where, "a computable value", constant.error().message);
        if (*constant < rule.min || *constant > rule.max) {
          std::string found = quote(written);
          if (written != std::to_string(*constant)) found += fmt::format(" = {}", *constant);
          return error_at(value.where, rule.bound, found);
        }
      }
      return IntField{std::move(expression), value.where};
    };
  }

  Result<std::string> buffer_name(const Value& value) const {
    std::string expected = fmt::format("a declared buffer ({})", join(buffers_));
    TIDEMARK_TRY(name, read_.text(value, expected));
    if (!buffer_set_.contains(name)) return error_at(value.where, expected, quote(name));
    return name;
  }
  auto buffer_name() const {
    return [this](const Value& value) { return buffer_name(value); };
  }

  Result<Fill> fill(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "fill", {"palette", "rgba", "zero"}));
    constexpr std::string_view kOneKind = "exactly one of palette, rgba, zero";
    if (entries.entries().empty()) return error_at(value.where, kOneKind, "an empty map");
    if (entries.entries().size() > 1)
      return error_at(entries.entries()[1].key_where, kOneKind,
                      fmt::format("a second key {}", quote(entries.entries()[1].key)));
    const auto& entry = entries.entries().front();
    Fill fill;
    if (entry.key == "palette") {
      fill.kind = Fill::Kind::Palette;
      TIDEMARK_CHECK(yaml::required(entries, "palette", fill.palette_index, int_field(kPaletteRule)));
    } else if (entry.key == "rgba") {
      fill.kind = Fill::Kind::Rgba;
      TIDEMARK_CHECK(yaml::required(entries, "rgba", fill.rgba, [&](const Value& v) { return read_.rgba(v); }));
    } else {
      TIDEMARK_TRY(zero, read_.boolean(entry.value));
      if (!zero) return error_at(entry.value.where, "true (zero: true)", yaml::describe(entry.value.node));
    }
    return fill;
  }
  auto fill() const {
    return [this](const Value& value) { return fill(value); };
  }

  auto tolerance() const {
    return [this](const Value& v) { return read_.small_integer(v, 0, 255); };
  }

  // ---- top-level sections ----------------------------------------------------------

  Result<std::map<std::string, int64_t>> knobs(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "knobs", knob_names()));
    std::map<std::string, int64_t> knobs;
    for (const auto& entry : entries.entries()) {
      const KnobSpec& spec = *find_knob(entry.key);
      auto number = entry.value.node.IsScalar() ? yaml::parse_integer(entry.value.node.Scalar()) : std::nullopt;
      if (!number || !spec.accepts(*number))
        return error_at(entry.value.where, spec.expected(), yaml::describe(entry.value.node));
      knobs[entry.key] = *number;
    }
    return knobs;
  }

  Result<Target> target(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "target", {"width", "height"}));
    Target size;
    auto side = [&](const Value& v) { return read_.small_integer(v, 1, kMaxTargetSide); };
    TIDEMARK_CHECK(yaml::optional(entries, "width", size.width, side));
    TIDEMARK_CHECK(yaml::optional(entries, "height", size.height, side));
    return size;
  }

  Result<KernelSection> kernel(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "kernel", {"pid", "gpu", "reports"}));
    KernelSection section;
    section.written = true;
    auto id = [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(number, read_.integer(v, 0, 0xffffffff));
      return static_cast<uint32_t>(number);
    };
    TIDEMARK_CHECK(yaml::optional(entries, "pid", section.pid, id));
    TIDEMARK_CHECK(yaml::optional(entries, "gpu", section.gpu, id));
    TIDEMARK_CHECK(yaml::optional(entries, "reports", section.reports, [&](const Value& v) { return read_.boolean(v); }));
    return section;
  }

  Result<KmdSection> kmd(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "kmd",
                                       {"ring", "idle_timeout", "wake", "power", "doorbell_readback", "magic_check",
                                        "recycle_frames", "submit_cpu", "irq", "late_write", "submit_timeout",
                                        "backend_cost", "probe", "tiny_submits"}));
    KmdSection section;
    section.written = true;
    kernel::KmdConfig& c = section.config;
    auto time = [&](const Value& v) { return timeout_ns(v); };
    auto flag = [&](const Value& v) { return read_.boolean(v); };
    TIDEMARK_CHECK(yaml::optional(entries, "ring", c.ring_dwords, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(dwords, read_.integer(v, kernel::kMinRingDwords, kernel::kMaxRingDwords));
      return static_cast<uint32_t>(dwords);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "idle_timeout", c.idle_timeout_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "wake", c.wake_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "power", c.power, [&](const Value& v) {
      return named_value(v, "a power policy", kernel::kPowerPolicyNames, kernel::PowerPolicy::Wait);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "doorbell_readback", c.doorbell_readback, flag));
    TIDEMARK_CHECK(yaml::optional(entries, "magic_check", c.magic_check, flag));
    TIDEMARK_CHECK(yaml::optional(entries, "recycle_frames", c.recycle_frames, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(frames, read_.integer(v, 0, 1000));
      return static_cast<uint32_t>(frames);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "submit_cpu", c.submit_cpu_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "irq", c.irq_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "late_write", c.late_write_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "submit_timeout", c.submit_timeout_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "backend_cost", c.backend_cost_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "probe", c.probe_ns, time));
    TIDEMARK_CHECK(yaml::optional(entries, "tiny_submits", c.tiny_submits, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(count, read_.integer(v, 1, 1'000'000));
      return static_cast<uint32_t>(count);
    }));
    return section;
  }

  Result<KgslSection> kgsl(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "kgsl", {"update_busy", "freq_table", "device"}));
    KgslSection section;
    section.written = true;
    kernel::KgslConfig& c = section.config;
    TIDEMARK_CHECK(yaml::optional(entries, "update_busy", c.update_busy_us, [&](const Value& v) -> Result<uint64_t> {
      TIDEMARK_TRY(ns, timeout_ns(v));
      if (ns < 1000 || ns % 1000 != 0)
        return error_at(v.where, "a whole number of microseconds, at least 1us", quote(v.node.Scalar()));
      return ns / 1000;
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "freq_table", c.freq_table_hz, [&](const Value& v) -> Result<std::vector<uint64_t>> {
      TIDEMARK_TRY(items, read_.non_empty_list(v, "a non-empty list of frequencies, the maximum first"));
      std::vector<uint64_t> table;
      for (const auto& item : items) {
        TIDEMARK_TRY(hz, frequency(item));
        if (!table.empty() && hz > table.front())
          return error_at(item.where, fmt::format("a frequency at most the first ({} Hz)", table.front()),
                          quote(item.node.Scalar()));
        table.push_back(hz);
      }
      return table;
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "device", c.device_name,
                                  [&](const Value& v) { return read_.kebab_name(v); }));
    return section;
  }

  // `585MHz`, `300000kHz`, `1GHz`, or Hz; above 0.
  Result<uint64_t> frequency(const Value& value) const {
    constexpr std::string_view kWhat = "a frequency such as 585MHz (Hz, kHz, MHz, GHz), above 0";
    TIDEMARK_TRY(written, read_.text(value, kWhat));
    std::string_view rest = written;
    uint64_t amount = 0;
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), amount);
    if (error != std::errc() || end == rest.data()) return error_at(value.where, kWhat, quote(written));
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    uint64_t scale = rest.empty() || rest == "Hz" ? 1
                     : rest == "kHz"              ? 1'000
                     : rest == "MHz"              ? 1'000'000
                     : rest == "GHz"              ? 1'000'000'000
                                                  : 0;
    uint64_t hz = 0;
    if (scale == 0 || amount == 0 || __builtin_mul_overflow(amount, scale, &hz))
      return error_at(value.where, kWhat, quote(written));
    return hz;
  }

  // ---- the scenario's own GPU counters ---------------------------------------------------

  Result<std::vector<uint32_t>> ids(const Value& value, std::string_view what) const {
    TIDEMARK_TRY(items, read_.list(value, what));
    std::vector<uint32_t> out;
    for (const auto& item : items) {
      TIDEMARK_TRY(id, read_.integer(item, 0, 0xffffffff));
      out.push_back(static_cast<uint32_t>(id));
    }
    return out;
  }

  // A list of names, each read by `parse` (a name -> optional value), or an error naming `what`.
  template <class T>
  Result<std::vector<T>> names(const Value& value, std::string_view list, std::string_view what,
                               std::optional<T> (*parse)(std::string_view)) const {
    TIDEMARK_TRY(items, read_.list(value, list));
    std::vector<T> out;
    for (const auto& item : items) {
      TIDEMARK_TRY(name, read_.text(item, what));
      auto parsed = parse(name);
      if (!parsed) return error_at(item.where, what, quote(name));
      out.push_back(*parsed);
    }
    return out;
  }

  Result<std::vector<tracer::MeasureUnit>> units(const Value& value) const {
    return names<tracer::MeasureUnit>(value, "a list of units",
                                      "a unit such as byte, second, pixel, percent (MeasureUnit, lower case)",
                                      tracer::parse_measure_unit);
  }

  Result<tracer::CounterSpec> counter_spec(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "counter spec", {"id", "name", "description", "units", "per", "groups",
                                                               "peak", "direction", "select_by_default"}));
    tracer::CounterSpec spec;
    uint32_t id = 0;
    TIDEMARK_CHECK(yaml::required(entries, "id", id, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(number, read_.integer(v, 0, 0xffffffff));
      return static_cast<uint32_t>(number);
    }));
    spec.counter_id = id;
    std::string name;
    TIDEMARK_CHECK(yaml::required(entries, "name", name, [&](const Value& v) { return read_.text(v, "a counter name"); }));
    spec.name = name;
    TIDEMARK_CHECK(yaml::optional(entries, "description", spec.description,
                                  [&](const Value& v) { return read_.text(v, "a description"); }));
    TIDEMARK_CHECK(yaml::optional(entries, "units", spec.numerator_units, [&](const Value& v) { return units(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "per", spec.denominator_units, [&](const Value& v) { return units(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "groups", spec.groups, [&](const Value& v) {
      return names<tracer::CounterGroup>(
          v, "a list of groups",
          "a group (unclassified, system, vertices, fragments, primitives, memory, compute, ray_tracing)",
          tracer::parse_counter_group);
    }));
    if (auto peak = entries.optional("peak")) {
      const std::string& text = peak->node.IsScalar() ? peak->node.Scalar() : std::string();
      if (text.find('.') == std::string::npos) {
        TIDEMARK_TRY(whole, read_.integer(*peak, yaml::kNoMin, yaml::kNoMax));
        spec.peak = whole;
      } else {
        TIDEMARK_TRY(decimal, number(*peak));
        spec.peak = decimal;
      }
    }
    TIDEMARK_CHECK(yaml::optional(entries, "direction", spec.direction, [&](const Value& v) -> Result<tracer::ValueDirection> {
      TIDEMARK_TRY(word, read_.text(v, "backwards or forwards"));
      if (word == "backwards") return tracer::ValueDirection::Backwards;
      if (word == "forwards") return tracer::ValueDirection::Forwards;
      return error_at(v.where, "backwards or forwards", quote(word));
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "select_by_default", spec.select_by_default,
                                  [&](const Value& v) { return read_.boolean(v); }));
    return spec;
  }

  Result<CounterSection> counters(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "counters", {"specs", "blocks", "period", "instrumented", "gpus",
                                                           "interned", "select"}));
    CounterSection section;
    auto& d = section.descriptor;
    TIDEMARK_CHECK(yaml::required(entries, "specs", d.specs, [&](const Value& v) {
      return each(v, "a list of counter specs such as '- {id: 1, name: Load, units: [percent]}'",
                  [&](const Value& item) { return counter_spec(item); });
    }));
    std::map<uint32_t, std::string> declared;
    for (size_t k = 0; k < d.specs.size(); ++k)
      if (!declared.emplace(*d.specs[k].counter_id, *d.specs[k].name).second)
        return error_at(entries.find("specs")->value.where, "counter ids declared once",
                        fmt::format("id {} again", *d.specs[k].counter_id));
    auto known_ids = [&](const Value& v, std::string_view what) -> Result<std::vector<uint32_t>> {
      TIDEMARK_TRY(list, ids(v, what));
      for (uint32_t id : list)
        if (!declared.contains(id))
          return error_at(v.where, fmt::format("counter ids the specs declare ({})", join_ids(declared)),
                          fmt::format("{}", id));
      return list;
    };
    TIDEMARK_CHECK(yaml::optional(entries, "blocks", d.blocks, [&](const Value& v) {
      return each(v, "a list of blocks such as '- {id: 1, name: shader, capacity: 2, counters: [1, 2]}'",
                  [&](const Value& item) -> Result<tracer::CounterBlock> {
                    TIDEMARK_TRY(fields, read_.fields(item, "block", {"id", "name", "description", "capacity", "counters"}));
                    tracer::CounterBlock block;
                    TIDEMARK_CHECK(yaml::required(fields, "id", block.block_id, [&](const Value& x) -> Result<uint32_t> {
                      TIDEMARK_TRY(number, read_.integer(x, 0, 0xffffffff));
                      return static_cast<uint32_t>(number);
                    }));
                    TIDEMARK_CHECK(yaml::optional(fields, "name", block.name,
                                                  [&](const Value& x) { return read_.text(x, "a block name"); }));
                    TIDEMARK_CHECK(yaml::optional(fields, "description", block.description,
                                                  [&](const Value& x) { return read_.text(x, "a description"); }));
                    TIDEMARK_CHECK(yaml::optional(fields, "capacity", block.capacity, [&](const Value& x) -> Result<uint32_t> {
                      TIDEMARK_TRY(number, read_.integer(x, 1, 0xffffffff));
                      return static_cast<uint32_t>(number);
                    }));
                    TIDEMARK_CHECK(yaml::required(fields, "counters", block.counter_ids,
                                                  [&](const Value& x) { return known_ids(x, "a list of counter ids"); }));
                    return block;
                  });
    }));
    if (auto period = entries.optional("period")) {
      TIDEMARK_TRY(range, read_.fields(*period, "period", {"min", "max"}));
      auto time = [&](const Value& v) { return timeout_ns(v); };
      TIDEMARK_CHECK(yaml::optional(range, "min", d.min_sampling_period_ns, time));
      TIDEMARK_CHECK(yaml::optional(range, "max", d.max_sampling_period_ns, time));
    }
    TIDEMARK_CHECK(yaml::optional(entries, "instrumented", d.supports_instrumented_sampling,
                                  [&](const Value& v) { return read_.boolean(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "gpus", section.gpus, [&](const Value& v) -> Result<std::vector<uint32_t>> {
      TIDEMARK_TRY(list, ids(v, "a list of GPU ids"));
      if (list.empty()) return error_at(v.where, "at least one GPU", "an empty list");
      return list;
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "interned", section.interned, [&](const Value& v) { return read_.boolean(v); }));
    if (!section.interned && section.gpus.size() > 1)
      return error_at(entries.find("gpus")->key_where, "one GPU for an inline descriptor (interned: true for several)",
                      fmt::format("{} GPUs", section.gpus.size()));
    if (auto select = entries.optional("select")) TIDEMARK_CHECK(selection(*select, d, known_ids));
    return section;
  }

  static std::string join_ids(const std::map<uint32_t, std::string>& declared) {
    std::vector<std::string> out;
    for (const auto& [id, name] : declared) out.push_back(fmt::format("{} {}", id, name));
    return fmt::format("{}", fmt::join(out, ", "));
  }

  // The gpu.counters config a session would send: its counters fit each block's capacity, its
  // period lies in the descriptor's range, instrumented sampling only where supported.
  template <class KnownIds>
  Status selection(const Value& value, const tracer::CounterDescriptor& d, KnownIds known_ids) const {
    TIDEMARK_TRY(entries, read_.fields(value, "select", {"counters", "period", "instrumented"}));
    std::vector<uint32_t> chosen;
    TIDEMARK_CHECK(yaml::required(entries, "counters", chosen,
                                  [&](const Value& v) { return known_ids(v, "a list of counter ids"); }));
    const Value& where = entries.find("counters")->value;
    for (const auto& block : d.blocks) {
      if (!block.capacity) continue;
      std::vector<uint32_t> in_block;
      for (uint32_t id : chosen)
        if (std::find(block.counter_ids.begin(), block.counter_ids.end(), id) != block.counter_ids.end())
          in_block.push_back(id);
      if (in_block.size() > *block.capacity)
        return error_at(where.where,
                        fmt::format("at most {} counters of block {} '{}' (its capacity)", *block.capacity,
                                    block.block_id, block.name),
                        fmt::format("{} ({})", in_block.size(), fmt::join(in_block, ", ")));
    }
    if (auto period = entries.optional("period")) {
      TIDEMARK_TRY(ns, timeout_ns(*period));
      uint64_t low = d.min_sampling_period_ns.value_or(0), high = d.max_sampling_period_ns.value_or(UINT64_MAX);
      if (ns < low || ns > high)
        return error_at(period->where, fmt::format("a sampling period from {} ns to {} ns (the descriptor's range)", low,
                                                   high == UINT64_MAX ? std::string("no limit") : std::to_string(high)),
                        fmt::format("{} ns", ns));
    }
    if (auto instrumented = entries.optional("instrumented")) {
      TIDEMARK_TRY(on, read_.boolean(*instrumented));
      if (on && !d.supports_instrumented_sampling)
        return error_at(instrumented->where, "instrumented: false (the descriptor does not support instrumented sampling)",
                        "true");
    }
    return {};
  }

  Result<StepKind> counter_sample(const Value& value) {
    if (!counters_) return error_at(value.where, "a counters: section before a counter_sample step", "none");
    TIDEMARK_TRY(entries, read_.fields(value, "counter_sample", {"at", "gpu", "values"}));
    CounterSampleStep step{.at = {}, .gpu = counters_->gpus.front(), .values = {}};
    TIDEMARK_CHECK(yaml::required(entries, "at", step.at, int_field(kTimestampRule)));
    TIDEMARK_CHECK(yaml::optional(entries, "gpu", step.gpu, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(gpu, read_.integer(v, 0, 0xffffffff));
      if (std::find(counters_->gpus.begin(), counters_->gpus.end(), gpu) == counters_->gpus.end())
        return error_at(v.where, "a GPU of the counter stream", fmt::format("{}", gpu));
      return static_cast<uint32_t>(gpu);
    }));
    TIDEMARK_TRY(values, entries.required("values"));
    if (!values.node.IsMap() || values.node.size() == 0)
      return error_at(values.where, "a map of counter id -> value such as {1: 5, 2: 10.5}", yaml::describe(values.node));
    for (const auto& pair : values.node) {
      Value key{pair.first, read_.source().at(pair.first.Mark())};
      Value item{pair.second, read_.source().at(pair.second.Mark())};
      TIDEMARK_TRY(id, read_.integer(key, 0, 0xffffffff));
      bool declared = false;
      for (const auto& spec : counters_->descriptor.specs) declared |= spec.counter_id == static_cast<uint32_t>(id);
      if (!declared) return error_at(key.where, "a counter id the specs declare", fmt::format("{}", id));
      if (item.node.IsScalar() && item.node.Scalar().find('.') != std::string::npos) {
        TIDEMARK_TRY(decimal, number(item));
        step.values.emplace_back(static_cast<uint32_t>(id), decimal);
      } else {
        TIDEMARK_TRY(whole, int_field(kCounterValueRule)(item));
        step.values.emplace_back(static_cast<uint32_t>(id), std::move(whole));
      }
    }
    return step;
  }

  // One of `names`, as the enum value at its index.
  template <class Enum, size_t N>
  Result<Enum> named_value(const Value& value, std::string_view what, const std::string_view (&names)[N],
                           Enum) const {
    std::string expected = fmt::format("{} ({})", what, join(std::vector<std::string_view>(names, names + N)));
    TIDEMARK_TRY(word, read_.text(value, expected));
    for (size_t k = 0; k < N; ++k)
      if (names[k] == word) return static_cast<Enum>(k);
    return error_at(value.where, expected, quote(word));
  }

  Result<std::vector<std::string>> buffers(const Value& value) {
    TIDEMARK_TRY(items, read_.list(value, "a list of buffer names"));
    if (static_cast<int64_t>(items.size()) > kMaxBuffers)
      return error_at(value.where, fmt::format("at most {} buffers", kMaxBuffers), fmt::format("{}", items.size()));
    std::vector<std::string> names;
    for (const auto& item : items) {
      TIDEMARK_TRY(name, read_.identifier(item, "a buffer name"));
      if (!buffer_set_.insert(name).second)
        return error_at(item.where, "unique buffer names", fmt::format("{} again", quote(name)));
      names.push_back(name);
    }
    return names;
  }

  // ---- workload ----------------------------------------------------------------------

  using StepReader = Result<StepKind> (Schema::*)(const Value&);
  struct StepSchema {
    std::string_view name;
    StepReader read;
  };
  // Every step a workload may hold, but `repeat`, the one with fields beside its key.
  static std::span<const StepSchema> step_schemas() {
    static constexpr StepSchema kSteps[] = {
        {"buffer_data", &Schema::buffer_data},
        {"buffer_sub_data", &Schema::buffer_sub_data},
        {"draw", &Schema::draw},
        {"fence", &Schema::fence},
        {"client_wait", &Schema::client_wait},
        {"flush", &Schema::no_fields<Flush>},
        {"finish", &Schema::no_fields<Finish>},
        {"present", &Schema::no_fields<Present>},
        {"gpu_mem_total", &Schema::gpu_mem_total},
        {"gpu_alloc", &Schema::gpu_alloc},
        {"gpu_free", &Schema::gpu_free},
        {"gpumem_attach", &Schema::gpumem_attach},
        {"gpumem_walk", &Schema::gpumem_walk},
        {"gpumem_sample", &Schema::no_fields<GpuMemSample>},
        {"kmd_submit", &Schema::kmd_submit},
        {"kmd_advance", &Schema::kmd_advance},
        {"kmd_wait", &Schema::kmd_wait},
        {"kmd_frame", &Schema::no_fields<KmdFrame>},
        {"kmd_signal", &Schema::kmd_signal},
        {"kmd_fault", &Schema::kmd_fault},
        {"kmd_diagnose", &Schema::kmd_diagnose},
        {"kgsl_sample", &Schema::kgsl_sample},
        {"kgsl_power", &Schema::kgsl_power},
        {"kgsl_read", &Schema::kgsl_read},
        {"counter_sample", &Schema::counter_sample},
    };
    return kSteps;
  }

  static std::vector<std::string_view> step_names() {
    std::vector<std::string_view> names;
    for (const auto& step : step_schemas()) names.push_back(step.name);
    names.push_back("repeat");
    return names;
  }

  Result<std::vector<Step>> steps(const Value& value, std::string_view context) {
    TIDEMARK_TRY(items, read_.non_empty_list(value, fmt::format("a non-empty list of steps in {}", context)));
    std::vector<Step> steps;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, step(item));
      steps.push_back(std::move(parsed));
    }
    return steps;
  }

  Result<Step> step(const Value& item) {
    if (++written_steps_ > kMaxWrittenSteps)
      return error_at(item.where, fmt::format("at most {} steps in one file (an alias counts each time it is used)",
                                              kMaxWrittenSteps),
                      "more");
    if (item.node.IsMap())
      for (const auto& pair : item.node)
        if (pair.first.IsScalar() && pair.first.Scalar() == "repeat") return repeat(item);
    TIDEMARK_TRY(entry, read_.single_key(item, "a step such as '- draw: {uniform: color}'", "one key per step",
                                         step_names(), " (indent a step's fields under it)"));
    for (const auto& schema : step_schemas()) {
      if (schema.name != entry.key) continue;
      step_name_ = schema.name;
      TIDEMARK_TRY(kind, (this->*schema.read)(entry.value));
      return Step{std::make_shared<StepKind>(std::move(kind)), entry.key_where, entry.key};
    }
    return error_at(entry.key_where, "a step", quote(entry.key));  // unreachable: single_key checked the key
  }

  Result<Step> repeat(const Value& item) {
    TIDEMARK_TRY(entries, read_.fields(item, "repeat", {"repeat", "as", "steps"}));
    Repeat loop;
    TIDEMARK_CHECK(yaml::required(entries, "repeat", loop.count, int_field(kRepeatRule)));
    if (auto as = entries.optional("as")) {
      TIDEMARK_TRY(variable, read_.identifier(*as, "a loop variable name"));
      if (yaml::contains(loop_variables_, variable))
        return error_at(as->where, fmt::format("a name not already in scope ({})", join(loop_variables_)),
                        quote(variable));
      loop.variable = variable;
    }
    TIDEMARK_TRY(body_value, entries.required("steps"));
    if (!loop.variable.empty()) loop_variables_.push_back(loop.variable);
    auto body = steps(body_value, "repeat");
    if (!loop.variable.empty()) loop_variables_.pop_back();
    if (!body) return std::unexpected(std::move(body.error()));
    loop.steps = std::move(*body);
    return Step{std::make_shared<StepKind>(std::move(loop)), entries.find("repeat")->key_where, "repeat"};
  }

  Result<StepKind> buffer_data(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "buffer_data", {"buffer", "size", "fill"}));
    BufferData step;
    TIDEMARK_CHECK(yaml::required(entries, "buffer", step.buffer, buffer_name()));
    TIDEMARK_CHECK(yaml::required(entries, "size", step.size, int_field(kSizeRule)));
    TIDEMARK_CHECK(yaml::optional(entries, "fill", step.fill, fill()));
    return step;
  }

  Result<StepKind> buffer_sub_data(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "buffer_sub_data", {"buffer", "offset", "size", "fill"}));
    BufferSubData step;
    TIDEMARK_CHECK(yaml::required(entries, "buffer", step.buffer, buffer_name()));
    TIDEMARK_CHECK(yaml::required(entries, "offset", step.offset, int_field(kOffsetRule)));
    TIDEMARK_CHECK(yaml::required(entries, "size", step.size, int_field(kSizeRule)));
    TIDEMARK_CHECK(yaml::optional(entries, "fill", step.fill, fill()));
    return step;
  }

  Result<StepKind> draw(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "draw", {"uniform", "vertices", "band"}));
    Draw step;
    TIDEMARK_CHECK(yaml::required(entries, "uniform", step.uniform, buffer_name()));
    TIDEMARK_CHECK(yaml::optional(entries, "vertices", step.vertices, buffer_name()));
    TIDEMARK_CHECK(yaml::optional(entries, "band", step.band, [&](const Value& v) { return band(v); }));
    return step;
  }

  Result<Band> band(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "band", {"index", "of"}));
    Band band;
    TIDEMARK_CHECK(yaml::required(entries, "index", band.index, int_field(kBandIndexRule)));
    TIDEMARK_CHECK(yaml::required(entries, "of", band.of, int_field(kBandCountRule)));
    auto constant_index = band.index.expr.literal_value();
    auto constant_of = band.of.expr.literal_value();
    if (constant_index && constant_of && *constant_index >= *constant_of)
      return error_at(band.index.where, fmt::format("a band index below 'of' ({})", *constant_of),
                      quote(band.index.expr.text()));
    return band;
  }

  Result<StepKind> fence(const Value& value) {
    TIDEMARK_TRY(name, read_.identifier(value, "a fence name"));
    if (!yaml::contains(fences_, name)) fences_.push_back(name);
    return FenceSync{name};
  }

  Result<StepKind> client_wait(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "client_wait", {"fence", "flush", "timeout", "expect"}));
    ClientWait step;
    TIDEMARK_CHECK(yaml::required(entries, "fence", step.fence, [&](const Value& v) -> Result<std::string> {
      std::string expected = fmt::format("a fence defined by an earlier fence step ({})", join(fences_));
      TIDEMARK_TRY(fence, read_.text(v, expected));
      if (!yaml::contains(fences_, fence)) return error_at(v.where, expected, quote(fence));
      return fence;
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "flush", step.flush, [&](const Value& v) { return read_.boolean(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "timeout", step.timeout_ns, [&](const Value& v) { return timeout_ns(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "expect", step.expect, [&](const Value& v) { return wait_status(v); }));
    return step;
  }

  // ---- the kernel model's steps -------------------------------------------------------

  Result<StepKind> gpu_mem_total(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "gpu_mem_total", {"gpu", "pid", "size"}));
    GpuMemTotal step{.gpu = zero_field(value), .pid = {}, .size = {}};
    TIDEMARK_CHECK(yaml::optional(entries, "gpu", step.gpu, int_field(kGpuRule)));
    TIDEMARK_CHECK(yaml::required(entries, "pid", step.pid, int_field(kPidRule)));
    TIDEMARK_CHECK(yaml::required(entries, "size", step.size, int_field(kBytesRule)));
    return step;
  }

  Result<StepKind> gpu_alloc(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "gpu_alloc", {"gpu", "pid", "type", "id", "size"}));
    GpuAlloc step{.gpu = zero_field(value), .pid = {}, .type = {}, .id = {}, .size = {}};
    TIDEMARK_CHECK(yaml::optional(entries, "gpu", step.gpu, int_field(kGpuRule)));
    TIDEMARK_CHECK(yaml::required(entries, "pid", step.pid, int_field(kPidRule)));
    TIDEMARK_CHECK(yaml::required(entries, "type", step.type, [&](const Value& v) { return memory_type(v); }));
    TIDEMARK_CHECK(yaml::required(entries, "id", step.id, int_field(kAllocationIdRule)));
    TIDEMARK_CHECK(yaml::required(entries, "size", step.size, int_field(kBytesRule)));
    return step;
  }

  Result<StepKind> gpu_free(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "gpu_free", {"gpu", "pid", "id"}));
    GpuFree step{.gpu = zero_field(value), .pid = {}, .id = {}};
    TIDEMARK_CHECK(yaml::optional(entries, "gpu", step.gpu, int_field(kGpuRule)));
    TIDEMARK_CHECK(yaml::required(entries, "pid", step.pid, int_field(kPidRule)));
    TIDEMARK_CHECK(yaml::required(entries, "id", step.id, int_field(kAllocationIdRule)));
    return step;
  }

  Result<StepKind> gpumem_attach(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "gpumem_attach", {"failures", "stop"}));
    GpuMemAttach step{.failures = zero_field(value), .stop = false};
    TIDEMARK_CHECK(yaml::optional(entries, "failures", step.failures, int_field(kAttachFailuresRule)));
    TIDEMARK_CHECK(yaml::optional(entries, "stop", step.stop, [&](const Value& v) { return read_.boolean(v); }));
    return step;
  }

  Result<StepKind> gpumem_walk(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "gpumem_walk", {"updates"}));
    GpuMemWalk step;
    TIDEMARK_CHECK(yaml::optional(entries, "updates", step.updates, [&](const Value& v) {
      return each(v, "a list of updates such as '- {at: 1, gpu: 1, pid: 7, size: 4KiB}'",
                  [&](const Value& item) -> Result<WalkUpdate> {
                    TIDEMARK_TRY(fields, read_.fields(item, "update", {"at", "gpu", "pid", "size"}));
                    WalkUpdate update{.at = {}, .gpu = zero_field(item), .pid = {}, .size = {}};
                    TIDEMARK_CHECK(yaml::required(fields, "at", update.at, int_field(kWalkStepRule)));
                    TIDEMARK_CHECK(yaml::optional(fields, "gpu", update.gpu, int_field(kGpuRule)));
                    TIDEMARK_CHECK(yaml::required(fields, "pid", update.pid, int_field(kPidRule)));
                    TIDEMARK_CHECK(yaml::required(fields, "size", update.size, int_field(kBytesRule)));
                    return update;
                  });
    }));
    return step;
  }

  // ---- the kernel driver's steps ------------------------------------------------------

  Result<StepKind> kmd_submit(const Value& value) {
    TIDEMARK_TRY(entries,
                 read_.fields(value, "kmd_submit", {"commands", "half_written", "doorbell", "fence_unwritable"}));
    KmdSubmit step;
    TIDEMARK_CHECK(yaml::required(entries, "commands", step.commands, [&](const Value& v) { return commands(v); }));
    TIDEMARK_CHECK(submit_faults(entries, step.faults));
    return step;
  }

  Result<StepKind> kmd_fault(const Value& value) {
    TIDEMARK_TRY(entries,
                 read_.fields(value, "kmd_fault", {"queue", "half_written", "doorbell", "fence_unwritable"}));
    KmdFault step;
    TIDEMARK_CHECK(yaml::optional(entries, "queue", step.queue, [&](const Value& v) { return queue(v); }));
    TIDEMARK_CHECK(submit_faults(entries, step.faults));
    if (step.faults == kernel::SubmitFaults{})
      return error_at(value.where, "a fault for the next submit (half_written, doorbell, fence_unwritable)", "none");
    return step;
  }

  Status submit_faults(const Fields& entries, kernel::SubmitFaults& faults) const {
    auto flag = [&](const Value& v) { return read_.boolean(v); };
    TIDEMARK_CHECK(yaml::optional(entries, "half_written", faults.half_written, flag));
    TIDEMARK_CHECK(yaml::optional(entries, "doorbell", faults.doorbell, [&](const Value& v) {
      return named_value(v, "a doorbell fault", kernel::kDoorbellFaultNames, kernel::DoorbellFault::None);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "fence_unwritable", faults.fence_unwritable, flag));
    return {};
  }

  // `- draw`, `- {draw: 10ms}` (its engine time), `- {semaphore_wait: 3}`, `- {bad_address: 0xdead000}`,
  // `- {bad_opcode: 0x7f}`.
  Result<std::vector<kernel::Command>> commands(const Value& value) const {
    constexpr std::string_view kWhat =
        "a command (draw, {draw: 10ms}, {semaphore_wait: 3}, {bad_address: 0xdead000}, {bad_opcode: 0x7f})";
    TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of commands"));
    if (items.size() > kernel::kMaxCommandsPerSubmit)
      return error_at(value.where, fmt::format("at most {} commands in a submit", kernel::kMaxCommandsPerSubmit),
                      std::to_string(items.size()));
    std::vector<kernel::Command> out;
    for (const auto& item : items) {
      kernel::Command command;
      if (item.node.IsScalar()) {
        if (item.node.Scalar() != "draw") return error_at(item.where, kWhat, quote(item.node.Scalar()));
        out.push_back(command);
        continue;
      }
      std::vector<std::string_view> kinds(std::begin(kernel::kCommandKindNames), std::end(kernel::kCommandKindNames));
      TIDEMARK_TRY(entry, read_.single_key(item, kWhat, "one key per command", kinds, ""));
      command.kind = *kernel::parse_command_kind(entry.key);
      if (command.kind == kernel::CommandKind::Draw) {
        TIDEMARK_TRY(cost, timeout_ns(entry.value));
        command.cost_ns = cost;
      } else {
        TIDEMARK_TRY(arg, command_arg(entry.value));
        command.arg = arg;
      }
      out.push_back(command);
    }
    return out;
  }

  // A semaphore, address or opcode: decimal, or hex as a decoder prints it (0xdead000).
  Result<uint64_t> command_arg(const Value& value) const {
    constexpr std::string_view kWhat = "an integer >= 0, decimal or 0x-prefixed hex";
    std::string written = value.node.IsScalar() ? value.node.Scalar() : "";
    std::string_view digits = written;
    int base = 10;
    if (digits.starts_with("0x") || digits.starts_with("0X")) {
      digits.remove_prefix(2);
      base = 16;
    }
    uint64_t number = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number, base);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size())
      return error_at(value.where, kWhat, value.node.IsScalar() ? quote(written) : yaml::describe(value.node));
    return number;
  }

  Result<StepKind> kmd_advance(const Value& value) {
    TIDEMARK_TRY(ns, timeout_ns(value));
    return KmdAdvance{ns};
  }

  Result<StepKind> kmd_wait(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "kmd_wait", {"fence", "timeout"}));
    KmdWait step;
    TIDEMARK_CHECK(yaml::required(entries, "fence", step.fence, int_field(kFenceRule)));
    TIDEMARK_CHECK(yaml::required(entries, "timeout", step.timeout_ns, [&](const Value& v) { return timeout_ns(v); }));
    return step;
  }

  Result<StepKind> kmd_signal(const Value& value) {
    KmdSignal step;
    TIDEMARK_TRY(semaphore, int_field(kSemaphoreRule)(value));
    step.semaphore = std::move(semaphore);
    return step;
  }

  // `kmd_diagnose: stuck` (the scene's queue) or `kmd_diagnose: {as: stuck, queue: backend}`.
  Result<StepKind> kmd_diagnose(const Value& value) {
    constexpr std::string_view kWhat = "a name for the diagnosis such as stuck";
    KmdDiagnose step;
    if (!value.node.IsMap()) {
      TIDEMARK_TRY(name, result_name(value, kWhat));
      step.name = std::move(name);
      return step;
    }
    TIDEMARK_TRY(entries, read_.fields(value, "kmd_diagnose", {"as", "queue"}));
    TIDEMARK_CHECK(yaml::required(entries, "as", step.name, [&](const Value& v) { return result_name(v, kWhat); }));
    TIDEMARK_CHECK(yaml::optional(entries, "queue", step.queue, [&](const Value& v) { return queue(v); }));
    return step;
  }

  Result<kernel::Queue> queue(const Value& v) const {
    return named_value(v, "a queue", kernel::kQueueNames, kernel::Queue::Scene);
  }

  Result<StepKind> kgsl_sample(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "kgsl_sample", {"busy_us", "total_us", "freq"}));
    KgslSample step;
    TIDEMARK_CHECK(yaml::required(entries, "busy_us", step.busy_us, int_field(kMicrosecondsRule)));
    TIDEMARK_CHECK(yaml::required(entries, "total_us", step.total_us, int_field(kMicrosecondsRule)));
    TIDEMARK_CHECK(yaml::required(entries, "freq", step.freq_hz, [&](const Value& v) { return frequency(v); }));
    return step;
  }

  Result<StepKind> kgsl_power(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "kgsl_power", {"axi"}));
    KgslPower step;
    TIDEMARK_CHECK(yaml::required(entries, "axi", step.axi_on, [&](const Value& v) -> Result<bool> {
      TIDEMARK_TRY(word, read_.text(v, "on or off"));
      if (word == "on" || word == "true") return true;
      if (word == "off" || word == "false") return false;
      return error_at(v.where, "on or off", quote(word));
    }));
    return step;
  }

  Result<StepKind> kgsl_read(const Value& value) {
    TIDEMARK_TRY(entries, read_.fields(value, "kgsl_read", {"node", "as"}));
    KgslRead step;
    TIDEMARK_CHECK(yaml::required(entries, "node", step.node, [&](const Value& v) {
      return named_value(v, "a kgsl node", kernel::kKgslNodeNames, kernel::KgslNode::Gpubusy);
    }));
    TIDEMARK_CHECK(yaml::required(entries, "as", step.name,
                                  [&](const Value& v) { return result_name(v, "a name for the read such as first"); }));
    return step;
  }

  // A name a check can refer to; each step keeps its own (a repeat keeps the latest result).
  Result<std::string> result_name(const Value& value, std::string_view what) {
    TIDEMARK_TRY(name, read_.identifier(value, what));
    if (yaml::contains(result_names_, name))
      return error_at(value.where, "a name no other step uses", fmt::format("{} again", quote(name)));
    result_names_.push_back(name);
    return name;
  }

  // GPU 0 when a step does not name one.
  static IntField zero_field(const Value& value) { return IntField{*Expression::parse("0"), value.where}; }

  Result<uint64_t> timeout_ns(const Value& value) const {
    constexpr std::string_view kWhat = "a timeout in ns, or with a unit such as 500ms or 2s";
    TIDEMARK_TRY(written, read_.text(value, kWhat));
    std::string_view rest = written;
    uint64_t amount = 0;
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), amount);
    if (error != std::errc() || end == rest.data()) return error_at(value.where, kWhat, quote(written));
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    while (rest.starts_with(' ')) rest.remove_prefix(1);
    uint64_t scale = 0;
    if (rest.empty() || rest == "ns") scale = 1;
    if (rest == "us") scale = 1'000;
    if (rest == "ms") scale = 1'000'000;
    if (rest == "s") scale = 1'000'000'000;
    uint64_t nanoseconds = 0;
    if (scale == 0 || __builtin_mul_overflow(amount, scale, &nanoseconds))
      return error_at(value.where, kWhat, quote(written));
    return nanoseconds;
  }

  Result<WaitStatus> wait_status(const Value& value) const {
    std::string expected = fmt::format(
        "one of {}", join(std::vector<std::string_view>(kWaitStatusNames.begin(), kWaitStatusNames.end())));
    TIDEMARK_TRY(word, read_.text(value, expected));
    if (auto status = parse_wait_status(word)) return *status;
    return error_at(value.where, expected, quote(word));
  }

  template <class Kind>
  Result<StepKind> no_fields(const Value& value) {
    if (value.node.IsNull() || (value.node.IsMap() && value.node.size() == 0)) return Kind{};
    return error_at(value.where, fmt::format("nothing or {{}} after {}", step_name_), yaml::describe(value.node));
  }

  // ---- expectations ------------------------------------------------------------------

  Status expect(const Value& value, Scenario& scenario) const {
    TIDEMARK_TRY(entries,
                 read_.fields(value, "expect", {"gauges", "pixels", "kernel", "kmd", "kgsl", "trace", "reconcile"}));
    if (auto reconcile = entries.optional("reconcile")) {
      TIDEMARK_TRY(on, read_.boolean(*reconcile));
      if (!on) return error_at(reconcile->where, "true (or no reconcile key)", "false");
      if (!scenario.kernel.reports)
        return error_at(reconcile->where, "a kernel the backend reports to (kernel.reports: true) to reconcile",
                        "kernel.reports: false");
      if (scenario.trace_memory != tracer::MemorySource::Both)
        return error_at(reconcile->where,
                        "a trace of the GPU memory snapshot and every change (tracing.gpu_memory: both) to reconcile",
                        fmt::format("gpu_memory: {}", tracer::kMemorySourceNames[static_cast<size_t>(scenario.trace_memory)]));
      scenario.reconcile = reconcile->where;
    }
    TIDEMARK_CHECK(yaml::optional(entries, "trace", scenario.trace_checks, [&](const Value& v) {
      return each(v, "a list of trace checks such as '- {track: Parked bytes (gpu 0), last: 0}'",
                  [&](const Value& item) { return trace_check(item); });
    }));
    if (auto kernel = entries.optional("kernel")) TIDEMARK_CHECK(kernel_checks(*kernel, scenario));
    TIDEMARK_CHECK(yaml::optional(entries, "kmd", scenario.diagnosis_checks, [&](const Value& v) {
      return named_checks<DiagnosisCheck>(v, "diagnoses by name, such as 'stuck: {scene: stuck_command}'",
                                          [&](DiagnosisCheck& check, const Value& fields) {
                                            return diagnosis_fields(check, fields);
                                          });
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "kgsl", scenario.kgsl_checks, [&](const Value& v) {
      return named_checks<KgslReadCheck>(v, "node reads by name, such as 'first: \"25\\n\"'",
                                         [&](KgslReadCheck& check, const Value& text) -> Status {
                                           TIDEMARK_TRY(read, read_.text(text, "the node's text"));
                                           check.text = std::move(read);
                                           return {};
                                         });
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "gauges", scenario.gauge_checks, [&](const Value& v) {
      return each(v, "a list of gauge comparisons", [&](const Value& item) { return gauge(item); });
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "pixels", scenario.pixel_checks, [&](const Value& v) {
      return each(v, "a list of pixel checks (bands, probe, golden)", [&](const Value& item) { return pixels(item); });
    }));
    if (scenario.checks().empty())
      return error_at(value.where, "at least one check (gauges, pixels, or a client_wait's expect)", "none");
    std::vector<Value> pixel_values;
    if (auto pixels = entries.optional("pixels")) {
      TIDEMARK_TRY(items, read_.list(*pixels, "a list of pixel checks"));
      pixel_values = std::move(items);
    }
    return each_check_once(scenario, pixel_values);
  }

  // A map of result names (each defined by a step) to what a check expects of them.
  template <class Check, class Read>
  Result<std::vector<Check>> named_checks(const Value& value, std::string_view what, Read read) const {
    if (!value.node.IsMap() || value.node.size() == 0)
      return error_at(value.where, fmt::format("a map of {}", what), yaml::describe(value.node));
    std::vector<std::string_view> defined(result_names_.begin(), result_names_.end());
    TIDEMARK_TRY(entries, read_.fields(value, what, defined));
    std::vector<Check> checks;
    for (const auto& entry : entries.entries()) {
      Check check;
      check.name = entry.key;
      check.where = entry.key_where;
      TIDEMARK_CHECK(read(check, entry.value));
      checks.push_back(std::move(check));
    }
    return checks;
  }

  Result<TraceCheck> trace_check(const Value& value) const {
    TIDEMARK_TRY(entries,
                 read_.fields(value, "trace check", {"track", "rows", "rows_file", "count", "last", "absent", "unit", "flagged"}));
    TraceCheck check;
    check.where = value.where;
    TIDEMARK_CHECK(yaml::required(entries, "track", check.track, [&](const Value& v) {
      return read_.text(v, "a track label such as 'Parked bytes (gpu 0)'");
    }));
    if (entries.find("rows") && entries.find("rows_file"))
      return error_at(entries.find("rows_file")->key_where, "rows or rows_file", "both");
    TIDEMARK_CHECK(yaml::optional(entries, "rows", check.rows, [&](const Value& v) { return trace_rows(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "rows_file", check.rows, [&](const Value& v) -> Result<std::vector<TraceRow>> {
      TIDEMARK_TRY(text, text_file(v));
      return rows_from_text(v, text);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "count", check.count, [&](const Value& v) {
      return read_.integer(v, 0, yaml::kNoMax);
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "last", check.last, [&](const Value& v) { return number(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "absent", check.absent, [&](const Value& v) -> Result<bool> {
      TIDEMARK_TRY(on, read_.boolean(v));
      if (!on) return error_at(v.where, "true (or no absent key)", "false");
      return true;
    }));
    TIDEMARK_CHECK(yaml::optional(entries, "unit", check.unit, [&](const Value& v) { return read_.text(v, "a unit string such as Pixel/s"); }));
    TIDEMARK_CHECK(yaml::optional(entries, "flagged", check.flagged, [&](const Value& v) { return read_.boolean(v); }));
    bool expects_rows = check.rows || check.count || check.last || check.unit || check.flagged;
    if (check.absent && expects_rows)
      return error_at(entries.find("absent")->key_where, "absent: true or expectations of rows", "both");
    if (!check.absent && !expects_rows)
      return error_at(value.where, "rows, rows_file, count, last or absent: true in a trace check", "none");
    return check;
  }

  Result<double> number(const Value& v) const {
    constexpr std::string_view kWhat = "a number such as 4096 or 15.5";
    if (!v.node.IsScalar()) return error_at(v.where, kWhat, yaml::describe(v.node));
    const std::string& text = v.node.Scalar();
    double out = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
      return error_at(v.where, kWhat, quote(text));
    return out;
  }

  // `[[17000, 0], [22000, 9437184]]`: timestamp and value pairs.
  Result<std::vector<TraceRow>> trace_rows(const Value& value) const {
    constexpr std::string_view kWhat = "a row [timestamp, value]";
    TIDEMARK_TRY(items, read_.list(value, "a list of rows [timestamp, value]"));
    std::vector<TraceRow> rows;
    for (const auto& item : items) {
      TIDEMARK_TRY(pair, read_.list(item, kWhat));
      if (pair.size() != 2) return error_at(item.where, kWhat, fmt::format("{} entries", pair.size()));
      TIDEMARK_TRY(ts, read_.integer(pair[0], 0, yaml::kNoMax));
      TIDEMARK_TRY(row_value, number(pair[1]));
      rows.push_back({static_cast<uint64_t>(ts), row_value});
    }
    return rows;
  }

  // A rows file: "timestamp value" per line, as `tidemark trace` prints a track's rows.
  Result<std::vector<TraceRow>> rows_from_text(const Value& where, const std::string& text) const {
    std::vector<TraceRow> rows;
    size_t line_number = 0;
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string_view line(text.data() + at, end - at);
      at = end + 1;
      ++line_number;
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      if (line.empty() || line.front() == '#') continue;
      uint64_t ts = 0;
      double row_value = 0;
      auto [middle, ts_error] = std::from_chars(line.data(), line.data() + line.size(), ts);
      const char* rest = middle;
      while (rest < line.data() + line.size() && *rest == ' ') ++rest;
      auto [last, value_error] = std::from_chars(rest, line.data() + line.size(), row_value);
      if (ts_error != std::errc() || value_error != std::errc() || last != line.data() + line.size() || rest == middle)
        return error_at(where.where, fmt::format("lines 'timestamp value' in the rows file (line {})", line_number),
                        quote(std::string(line)));
      rows.push_back({ts, row_value});
    }
    return rows;
  }

  Status diagnosis_fields(DiagnosisCheck& check, const Value& value) const {
    std::vector<std::string_view> names(std::begin(kernel::kDiagnosisFields), std::end(kernel::kDiagnosisFields));
    TIDEMARK_TRY(entries, read_.fields(value, "a diagnosis", names));
    if (entries.entries().empty()) return error_at(value.where, fmt::format("fields of a diagnosis ({})", join(names)), "none");
    for (const auto& entry : entries.entries()) {
      if (!entry.value.node.IsScalar())
        return error_at(entry.value.where, "a scalar such as stuck_command or 40", yaml::describe(entry.value.node));
      check.fields.emplace_back(entry.key, entry.value.node.Scalar());
    }
    return {};
  }

  // Reads every item of a list with `read`.
  template <class Read>
  auto each(const Value& value, std::string_view what, Read read) const
      -> Result<std::vector<typename decltype(read(value))::value_type>> {
    TIDEMARK_TRY(items, read_.list(value, what));
    std::vector<typename decltype(read(value))::value_type> out;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, read(item));
      out.push_back(std::move(parsed));
    }
    return out;
  }

  Result<GaugeCheck> gauge(const Value& value) const {
    constexpr std::string_view kWhat = "a comparison such as 'wlivepk <= 4'";
    TIDEMARK_TRY(expression, read_.expression(value, kWhat));
    if (!expression.is_comparison()) return error_at(value.where, kWhat, quote(expression.text()));
    for (const auto& name : expression.identifiers()) {
      if (find_gauge(name) || is_kernel_gauge(name) || find_knob(name)) continue;
      std::vector<std::string_view> readable;
      for (const auto& spec : kGauges) readable.push_back(spec.name);
      for (const auto& spec : kKernelGauges) readable.push_back(spec.name);
      for (const auto& knob : known_knobs()) readable.push_back(knob.name);
      // 60-odd names: show the ones that share the found name's first letter.
      std::vector<std::string_view> alike;
      for (auto known : readable)
        if (known.front() == name.front()) alike.push_back(known);
      std::string listed = alike.empty() ? join(readable)
                                         : fmt::format("starting with '{}': {}; {} in all, see scenarios/README.md",
                                                       name.front(), join(alike), readable.size());
      return error_at(read_.source().inside(value, yaml::word_offset(expression.text(), name)),
                      fmt::format("a gauge or knob name ({})", listed), quote(name));
    }
    return GaugeCheck{std::move(expression), value.where};
  }

  Result<PixelCheck> pixels(const Value& item) const {
    TIDEMARK_TRY(entry, read_.single_key(item, "a pixel check such as '- probe: {x: 0, y: 0, rgba: [0, 0, 0, 255]}'",
                                         "one key per pixel check", {"bands", "probe", "golden"}));
    if (entry.key == "bands") return bands(entry.value, entry.key_where);
    if (entry.key == "probe") return probe(entry.value, entry.key_where);
    return golden(entry.value, entry.key_where);
  }

  Result<PixelCheck> bands(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, read_.fields(value, "bands", {"count", "palette", "colors", "tolerance"}));
    BandsCheck check;
    check.where = where;
    TIDEMARK_CHECK(yaml::required(entries, "count", check.count,
                                  [&](const Value& v) { return read_.small_integer(v, 1, target_.width); }));
    TIDEMARK_CHECK(yaml::optional(entries, "palette", check.palette, [&](const Value& v) { return read_.boolean(v); }));
    auto colors_value = entries.optional("colors");
    if (check.palette && colors_value) return error_at(colors_value->where, "either palette: true or colors", "both");
    if (!check.palette && !colors_value) return error_at(value.where, "palette: true or colors in bands", "neither");
    if (colors_value) {
      std::string what = fmt::format("a list of {} colours, one per band", check.count);
      TIDEMARK_TRY(colors, each(*colors_value, what, [&](const Value& v) { return read_.rgba(v); }));
      if (colors.size() != static_cast<size_t>(check.count))
        return error_at(colors_value->where, what, fmt::format("a list of {}", colors.size()));
      check.colors = std::move(colors);
    }
    TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, tolerance()));
    return check;
  }

  Result<PixelCheck> probe(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, read_.fields(value, "probe", {"x", "y", "rgba", "tolerance"}));
    ProbeCheck check;
    check.where = where;
    TIDEMARK_CHECK(yaml::required(entries, "x", check.x,
                                  [&](const Value& v) { return read_.small_integer(v, 0, target_.width - 1); }));
    TIDEMARK_CHECK(yaml::required(entries, "y", check.y,
                                  [&](const Value& v) { return read_.small_integer(v, 0, target_.height - 1); }));
    TIDEMARK_CHECK(yaml::required(entries, "rgba", check.rgba, [&](const Value& v) { return read_.rgba(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, tolerance()));
    return check;
  }

  Result<PixelCheck> golden(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, read_.fields(value, "golden", {"file", "tolerance", "max_mismatch"}));
    GoldenCheck check;
    check.where = where;
    TIDEMARK_CHECK(yaml::required(entries, "file", check.file, [&](const Value& v) { return golden_file(v); }));
    TIDEMARK_CHECK(yaml::optional(entries, "tolerance", check.tolerance, tolerance()));
    TIDEMARK_CHECK(yaml::optional(entries, "max_mismatch", check.max_mismatch, [&](const Value& v) {
      return read_.small_integer(v, 0, int64_t{target_.width} * target_.height);
    }));
    return check;
  }

  // expect: kernel: what the kernel model shows at the end of the workload.
  Status kernel_checks(const Value& value, Scenario& scenario) const {
    TIDEMARK_TRY(entries,
                 read_.fields(value, "kernel checks", {"dump", "dump_file", "dump_has", "dump_lacks", "nodes"}));
    if (entries.find("dump") && entries.find("dump_file"))
      return error_at(entries.find("dump_file")->key_where, "dump or dump_file", "both");
    bool any_dump = entries.find("dump") || entries.find("dump_file") || entries.find("dump_has") ||
                    entries.find("dump_lacks");
    if (any_dump) {
      KernelDumpCheck dump;
      dump.where = entries.entries().front().key_where;
      auto text = [&](const Value& v) { return read_.text(v, "the dump's text"); };
      TIDEMARK_CHECK(yaml::optional(entries, "dump", dump.text, text));
      TIDEMARK_CHECK(yaml::optional(entries, "dump_file", dump.text, [&](const Value& v) { return text_file(v); }));
      auto lines = [&](const Value& v) {
        return each(v, "a list of lines", [&](const Value& item) { return read_.text(item, "a line of the dump"); });
      };
      TIDEMARK_CHECK(yaml::optional(entries, "dump_has", dump.has, lines));
      TIDEMARK_CHECK(yaml::optional(entries, "dump_lacks", dump.lacks, lines));
      scenario.kernel_dump = std::move(dump);
    }
    TIDEMARK_CHECK(yaml::optional(entries, "nodes", scenario.kernel_nodes, [&](const Value& v) {
      return each(v, "a list of per-type nodes such as '- {pid: 7, type: VULKAN, value: \"4096\"}'",
                  [&](const Value& item) { return kernel_node(item); });
    }));
    return {};
  }

  Result<KernelNodeCheck> kernel_node(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "node", {"pid", "type", "value", "absent"}));
    KernelNodeCheck check;
    check.where = value.where;
    TIDEMARK_CHECK(yaml::required(entries, "pid", check.pid, [&](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(number, read_.integer(v, 0, 0xffffffff));
      return static_cast<uint32_t>(number);
    }));
    TIDEMARK_CHECK(yaml::required(entries, "type", check.type, [&](const Value& v) { return memory_type(v); }));
    bool absent = false;
    TIDEMARK_CHECK(yaml::optional(entries, "absent", absent, [&](const Value& v) { return read_.boolean(v); }));
    bool has_value = entries.find("value") != nullptr;
    if (!absent && !has_value) return error_at(value.where, "value: \"...\" or absent: true in a node", "neither");
    if (absent && has_value) return error_at(value.where, "value or absent: true in a node", "both");
    TIDEMARK_CHECK(yaml::optional(entries, "value", check.value, [&](const Value& v) {
      return read_.text(v, "the node's text, e.g. \"4096,81920\"");
    }));
    return check;
  }

  Result<kernel::MemoryType> memory_type(const Value& v) const {
    std::vector<std::string_view> names(kernel::kMemoryTypeNames.begin(), kernel::kMemoryTypeNames.end());
    std::string expected = fmt::format("a memory type ({})", join(names));
    TIDEMARK_TRY(name, read_.text(v, expected));
    if (auto type = kernel::parse_memory_type(name)) return *type;
    return error_at(v.where, expected, quote(name));
  }

  // A text file beside the scenario (an expected dump), read now.
  Result<std::string> text_file(const Value& value) const {
    TIDEMARK_TRY(name, read_.text(value, "a text file name"));
    fs::path relative = fs::path(name).lexically_normal();
    if (name.empty() || relative.is_absolute() || relative.empty() || *relative.begin() == "..")
      return error_at(value.where, "a file inside the scenario's folder", quote(name));
    fs::path file = (file_.parent_path() / relative).lexically_normal();
    std::ifstream in(file, std::ios::binary);
    if (!in) return error_at(value.where, "an existing file in the scenario's folder", quote(name));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  // A golden is a PNG in the scenario's folder (or below it): reports and fixtures can
  // carry it, and no scenario reads files elsewhere.
  Result<fs::path> golden_file(const Value& value) const {
    TIDEMARK_TRY(name, read_.text(value, "an image file name"));
    fs::path relative = fs::path(name).lexically_normal();
    if (name.empty() || relative.is_absolute() || relative.empty() || *relative.begin() == "..")
      return error_at(value.where, "a PNG file inside the scenario's folder", quote(name));
    fs::path file = (file_.parent_path() / relative).lexically_normal();
    std::error_code error;
    if (!fs::is_regular_file(file, error))
      return error_at(value.where, fmt::format("an existing file (looked for {})", file.string()), quote(name));
    constexpr std::array<char, 8> kPngSignature = {'\x89', 'P', 'N', 'G', '\r', '\n', '\x1a', '\n'};
    std::array<char, 8> start{};
    std::ifstream(file, std::ios::binary).read(start.data(), start.size());
    if (start != kPngSignature)
      return error_at(value.where, "a PNG file (one that starts with the PNG signature)",
                      fmt::format("{}, which does not", quote(name)));
    return file;
  }

  // No check twice: a gauge comparison by its text (spaces ignored), a pixel check by its
  // fields as written.
  Status each_check_once(const Scenario& scenario, const std::vector<Value>& pixel_values) const {
    std::map<std::string, int> gauges;
    for (const auto& check : scenario.gauge_checks) {
      auto [first, added] = gauges.emplace(yaml::without_spaces(check.expr.text()), check.where.line);
      if (!added)
        return error_at(check.where, "each check once",
                        fmt::format("{} again (first on line {})", quote(check.expr.text()), first->second));
    }
    std::map<std::string, int> pixels;
    for (const auto& value : pixel_values) {
      auto [first, added] = pixels.emplace(YAML::Dump(value.node), value.where.line);
      if (!added)
        return error_at(value.where, "each check once", fmt::format("the same pixel check again (first on line {})",
                                                                    first->second));
    }
    return {};
  }

  // ---- negative controls -------------------------------------------------------------

  Result<std::vector<Control>> controls(const Value& value, const Scenario& scenario) const {
    TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of controls"));
    std::vector<Control> controls;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, control(item, scenario));
      for (const auto& earlier : controls)
        if (earlier.mutant == parsed.mutant && earlier.knobs == parsed.knobs)
          return error_at(parsed.where, "each control once",
                          fmt::format("{} again (first on line {})", describe_control(parsed), earlier.where.line));
      controls.push_back(std::move(parsed));
    }
    return controls;
  }

  Result<Control> control(const Value& value, const Scenario& scenario) const {
    TIDEMARK_TRY(entries, read_.fields(value, "control", {"mutant", "knobs", "fails", "skip_lanes"}));
    Control control;
    control.where = entries.entries().empty() ? value.where : entries.entries().front().key_where;
    if (!entries.find("mutant") && !entries.find("knobs"))
      return error_at(value.where, "a mutant or knobs in a control", "neither");
    TIDEMARK_CHECK(yaml::optional(entries, "mutant", control.mutant,
                                  [&](const Value& v) { return read_.dotted_name(v, "a mutant name"); }));
    TIDEMARK_CHECK(yaml::optional(entries, "knobs", control.knobs, [&](const Value& v) -> Result<KnobValues> {
      TIDEMARK_TRY(overrides, knobs(v));
      if (overrides.empty())
        return error_at(v.where, fmt::format("at least one knob in a control's knobs ({})", join(knob_names())),
                        "an empty map");
      return overrides;
    }));
    TIDEMARK_CHECK(yaml::required(entries, "fails", control.fails,
                                  [&](const Value& v) { return check_references(v, scenario); }));
    TIDEMARK_CHECK(yaml::optional(entries, "skip_lanes", control.skip_lanes,
                                  [&](const Value& v) { return skip_lanes(v); }));
    return control;
  }

  // The checks a control must turn red, resolved here once: a gauge check by its expression
  // (whitespace ignored), `pixels[k]`, `waits`.
  Result<std::vector<CheckId>> check_references(const Value& value, const Scenario& scenario) const {
    std::vector<CheckId> known = scenario.checks();
    std::vector<std::string> texts;
    for (const auto& id : known) texts.push_back(scenario.check_text(id));
    std::string expected = fmt::format("a check of this scenario ({})", join(texts));
    TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of checks the control makes fail"));
    std::vector<CheckId> resolved;
    for (const auto& item : items) {
      TIDEMARK_TRY(written, read_.text(item, expected));
      std::string reference(yaml::trim(written));
      auto names = [&](size_t k) {
        return known[k].kind == CheckKind::Gauge ? yaml::without_spaces(texts[k]) == yaml::without_spaces(reference)
                                                 : texts[k] == reference;
      };
      size_t k = 0;
      while (k < known.size() && !names(k)) ++k;
      if (k == known.size()) return error_at(item.where, expected, quote(reference));
      if (std::find(resolved.begin(), resolved.end(), known[k]) != resolved.end())
        return error_at(item.where, "each check once in a control", fmt::format("{} again", quote(reference)));
      resolved.push_back(known[k]);
    }
    return resolved;
  }

  Result<std::map<std::string, std::string>> skip_lanes(const Value& value) const {
    TIDEMARK_TRY(entries, read_.fields(value, "skip_lanes", lane_names()));
    std::map<std::string, std::string> reasons;
    for (const auto& entry : entries.entries()) {
      constexpr std::string_view kWhat = "a reason the control cannot apply in this lane";
      TIDEMARK_TRY(reason, read_.text(entry.value, kWhat));
      if (yaml::trim(reason).empty()) return error_at(entry.value.where, kWhat, yaml::describe(entry.value.node));
      reasons[entry.key] = reason;
    }
    if (reasons.size() == lane_names().size())
      return error_at(value.where, "a lane left for the control to run in (a control must apply somewhere)",
                      fmt::format("all of {} skipped", join(lane_names())));
    return reasons;
  }

  yaml::Reader read_;
  fs::path file_;
  Target target_;
  std::vector<std::string> buffers_;  // in declaration order
  std::unordered_set<std::string> buffer_set_;
  int64_t written_steps_ = 0;
  std::vector<std::string> fences_;          // defined so far, in document order
  std::vector<std::string> loop_variables_;  // of the enclosing repeats, outermost first
  std::vector<std::string> result_names_;
  const CounterSection* counters_ = nullptr;  // the file's counters: section, once read    // named by kmd_diagnose and kgsl_read steps, in document order
  std::string_view step_name_;               // the step being read
};

}  // namespace

Result<Scenario> read_scenario(const yaml::Source& source, const Value& root, const fs::path& file) {
  return Schema(source, file).scenario(root);
}

}  // namespace tidemark::scenario
