// The schema's top-level sections that configure the run: knobs, target, kernel, kmd, kgsl,
// tracing and buffers.
#include <fmt/format.h>

#include "core/limits.h"
#include "scenario/schema_reader.h"

namespace tidemark::scenario::schema {

using yaml::error_at;
using yaml::quote;

Result<std::map<std::string, int64_t>> SectionReader::knobs(const Value& value) const {
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

Status SectionReader::target(const Value& value, api::SessionConfig& session) const {
  TIDEMARK_TRY(entries, read_.fields(value, "target", {"width", "height"}));
  auto side = [&](const Value& v) { return read_.small_integer(v, 1, kMaxTargetSide); };
  TIDEMARK_CHECK(yaml::optional(entries, "width", session.width, side));
  return yaml::optional(entries, "height", session.height, side);
}

Status SectionReader::kernel(const Value& value, api::ModelConfig& model) const {
  TIDEMARK_TRY(entries, read_.fields(value, "kernel", {"pid", "gpu", "reports"}));
  auto id = [&](const Value& v) { return values_.id32(v); };
  TIDEMARK_CHECK(yaml::optional(entries, "pid", model.kernel_pid, id));
  TIDEMARK_CHECK(yaml::optional(entries, "gpu", model.kernel_gpu, id));
  return yaml::optional(entries, "reports", model.kernel_reports, [&](const Value& v) { return read_.boolean(v); });
}

Result<kernel::KmdConfig> SectionReader::kmd(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "kmd",
                                     {"ring", "idle_timeout", "wake", "power", "doorbell_readback", "magic_check",
                                      "recycle_frames", "submit_cpu", "irq", "late_write", "submit_timeout",
                                      "backend_cost", "probe", "tiny_submits"}));
  kernel::KmdConfig c;
  auto time = [&](const Value& v) { return values_.timeout_ns(v); };
  auto flag = [&](const Value& v) { return read_.boolean(v); };
  // An integer from `min` to `max`, as a uint32_t field.
  auto count = [&](int64_t min, int64_t max) {
    return [&read = read_, min, max](const Value& v) -> Result<uint32_t> {
      TIDEMARK_TRY(number, read.integer(v, min, max));
      return static_cast<uint32_t>(number);
    };
  };
  TIDEMARK_CHECK(yaml::optional(entries, "ring", c.ring_dwords, count(kernel::kMinRingDwords, kernel::kMaxRingDwords)));
  TIDEMARK_CHECK(yaml::optional(entries, "idle_timeout", c.idle_timeout_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "wake", c.wake_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "power", c.power, [&](const Value& v) {
    return values_.named_value(v, "a power policy", kernel::kPowerPolicyNames, kernel::PowerPolicy::Wait);
  }));
  TIDEMARK_CHECK(yaml::optional(entries, "doorbell_readback", c.doorbell_readback, flag));
  TIDEMARK_CHECK(yaml::optional(entries, "magic_check", c.magic_check, flag));
  TIDEMARK_CHECK(yaml::optional(entries, "recycle_frames", c.recycle_frames, count(0, 1000)));
  TIDEMARK_CHECK(yaml::optional(entries, "submit_cpu", c.submit_cpu_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "irq", c.irq_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "late_write", c.late_write_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "submit_timeout", c.submit_timeout_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "backend_cost", c.backend_cost_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "probe", c.probe_ns, time));
  TIDEMARK_CHECK(yaml::optional(entries, "tiny_submits", c.tiny_submits, count(1, 1'000'000)));
  return c;
}

Result<kernel::KgslConfig> SectionReader::kgsl(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "kgsl", {"update_busy", "freq_table", "device"}));
  kernel::KgslConfig c;
  TIDEMARK_CHECK(yaml::optional(entries, "update_busy", c.update_busy_us, [&](const Value& v) -> Result<uint64_t> {
    TIDEMARK_TRY(ns, values_.timeout_ns(v));
    if (ns < 1000 || ns % 1000 != 0)
      return error_at(v.where, "a whole number of microseconds, at least 1us", quote(v.node.Scalar()));
    return ns / 1000;
  }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "freq_table", c.freq_table_hz, [&](const Value& v) -> Result<std::vector<uint64_t>> {
        TIDEMARK_TRY(items, read_.non_empty_list(v, "a non-empty list of frequencies, the maximum first"));
        std::vector<uint64_t> table;
        for (const auto& item : items) {
          TIDEMARK_TRY(hz, values_.frequency(item));
          if (!table.empty() && hz > table.front())
            return error_at(item.where, fmt::format("a frequency at most the first ({} Hz)", table.front()),
                            quote(item.node.Scalar()));
          table.push_back(hz);
        }
        return table;
      }));
  TIDEMARK_CHECK(yaml::optional(entries, "device", c.device_name, [&](const Value& v) { return read_.kebab_name(v); }));
  return c;
}

Result<tracer::MemorySource> SectionReader::tracing(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "tracing", {"gpu_memory"}));
  tracer::MemorySource source = tracer::MemorySource::Both;
  TIDEMARK_CHECK(yaml::optional(entries, "gpu_memory", source, [&](const Value& item) {
    return values_.named_value(item, "the GPU-memory sources", tracer::kMemorySourceNames, tracer::MemorySource::Both);
  }));
  return source;
}

Result<api::LayerConfig> SectionReader::layer(const Value& value) const {
  api::LayerConfig section{.on = true};
  if (value.node.IsScalar()) {
    TIDEMARK_TRY(on, read_.boolean(value));
    if (!on) return error_at(value.where, "true or {completion: deterministic|real} (or no layer key)", "false");
    return section;
  }
  TIDEMARK_TRY(entries, read_.fields(value, "layer", {"completion"}));
  TIDEMARK_CHECK(yaml::optional(entries, "completion", section.completion, [&](const Value& item) {
    return values_.named_value(item, "the completion rules", kCompletionNames, Completion::Deterministic);
  }));
  return section;
}

Result<std::vector<std::string>> SectionReader::buffers(const Value& value, Declared& declared) const {
  TIDEMARK_TRY(items, read_.list(value, "a list of buffer names"));
  if (static_cast<int64_t>(items.size()) > kMaxBuffers)
    return error_at(value.where, fmt::format("at most {} buffers", kMaxBuffers), fmt::format("{}", items.size()));
  std::vector<std::string> names;
  for (const auto& item : items) {
    TIDEMARK_TRY(name, read_.identifier(item, "a buffer name"));
    if (!declared.buffer_set.insert(name).second)
      return error_at(item.where, "unique buffer names", fmt::format("{} again", quote(name)));
    names.push_back(name);
  }
  return names;
}

}  // namespace tidemark::scenario::schema
