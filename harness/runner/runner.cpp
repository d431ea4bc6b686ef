#include "runner/runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <algorithm>

#include "check/evaluate.h"
#include "check/png.h"
#include "core/digest.h"
#include "core/files.h"
#include "core/limits.h"

namespace tidemark::runner {

namespace fs = std::filesystem;
using scenario::Scenario;
using scenario::Step;

std::string camel_case(std::string_view kebab) {
  std::string out;
  bool upper = true;
  for (char c : kebab) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

namespace {

// Loop variables in scope, innermost last.
class Scope {
 public:
  Result<int64_t> eval(const scenario::IntField& field) const {
    auto value = field.expr.evaluate([this](std::string_view name) -> std::optional<int64_t> {
      for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
        if (it->first == name) return it->second;
      return std::nullopt;
    });
    if (!value)
      return fail(ErrorKind::BadInput, fmt::format("{}: {}", format_location(field.where), value.error().message));
    return *value;
  }
  void push(std::string name, int64_t value) { vars_.emplace_back(std::move(name), value); }
  void pop() { vars_.pop_back(); }
  std::string describe() const { return describe(vars_); }
  using Vars = std::vector<std::pair<std::string, int64_t>>;
  const Vars& vars() const { return vars_; }
  static std::string describe(const Vars& vars) {
    std::string out;
    for (const auto& [name, value] : vars)
      if (!name.empty()) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
    return out;
  }

 private:
  Vars vars_;
};

// The step and loop variables of each of the last kMaxPipelinedCalls backend calls, so that
// a failure a pipelined backend reports late still names the step that made the call.
class CallJournal {
 public:
  void record(const Step* step, const Scope& scope) {
    Entry& entry = entries_[calls_++ % entries_.size()];
    entry.step = step;
    entry.vars = scope.vars();  // reuses the slot's capacity: no allocation once warm
  }
  // The call `calls_after` calls before the latest; nullptr if none was recorded.
  std::pair<const Step*, const Scope::Vars*> find(uint32_t calls_after) const {
    if (calls_after >= calls_ || calls_after >= entries_.size()) return {nullptr, nullptr};
    const Entry& entry = entries_[(calls_ - 1 - calls_after) % entries_.size()];
    return {entry.step, &entry.vars};
  }
  uint64_t calls() const { return calls_; }

 private:
  struct Entry {
    const Step* step = nullptr;
    Scope::Vars vars;
  };
  std::vector<Entry> entries_ = std::vector<Entry>(backend::Backend::kMaxPipelinedCalls);
  uint64_t calls_ = 0;
};

Result<std::vector<uint8_t>> fill_bytes(const scenario::Fill& fill, int64_t size, const Scope& scope) {
  // A size computed from loop variables is bounded here, as a literal one is at load.
  if (size < 0 || size > kMaxStoreBytes)
    return fail(ErrorKind::BadInput, fmt::format("expected a size from 0 to {}, found {}", kMaxStoreBytes, size));
  std::array<uint8_t, 4> word{};
  if (fill.kind == scenario::Fill::Kind::Rgba) word = fill.rgba;
  if (fill.kind == scenario::Fill::Kind::Palette) {
    auto index = scope.eval(*fill.palette_index);
    if (!index) return std::unexpected(index.error());
    word = palette_color(*index);
  }
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = word[i % 4];
  return bytes;
}

// Executes the workload, step by step, against one backend.
class Executor {
 public:
  Executor(const Scenario& scenario, backend::Backend& backend) : scenario_(scenario), backend_(backend) {}

  void probe_every(uint64_t calls, std::function<void(uint64_t)> probe) {
    probe_every_ = calls;
    probe_ = std::move(probe);
  }

  Status create_buffers() {
    if (scenario_.counters) {  // the scenario's counter stream opens before its first sample
      journal_.record(nullptr, scope_);
      const auto& section = *scenario_.counters;
      if (auto ok = backend_.trace_op(tracer::CounterStreamOp{section.descriptor, section.gpus, section.interned}); !ok)
        return ok;
    }
    for (const auto& name : scenario_.buffers) {
      journal_.record(nullptr, scope_);
      auto buffer = backend_.create_buffer();
      if (!buffer) return std::unexpected(buffer.error());
      buffers_[name] = *buffer;
    }
    return {};
  }

  int waits_checked() const { return waits_checked_; }
  const std::vector<std::string>& wait_mismatches() const { return wait_mismatches_; }

  // The whole workload; a pipelined backend is drained at its end, so every failure is
  // reported against its own step before anything is read back.
  Status run_workload() {
    if (auto ran = run_steps(scenario_.workload); !ran) return ran;
    if (auto drained = backend_.drain(); !drained) return std::unexpected(annotate(nullptr, drained.error()));
    return {};
  }

 private:
  Status run_steps(const std::vector<Step>& steps) {
    for (const auto& step : steps) {
      current_ = &step;
      // Every step but a repeat makes exactly one backend call (or fails before it).
      if (!std::holds_alternative<scenario::Repeat>(*step.kind)) {
        journal_.record(&step, scope_);
        if (journal_.calls() > static_cast<uint64_t>(kMaxWorkloadCalls))
          return std::unexpected(annotate(
              &step, Error{ErrorKind::BadInput,
                           fmt::format("expected a workload of at most {} backend calls, found more", kMaxWorkloadCalls)}));
        if (probe_every_ > 0 && journal_.calls() % probe_every_ == 0) probe_(journal_.calls());
      }
      auto done = std::visit([&](const auto& kind) { return execute(kind); }, *step.kind);
      if (!done) return std::unexpected(annotate(&step, done.error()));
    }
    return {};
  }

  // Places an error at the step whose call failed: the current one, or for a pipelined
  // failure the one `calls_after` calls back.
  Error annotate(const Step* step, Error error) const {
    if (error.message.rfind(scenario_.file.string(), 0) == 0) return error;  // already placed
    std::string vars = scope_.describe();
    if (error.calls_after > 0 || step == nullptr) {
      auto [failed_step, failed_vars] = journal_.find(error.calls_after);
      step = failed_step;
      vars = failed_vars ? Scope::describe(*failed_vars) : "";
    }
    if (step == nullptr) return error;
    error.message = fmt::format("{}: step {}{}: {}", format_location(step->where), step->label,
                                vars.empty() ? "" : " (" + vars + ")", error.message);
    return error;
  }

  Result<int64_t> eval(const scenario::IntField& field) const { return scope_.eval(field); }

  Status execute(const scenario::BufferData& step) {
    auto size = eval(step.size);
    if (!size) return std::unexpected(size.error());
    auto bytes = fill_bytes(step.fill, *size, scope_);
    if (!bytes) return std::unexpected(bytes.error());
    return backend_.buffer_data(buffers_.at(step.buffer), *bytes);
  }

  Status execute(const scenario::BufferSubData& step) {
    auto offset = eval(step.offset);
    if (!offset) return std::unexpected(offset.error());
    auto size = eval(step.size);
    if (!size) return std::unexpected(size.error());
    auto bytes = fill_bytes(step.fill, *size, scope_);
    if (!bytes) return std::unexpected(bytes.error());
    return backend_.buffer_sub_data(buffers_.at(step.buffer), static_cast<uint64_t>(*offset), *bytes);
  }

  Status execute(const scenario::Draw& step) {
    backend::DrawCall call;
    call.uniform = buffers_.at(step.uniform);
    if (step.vertices) call.vertices = buffers_.at(*step.vertices);
    const auto& target = scenario_.target;
    call.rect = {0, 0, target.width, target.height};
    if (step.band) {
      auto index = eval(step.band->index);
      if (!index) return std::unexpected(index.error());
      auto of = eval(step.band->of);
      if (!of) return std::unexpected(of.error());
      if (*of < 1 || *index < 0 || *index >= *of)
        return fail(ErrorKind::BadInput, fmt::format("band {} of {} does not exist", *index, *of));
      call.rect.x0 = static_cast<int>(*index * target.width / *of);
      call.rect.x1 = static_cast<int>((*index + 1) * target.width / *of);
    }
    return backend_.draw(call);
  }

  Status execute(const scenario::FenceSync& step) {
    auto fence = backend_.fence_sync();
    if (!fence) return std::unexpected(fence.error());
    fences_[step.name] = *fence;
    return {};
  }

  Status execute(const scenario::ClientWait& step) {
    auto status = backend_.client_wait(fences_.at(step.fence), step.flush, step.timeout_ns);
    if (!status) return std::unexpected(status.error());
    if (step.expect) {
      ++waits_checked_;
      WaitStatus wanted = *step.expect;
      if (*status != wanted)
        wait_mismatches_.push_back(fmt::format("line {} (wait #{}) returned {}, expected {}", current_->where.line,
                                               waits_checked_, to_string(*status),
                                               to_string(wanted)));
    }
    return {};
  }

  Status execute(const scenario::Flush&) { return backend_.flush(); }
  Status execute(const scenario::Finish&) { return backend_.finish(); }
  Status execute(const scenario::Present&) { return backend_.present(); }

  // The kernel model's steps: numbers checked against their wire widths as they run.
  Result<uint32_t> eval_u32(const scenario::IntField& field) const {
    TIDEMARK_TRY(value, eval(field));
    if (value < 0 || value > 0xffffffff)
      return fail(ErrorKind::BadInput, fmt::format("expected a value from 0 to 4294967295, found {}", value));
    return static_cast<uint32_t>(value);
  }
  Result<uint64_t> eval_u64(const scenario::IntField& field) const {
    TIDEMARK_TRY(value, eval(field));
    if (value < 0) return fail(ErrorKind::BadInput, fmt::format("expected a value >= 0, found {}", value));
    return static_cast<uint64_t>(value);
  }
  Status execute(const scenario::GpuMemTotal& step) {
    TIDEMARK_TRY(gpu, eval_u32(step.gpu));
    TIDEMARK_TRY(pid, eval_u32(step.pid));
    TIDEMARK_TRY(size, eval_u64(step.size));
    return backend_.kernel_event({gpu, pid, size});
  }
  Status execute(const scenario::GpuAlloc& step) {
    TIDEMARK_TRY(gpu, eval_u32(step.gpu));
    TIDEMARK_TRY(pid, eval_u32(step.pid));
    TIDEMARK_TRY(id, eval_u64(step.id));
    TIDEMARK_TRY(size, eval_u64(step.size));
    return backend_.kernel_allocate(gpu, pid, step.type, id, size);
  }
  Status execute(const scenario::GpuMemAttach& step) {
    TIDEMARK_TRY(failures, eval_u32(step.failures));
    return backend_.kernel_attach({.failures = failures, .stop_requested = step.stop});
  }
  Status execute(const scenario::KmdSubmit& step) {
    return backend_.kernel_op(kernel::KmdSubmitOp{step.commands, step.faults});
  }
  Status execute(const scenario::KmdAdvance& step) { return backend_.kernel_op(kernel::KmdAdvanceOp{step.ns}); }
  Status execute(const scenario::KmdWait& step) {
    TIDEMARK_TRY(fence, eval(step.fence));
    return backend_.kernel_op(kernel::KmdWaitOp{static_cast<uint64_t>(fence), step.timeout_ns});
  }
  Status execute(const scenario::KmdFrame&) { return backend_.kernel_op(kernel::KmdFrameOp{}); }
  Status execute(const scenario::KmdSignal& step) {
    TIDEMARK_TRY(semaphore, eval(step.semaphore));
    return backend_.kernel_op(kernel::KmdSignalOp{static_cast<uint64_t>(semaphore)});
  }
  Status execute(const scenario::KmdFault& step) {
    return backend_.kernel_op(kernel::KmdFaultOp{step.faults, step.queue});
  }
  Status execute(const scenario::KmdDiagnose& step) {
    return backend_.kernel_op(kernel::KmdDiagnoseOp{step.name, step.queue});
  }
  Status execute(const scenario::KgslSample& step) {
    TIDEMARK_TRY(busy, eval(step.busy_us));
    TIDEMARK_TRY(total, eval(step.total_us));
    return backend_.kernel_op(
        kernel::KgslSampleOp{static_cast<uint64_t>(busy), static_cast<uint64_t>(total), step.freq_hz});
  }
  Status execute(const scenario::KgslPower& step) { return backend_.kernel_op(kernel::KgslPowerOp{step.axi_on}); }
  Status execute(const scenario::KgslRead& step) {
    return backend_.kernel_op(kernel::KgslReadOp{step.node, step.name});
  }
  Status execute(const scenario::GpuMemSample&) { return backend_.kernel_sample(); }
  Status execute(const scenario::CounterSampleStep& step) {
    TIDEMARK_TRY(at, eval(step.at));
    if (at < 0) return fail(ErrorKind::BadInput, fmt::format("a timestamp of {} ns", at));
    tracer::CounterSampleOp op{.ts = static_cast<uint64_t>(at), .gpu = step.gpu, .samples = {}};
    for (const auto& [id, value] : step.values) {
      if (const auto* decimal = std::get_if<double>(&value)) {
        op.samples.push_back({id, *decimal});
        continue;
      }
      TIDEMARK_TRY(whole, eval(std::get<scenario::IntField>(value)));
      op.samples.push_back({id, whole});
    }
    return backend_.trace_op(op);
  }
  Status execute(const scenario::GpuMemWalk& step) {
    std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>> updates;
    for (const auto& update : step.updates) {
      TIDEMARK_TRY(at, eval_u32(update.at));
      TIDEMARK_TRY(gpu, eval_u32(update.gpu));
      TIDEMARK_TRY(pid, eval_u32(update.pid));
      TIDEMARK_TRY(size, eval_u64(update.size));
      updates.push_back({at, {gpu, pid, size}});
    }
    return backend_.kernel_walk(updates);
  }
  Status execute(const scenario::GpuFree& step) {
    TIDEMARK_TRY(gpu, eval_u32(step.gpu));
    TIDEMARK_TRY(pid, eval_u32(step.pid));
    TIDEMARK_TRY(id, eval_u64(step.id));
    return backend_.kernel_free(gpu, pid, id);
  }

  Status execute(const scenario::Repeat& step) {
    auto count = eval(step.count);
    if (!count) return std::unexpected(count.error());
    for (int64_t i = 0; i < *count; ++i) {
      scope_.push(step.variable, i);
      auto done = run_steps(step.steps);
      scope_.pop();
      if (!done) return done;
    }
    return {};
  }

  const Scenario& scenario_;
  backend::Backend& backend_;
  std::map<std::string, backend::BufferId> buffers_;
  std::map<std::string, backend::FenceId> fences_;
  Scope scope_;
  CallJournal journal_;
  const Step* current_ = nullptr;
  uint64_t probe_every_ = 0;
  std::function<void(uint64_t)> probe_;
  int waits_checked_ = 0;
  std::vector<std::string> wait_mismatches_;
};


// One complete run: a fresh backend, the workload, read back, checks.
struct SingleRun {
  std::optional<Error> error;
  Gauges gauges;
  std::optional<KernelGauges> kernel_gauges;
  std::optional<std::string> kernel_dump;
  std::vector<std::optional<std::string>> kernel_nodes;
  kernel::KernelReport kernel_report;
  std::string trace;  // the run's Perfetto trace
  Image image;
  std::vector<std::string> validation_messages;
  wire::LaneReport lane;
  int waits_checked = 0;
  std::vector<std::string> wait_mismatches;
};

// Runs the steps, then reads back pixels, gauges and validation messages; the first
// failure is the run's error.
Status drive(const Scenario& scenario, backend::Backend& api, SingleRun& result, uint64_t probe_every = 0,
             std::function<void(uint64_t)> probe = {}) {
  Executor executor(scenario, api);
  if (probe_every > 0 && probe) executor.probe_every(probe_every, std::move(probe));
  if (auto ok = executor.create_buffers(); !ok) return ok;
  auto ran = executor.run_workload();
  result.waits_checked = executor.waits_checked();
  result.wait_mismatches = executor.wait_mismatches();
  if (!ran) return ran;
  TIDEMARK_TRY(image, api.read_pixels());
  result.image = std::move(image);
  TIDEMARK_TRY(gauges, api.gauges());
  result.gauges = gauges;
  if (scenario.uses_kernel()) {
    TIDEMARK_TRY(kernel, api.kernel_gauges());
    result.kernel_gauges = kernel;
  }
  if (scenario.kernel_dump) {
    TIDEMARK_TRY(dump, api.kernel_dump());
    result.kernel_dump = std::move(dump);
  }
  for (const auto& node : scenario.kernel_nodes) {
    TIDEMARK_TRY(read, api.kernel_node(node.pid, node.type));
    result.kernel_nodes.push_back(std::move(read));
  }
  if (scenario.reads_kernel_report()) {
    TIDEMARK_TRY(report, api.kernel_report());
    result.kernel_report = std::move(report);
  }
  TIDEMARK_TRY(trace, api.run_trace());
  result.trace = std::move(trace);
  TIDEMARK_TRY(messages, api.validation_messages());
  result.validation_messages = std::move(messages);
  return {};
}

Result<SingleRun> run_once(const Scenario& scenario, const std::map<std::string, int64_t>& knobs,
                           const RunOptions& options, const fs::path& report_dir, std::vector<std::string>& log) {
  wire::SessionConfig config;
  config.width = scenario.target.width;
  config.height = scenario.target.height;
  config.knobs = knobs;
  config.validation = options.validation;
  config.kernel_pid = scenario.kernel.pid;
  config.kernel_gpu = scenario.kernel.gpu;
  config.kernel_reports = scenario.kernel.reports;
  config.kmd = scenario.kmd.config;
  config.kgsl = scenario.kgsl.config;
  config.trace_memory = scenario.trace_memory;
  config.log = [&log](const std::string& line) { log.push_back(line); };
  wire::LaneOptions lane = options.lane;
  if (lane.server_log.empty() && !report_dir.empty()) lane.server_log = (report_dir / "server.log").string();
  auto session = wire::open_lane(lane, config);
  if (!session && session.error().kind == ErrorKind::Environment) return std::unexpected(session.error());

  SingleRun result;
  if (!session) {
    result.error = session.error();
    return result;
  }
  // A scenario that asks for the impossible (a draw of a buffer with no store, a band past
  // the end) is bad input, and a machine that cannot write what the run records is an I/O
  // error: neither is a red result. Only the code under test failing is.
  auto not_red = [](const Error& error) {
    return error.kind == ErrorKind::Environment || error.kind == ErrorKind::BadInput || error.kind == ErrorKind::Io;
  };
  auto probe = [&](uint64_t calls) { options.probe(calls, (*session)->report()); };
  if (auto done = drive(scenario, (*session)->api(), result, options.probe_every, probe); !done) {
    if (not_red(done.error())) return std::unexpected(done.error());
    result.error = done.error();
  }
  result.lane = (*session)->report();
  if (auto closed = (*session)->close(); !closed && not_red(closed.error())) return std::unexpected(closed.error());
  return result;
}

std::string pixel_hash(const Image& image) {
  return tidemark::pixel_hash(image.width, image.height, image.pixels);
}

// All the gauges a run read, in the order it read them: the backend's, then the kernel
// model's when the scenario uses it (a replay digests its gauge replies in the same order).
std::vector<std::pair<std::string, int64_t>> all_gauges(const Gauges& gauges, const std::optional<KernelGauges>& kernel) {
  auto out = named(gauges);
  if (kernel) {
    auto more = named(*kernel);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

std::string run_digest(const SingleRun& run) {
  return tidemark::run_digest(all_gauges(run.gauges, run.kernel_gauges), pixel_hash(run.image), trace_hash(run.trace));
}

nlohmann::json to_json(const RunResult& result) {
  nlohmann::json json;
  json["test"] = result.test_name;
  json["file"] = result.file.string();
  json["green"] = result.green;
  json["seconds"] = result.seconds;
  if (result.error) json["error"] = result.error->message;
  for (const auto& [name, value] : named(result.gauges)) json["gauges"][name] = value;
  if (result.kernel_gauges)
    for (const auto& [name, value] : named(*result.kernel_gauges)) json["kernel_gauges"][name] = value;
  json["gauge_line"] = gauge_line(result.gauges);
  json["lane"] = {{"name", result.lane.lane},
                  {"frames_sent", result.lane.frames_sent},
                  {"frames_received", result.lane.frames_received},
                  {"client_pid", result.lane.client_pid},
                  {"server_pid", result.lane.server_pid},
                  {"server_knobs", result.lane.server_knobs}};
  json["knobs"] = result.knobs;
  json["pixel_hash"] = result.pixel_hash;
  json["trace_hash"] = result.trace_hash;
  json["digest"] = result.digest;
  if (result.repeat_digests.size() > 1) json["repeat_digests"] = result.repeat_digests;
  json["validation_messages"] = result.validation_messages;
  json["checks"] = nlohmann::json::array();
  for (const auto& outcome : result.outcomes) {
    nlohmann::json check{{"id", outcome.id.str()},   {"kind", scenario::to_string(outcome.id.kind)},
                         {"check", outcome.text},    {"passed", outcome.passed},
                         {"detail", outcome.detail}, {"where", format_location(outcome.where)}};
    for (const auto& artifact : outcome.artifacts) check["artifacts"].push_back(artifact.string());
    json["checks"].push_back(check);
  }
  return json;
}

Status write_json(const fs::path& file, const nlohmann::json& json) {
  return write_file_atomically(file, json.dump(2) + '\n');
}

// The scenario's checks and the runner's own against what the run read back.
Result<std::vector<check::Outcome>> evaluate(const Scenario& scenario, const RunResult& result, const SingleRun& run,
                                             const RunOptions& options) {
  check::ReadBack read{.gauges = run.gauges,
                       .kernel_gauges = run.kernel_gauges,
                       .kernel_dump = run.kernel_dump,
                       .kernel_nodes = run.kernel_nodes,
                       .kernel_report = run.kernel_report,
                       .trace = run.trace,
                       .image = run.image,
                       .validation_messages = run.validation_messages,
                       .waits = {.checked = run.waits_checked, .mismatches = run.wait_mismatches}};
  check::RunContext context;
  context.completed = !result.error;
  context.knobs = check::Values(result.knobs.begin(), result.knobs.end());
  context.artifact_dir = result.report_dir;
  context.mutant = find_mutant(options.lane.mutant).value_or(MutantId::None);
  context.lane = options.lane.lane;
  context.traffic = {.frames_sent = run.lane.frames_sent,
                     .frames_received = run.lane.frames_received,
                     .client_pid = run.lane.client_pid,
                     .server_pid = run.lane.server_pid};
  context.validation = options.validation;
  context.digests = result.repeat_digests;
  context.counter_tracks = {.device_bytes = backend::kDeviceBytesTrack, .map_entry = backend::kMapEntryTrack};
  return check::evaluate(scenario, read, context);
}


// result.json, actual.png, trace.pftrace and backend.log in the run's report folder (if it has one).
Status write_run_report(const RunResult& result, const Image& image, const std::string& trace,
                        const std::vector<std::string>& log) {
  if (result.report_dir.empty()) return {};
  if (!trace.empty()) TIDEMARK_CHECK(write_file_atomically(result.report_dir / "trace.pftrace", trace));
  if (!image.pixels.empty())
    TIDEMARK_CHECK(replace_file(result.report_dir / "actual.png",
                                [&](const fs::path& temporary) { return check::write_png(temporary, image); }));
  std::string backend_log;
  for (const auto& line : log) backend_log += line + '\n';
  backend_log += "end: " + gauge_line(result.gauges) + '\n';
  TIDEMARK_CHECK(write_file_atomically(result.report_dir / "backend.log", backend_log));
  return write_json(result.report_dir / "result.json", to_json(result));  // last: its presence means complete
}

}  // namespace

std::string test_name(const Scenario& scenario, Lane lane) {
  return fmt::format("Magma.{}.{}.{}", lane_title(lane), camel_case(scenario.group), scenario.name);
}

Result<std::map<std::string, int64_t>> effective_knobs(const Scenario& scenario,
                                                       const std::map<std::string, int64_t>& overrides) {
  auto from_scenario = resolve_knobs({&scenario.knobs}, format_location({scenario.file.string(), 1, 1}));
  if (!from_scenario) return from_scenario;
  return resolve_knobs({&scenario.knobs, &overrides}, "--knob");
}

Result<RunResult> run(const Scenario& scenario, const RunOptions& options) {
  RunResult result;
  result.test_name = test_name(scenario, options.lane.lane);
  result.file = scenario.file;
  TIDEMARK_TRY(knobs, effective_knobs(scenario, options.knob_overrides));
  result.knobs = knobs;
  if (!options.report_dir.empty()) {
    result.report_dir = options.report_dir / lane_name(options.lane.lane) / scenario.group / scenario.name;
    TIDEMARK_CHECK(make_directories(result.report_dir));
  }

  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> log;
  SingleRun last;
  for (int attempt = 0; attempt < std::max(1, options.repeat); ++attempt) {
    log.clear();
    TIDEMARK_TRY(once, run_once(scenario, knobs, options, result.report_dir, log));
    last = std::move(once);
    result.repeat_digests.push_back(run_digest(last));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.gauges = last.gauges;
  result.kernel_gauges = last.kernel_gauges;
  result.error = last.error;
  result.validation_messages = last.validation_messages;
  result.lane = last.lane;
  result.pixel_hash = pixel_hash(last.image);
  result.trace_hash = trace_hash(last.trace);
  result.digest = result.repeat_digests.back();

  TIDEMARK_TRY(outcomes, evaluate(scenario, result, last, options));
  result.outcomes = std::move(outcomes);
  result.green = !result.error &&
                 std::all_of(result.outcomes.begin(), result.outcomes.end(), [](const auto& o) { return o.passed; });
  if (auto written = write_run_report(result, last.image, last.trace, log); !written)
    return std::unexpected(written.error());
  return result;
}

Status write_summary(const std::vector<RunResult>& results, const fs::path& dir) {
  TIDEMARK_CHECK(make_directories(dir));
  nlohmann::json json;
  size_t green = 0;
  for (const auto& result : results) {
    green += result.green ? 1 : 0;
    json["results"].push_back(to_json(result));
  }
  json["green"] = green;
  json["red"] = results.size() - green;
  if (auto ok = write_html_summary(results, dir); !ok) return ok;
  return write_json(dir / "summary.json", json);
}

}  // namespace tidemark::runner
