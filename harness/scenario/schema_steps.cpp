// The schema of the workload: every step a scenario may run, each a row of the step registry
// (scenario/steps.h) and its read function, `repeat` (with fields beside its key) read apart.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/limits.h"
#include "scenario/schema_reader.h"

// StepReader::plain<Kind>, the readers of the one-call steps: generated from api/calls.yaml, and
// declared before the registry's table takes their addresses.
#include "calls/step_readers.h"

namespace tidemark::scenario::schema {

using yaml::error_at;
using yaml::join;
using yaml::quote;

// The backend calls `steps` make with repeats expanded, as far as their counts are known now
// (a count over a loop variable is checked as it runs); an error at the repeat that goes over.
Result<int64_t> StepReader::within_call_budget(const std::vector<Step>& steps) {
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

// Every step a workload may hold, but `repeat`, the one with fields beside its key.
template <class Kind>
Result<StepKind> StepReader::no_fields(const Value& value) {
  if (value.node.IsNull() || (value.node.IsMap() && value.node.size() == 0)) return Kind{};
  return error_at(value.where, fmt::format("nothing or {{}} after {}", step_name_), yaml::describe(value.node));
}

// The registry's rows (scenario/steps.h), each with its reader: a row naming none fails to compile.
std::span<const StepReader::StepSchema> StepReader::step_schemas() {
#define TIDEMARK_STEP_SCHEMA(type, name, reader, target, fields) StepSchema{name, &StepReader::reader},
  static constexpr StepSchema kSteps[] = {TIDEMARK_STEPS(TIDEMARK_STEP_SCHEMA)};
#undef TIDEMARK_STEP_SCHEMA
  static_assert(std::size(kSteps) + 1 == std::variant_size_v<StepKind>, "every step but repeat has a reader");
  return kSteps;
}

std::vector<std::string_view> StepReader::step_names() {
  std::vector<std::string_view> names;
  for (const auto& step : step_schemas()) names.push_back(step.name);
  names.push_back("repeat");
  return names;
}

Result<std::vector<Step>> StepReader::steps(const Value& value, std::string_view context) {
  TIDEMARK_TRY(items, read_.non_empty_list(value, fmt::format("a non-empty list of steps in {}", context)));
  std::vector<Step> steps;
  for (const auto& item : items) {
    TIDEMARK_TRY(parsed, step(item));
    steps.push_back(std::move(parsed));
  }
  return steps;
}

Result<Step> StepReader::step(const Value& item) {
  if (++written_steps_ > kMaxWrittenSteps)
    return error_at(
        item.where,
        fmt::format("at most {} steps in one file (an alias counts each time it is used)", kMaxWrittenSteps), "more");
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

Result<Step> StepReader::repeat(const Value& item) {
  TIDEMARK_TRY(entries, read_.fields(item, "repeat", {"repeat", "as", "steps"}));
  Repeat loop;
  TIDEMARK_CHECK(yaml::required(entries, "repeat", loop.count, values_.int_field(kRepeatRule)));
  if (auto as = entries.optional("as")) {
    TIDEMARK_TRY(variable, read_.identifier(*as, "a loop variable name"));
    if (yaml::contains(declared_.loop_variables, variable))
      return error_at(as->where, fmt::format("a name not already in scope ({})", join(declared_.loop_variables)),
                      quote(variable));
    loop.variable = variable;
  }
  TIDEMARK_TRY(body_value, entries.required("steps"));
  if (!loop.variable.empty()) declared_.loop_variables.push_back(loop.variable);
  auto body = steps(body_value, "repeat");
  if (!loop.variable.empty()) declared_.loop_variables.pop_back();
  if (!body) return std::unexpected(std::move(body.error()));
  loop.steps = std::move(*body);
  return Step{std::make_shared<StepKind>(std::move(loop)), entries.find("repeat")->key_where, "repeat"};
}

Result<StepKind> StepReader::buffer_data(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "buffer_data", {"buffer", "size", "fill"}));
  BufferData step;
  TIDEMARK_CHECK(yaml::required(entries, "buffer", step.buffer, values_.buffer_name()));
  TIDEMARK_CHECK(yaml::required(entries, "size", step.size, values_.int_field(kSizeRule)));
  TIDEMARK_CHECK(yaml::optional(entries, "fill", step.fill, values_.fill()));
  return step;
}

Result<StepKind> StepReader::buffer_sub_data(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "buffer_sub_data", {"buffer", "offset", "size", "fill"}));
  BufferSubData step;
  TIDEMARK_CHECK(yaml::required(entries, "buffer", step.buffer, values_.buffer_name()));
  TIDEMARK_CHECK(yaml::required(entries, "offset", step.offset, values_.int_field(kOffsetRule)));
  TIDEMARK_CHECK(yaml::required(entries, "size", step.size, values_.int_field(kSizeRule)));
  TIDEMARK_CHECK(yaml::optional(entries, "fill", step.fill, values_.fill()));
  return step;
}

Result<StepKind> StepReader::draw(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "draw", {"uniform", "vertices", "band"}));
  Draw step;
  TIDEMARK_CHECK(yaml::required(entries, "uniform", step.uniform, values_.buffer_name()));
  TIDEMARK_CHECK(yaml::optional(entries, "vertices", step.vertices, values_.buffer_name()));
  TIDEMARK_CHECK(yaml::optional(entries, "band", step.band, [&](const Value& v) { return band(v); }));
  return step;
}

Result<Band> StepReader::band(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "band", {"index", "of"}));
  Band band;
  TIDEMARK_CHECK(yaml::required(entries, "index", band.index, values_.int_field(kBandIndexRule)));
  TIDEMARK_CHECK(yaml::required(entries, "of", band.of, values_.int_field(kBandCountRule)));
  auto constant_index = band.index.expr.literal_value();
  auto constant_of = band.of.expr.literal_value();
  if (constant_index && constant_of && *constant_index >= *constant_of)
    return error_at(band.index.where, fmt::format("a band index below 'of' ({})", *constant_of),
                    quote(band.index.expr.text()));
  return band;
}

Result<StepKind> StepReader::fence(const Value& value) {
  TIDEMARK_TRY(name, read_.identifier(value, "a fence name"));
  if (!yaml::contains(declared_.fences, name)) declared_.fences.push_back(name);
  return FenceSync{name};
}

Result<StepKind> StepReader::client_wait(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "client_wait", {"fence", "flush", "timeout", "expect"}));
  ClientWait step;
  TIDEMARK_CHECK(yaml::required(entries, "fence", step.fence, [&](const Value& v) -> Result<std::string> {
    std::string expected = fmt::format("a fence defined by an earlier fence step ({})", join(declared_.fences));
    TIDEMARK_TRY(fence, read_.text(v, expected));
    if (!yaml::contains(declared_.fences, fence)) return error_at(v.where, expected, quote(fence));
    return fence;
  }));
  TIDEMARK_CHECK(yaml::optional(entries, "flush", step.flush, [&](const Value& v) { return read_.boolean(v); }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "timeout", step.timeout_ns, [&](const Value& v) { return values_.timeout_ns(v); }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "expect", step.expect, [&](const Value& v) { return values_.wait_status(v); }));
  return step;
}

Result<StepKind> StepReader::gpumem_walk(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "gpumem_walk", {"updates"}));
  GpuMemWalk step;
  TIDEMARK_CHECK(yaml::optional(entries, "updates", step.updates, [&](const Value& v) {
    return values_.each(v, "a list of updates such as '- {at: 1, gpu: 1, pid: 7, size: 4KiB}'",
                        [&](const Value& item) -> Result<WalkUpdate> {
                          TIDEMARK_TRY(fields, read_.fields(item, "update", {"at", "gpu", "pid", "size"}));
                          WalkUpdate update{.at = {}, .gpu = values_.zero_field(item), .pid = {}, .size = {}};
                          TIDEMARK_CHECK(yaml::required(fields, "at", update.at, values_.int_field(kWalkStepRule)));
                          TIDEMARK_CHECK(yaml::optional(fields, "gpu", update.gpu, values_.int_field(kGpuRule)));
                          TIDEMARK_CHECK(yaml::required(fields, "pid", update.pid, values_.int_field(kPidRule)));
                          TIDEMARK_CHECK(yaml::required(fields, "size", update.size, values_.int_field(kBytesRule)));
                          return update;
                        });
  }));
  return step;
}

Result<StepKind> StepReader::kmd_submit(const Value& value) {
  TIDEMARK_TRY(entries,
               read_.fields(value, "kmd_submit", {"commands", "half_written", "doorbell", "fence_unwritable"}));
  KmdSubmit step;
  TIDEMARK_CHECK(yaml::required(entries, "commands", step.commands, [&](const Value& v) { return commands(v); }));
  TIDEMARK_CHECK(submit_faults(entries, step.faults));
  return step;
}

Result<StepKind> StepReader::kmd_fault(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "kmd_fault", {"queue", "half_written", "doorbell", "fence_unwritable"}));
  KmdFault step;
  TIDEMARK_CHECK(yaml::optional(entries, "queue", step.queue, [&](const Value& v) { return values_.queue(v); }));
  TIDEMARK_CHECK(submit_faults(entries, step.faults));
  if (step.faults == kernel::SubmitFaults{})
    return error_at(value.where, "a fault for the next submit (half_written, doorbell, fence_unwritable)", "none");
  return step;
}

Status StepReader::submit_faults(const Fields& entries, kernel::SubmitFaults& faults) const {
  auto flag = [&](const Value& v) { return read_.boolean(v); };
  TIDEMARK_CHECK(yaml::optional(entries, "half_written", faults.half_written, flag));
  TIDEMARK_CHECK(yaml::optional(entries, "doorbell", faults.doorbell, [&](const Value& v) {
    return values_.named_value(v, "a doorbell fault", kernel::kDoorbellFaultNames, kernel::DoorbellFault::None);
  }));
  TIDEMARK_CHECK(yaml::optional(entries, "fence_unwritable", faults.fence_unwritable, flag));
  return {};
}

// `- draw`, `- {draw: 10ms}` (its engine time), `- {semaphore_wait: 3}`, `- {bad_address: 0xdead000}`,
// `- {bad_opcode: 0x7f}`.
Result<std::vector<kernel::Command>> StepReader::commands(const Value& value) const {
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
      TIDEMARK_TRY(cost, values_.timeout_ns(entry.value));
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
Result<uint64_t> StepReader::command_arg(const Value& value) const {
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

Result<StepKind> StepReader::kmd_advance(const Value& value) {
  TIDEMARK_TRY(ns, values_.timeout_ns(value));
  return KmdAdvance{ns};
}

Result<StepKind> StepReader::kmd_wait(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "kmd_wait", {"fence", "timeout"}));
  KmdWait step;
  TIDEMARK_CHECK(yaml::required(entries, "fence", step.fence, values_.int_field(kFenceRule)));
  TIDEMARK_CHECK(
      yaml::required(entries, "timeout", step.timeout_ns, [&](const Value& v) { return values_.timeout_ns(v); }));
  return step;
}

Result<StepKind> StepReader::kmd_signal(const Value& value) {
  KmdSignal step;
  TIDEMARK_TRY(semaphore, values_.int_field(kSemaphoreRule)(value));
  step.semaphore = std::move(semaphore);
  return step;
}

// `kmd_diagnose: stuck` (the scene's queue) or `kmd_diagnose: {as: stuck, queue: backend}`.
Result<StepKind> StepReader::kmd_diagnose(const Value& value) {
  constexpr std::string_view kWhat = "a name for the diagnosis such as stuck";
  KmdDiagnose step;
  if (!value.node.IsMap()) {
    TIDEMARK_TRY(name, result_name(value, kWhat));
    step.name = std::move(name);
    return step;
  }
  TIDEMARK_TRY(entries, read_.fields(value, "kmd_diagnose", {"as", "queue"}));
  TIDEMARK_CHECK(yaml::required(entries, "as", step.name, [&](const Value& v) { return result_name(v, kWhat); }));
  TIDEMARK_CHECK(yaml::optional(entries, "queue", step.queue, [&](const Value& v) { return values_.queue(v); }));
  return step;
}

Result<StepKind> StepReader::kgsl_sample(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "kgsl_sample", {"busy_us", "total_us", "freq"}));
  KgslSample step;
  TIDEMARK_CHECK(yaml::required(entries, "busy_us", step.busy_us, values_.int_field(kMicrosecondsRule)));
  TIDEMARK_CHECK(yaml::required(entries, "total_us", step.total_us, values_.int_field(kMicrosecondsRule)));
  TIDEMARK_CHECK(yaml::required(entries, "freq", step.freq_hz, [&](const Value& v) { return values_.frequency(v); }));
  return step;
}

Result<StepKind> StepReader::kgsl_power(const Value& value) {
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

Result<StepKind> StepReader::kgsl_read(const Value& value) {
  TIDEMARK_TRY(entries, read_.fields(value, "kgsl_read", {"node", "as"}));
  KgslRead step;
  TIDEMARK_CHECK(yaml::required(entries, "node", step.node, [&](const Value& v) {
    return values_.named_value(v, "a kgsl node", kernel::kKgslNodeNames, kernel::KgslNode::Gpubusy);
  }));
  TIDEMARK_CHECK(yaml::required(entries, "as", step.name,
                                [&](const Value& v) { return result_name(v, "a name for the read such as first"); }));
  return step;
}

Result<StepKind> StepReader::counter_sample(const Value& value) {
  if (!declared_.counters) return error_at(value.where, "a counters: section before a counter_sample step", "none");
  TIDEMARK_TRY(entries, read_.fields(value, "counter_sample", {"at", "gpu", "values"}));
  CounterSampleStep step{.at = {}, .gpu = declared_.counters->gpus.front(), .values = {}};
  TIDEMARK_CHECK(yaml::required(entries, "at", step.at, values_.int_field(kTimestampRule)));
  TIDEMARK_CHECK(yaml::optional(entries, "gpu", step.gpu, [&](const Value& v) -> Result<uint32_t> {
    TIDEMARK_TRY(gpu, read_.integer(v, 0, 0xffffffff));
    if (std::find(declared_.counters->gpus.begin(), declared_.counters->gpus.end(), gpu) ==
        declared_.counters->gpus.end())
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
    for (const auto& spec : declared_.counters->descriptor.specs)
      declared |= spec.counter_id == static_cast<uint32_t>(id);
    if (!declared) return error_at(key.where, "a counter id the specs declare", fmt::format("{}", id));
    if (item.node.IsScalar() && item.node.Scalar().find('.') != std::string::npos) {
      TIDEMARK_TRY(decimal, values_.number(item));
      step.values.emplace_back(static_cast<uint32_t>(id), decimal);
    } else {
      TIDEMARK_TRY(whole, values_.int_field(kCounterValueRule)(item));
      step.values.emplace_back(static_cast<uint32_t>(id), std::move(whole));
    }
  }
  return step;
}

// A name a check can refer to; each step keeps its own (a repeat keeps the latest result).
Result<std::string> StepReader::result_name(const Value& value, std::string_view what) {
  TIDEMARK_TRY(name, read_.identifier(value, what));
  if (yaml::contains(declared_.result_names, name))
    return error_at(value.where, "a name no other step uses", fmt::format("{} again", quote(name)));
  declared_.result_names.push_back(name);
  return name;
}

}  // namespace tidemark::scenario::schema
