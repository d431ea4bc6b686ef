#include "runner/kinds/executor.h"

#include <fmt/format.h>

#include <cstring>

#include <array>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/limits.h"
#include "observe/crash_notes.h"

#include "calls/step_calls.h"  // call_step(): each one-call step made, generated from api/calls.yaml

namespace tidemark::runner {

using scenario::Scenario;
using scenario::Step;

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
  std::vector<Entry> entries_ = std::vector<Entry>(api::Device::kMaxPipelinedCalls);
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
  if (word == std::array<uint8_t, 4>{}) return bytes;
  // Word by word: byte by byte through `i % 4` was a fifth of a reduce's time on 1 MiB stores.
  const size_t whole = bytes.size() / 4 * 4;
  for (size_t i = 0; i < whole; i += 4) std::memcpy(bytes.data() + i, word.data(), 4);
  for (size_t i = whole; i < bytes.size(); ++i) bytes[i] = word[i % 4];
  return bytes;
}

// Executes the workload, step by step, against one backend.
class Executor {
 public:
  Executor(const Scenario& scenario, api::Device& device, api::Model& model)
      : scenario_(scenario), backend_(device), model_(model) {}

  void probe_every(uint64_t calls, std::function<void(uint64_t)> probe) {
    probe_every_ = calls;
    probe_ = std::move(probe);
  }

  Status create_buffers() {
    if (scenario_.counters) {  // the scenario's counter stream opens before its first sample
      journal_.record(nullptr, scope_);
      const auto& section = *scenario_.counters;
      if (auto ok = model_.trace_op(tracer::CounterStreamOp{section.descriptor, section.gpus, section.interned}); !ok)
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

  const check::WaitTally& waits() const { return waits_; }

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
              &step,
              Error{ErrorKind::BadInput,
                    fmt::format("expected a workload of at most {} backend calls, found more", kMaxWorkloadCalls)}));
        if (probe_every_ > 0 && journal_.calls() % probe_every_ == 0) probe_(journal_.calls());
        if (crash_notes::Notes* notes = crash_notes::armed()) note_step(notes->step, step);
      }
      auto done = std::visit([&](const auto& kind) { return execute(kind); }, *step.kind);
      if (!done) return std::unexpected(annotate(&step, done.error()));
    }
    return {};
  }

  // For the parent of an isolated run: the step about to make its call, by fixed fields only.
  void note_step(crash_notes::StepNote& note, const Step& step) const {
    note.line = static_cast<uint32_t>(step.where.line);
    note.column = static_cast<uint32_t>(step.where.column);
    crash_notes::copy_into(note.label, step.label);
    uint32_t count = 0;
    const Scope::Vars& vars = scope_.vars();
    const size_t first = vars.size() > crash_notes::kMaxVars ? vars.size() - crash_notes::kMaxVars : 0;
    for (size_t i = first; i < vars.size(); ++i) {
      if (vars[i].first.empty()) continue;
      crash_notes::copy_into(note.vars[count].name, vars[i].first);
      note.vars[count++].value = vars[i].second;
    }
    note.var_count = count;
    note.calls = journal_.calls();  // last: a parent reading calls > 0 reads a whole step
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

  // One overload per step of the registry (scenario/steps.h) and Repeat: run() std::visits
  // the StepKind, so a step without its overload here fails to compile.
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
    api::DrawCall call;
    call.uniform = buffers_.at(step.uniform);
    if (step.vertices) call.vertices = buffers_.at(*step.vertices);
    const auto& target = scenario_.session;
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
      ++waits_.checked;
      WaitStatus wanted = *step.expect;
      if (*status != wanted)
        waits_.add_mismatch(fmt::format("line {} (wait #{}) returned {}, expected {}", current_->where.line,
                                        waits_.checked, to_string(*status), to_string(wanted)));
    }
    return {};
  }

  // A step that is one call with its arguments: made as the table of calls says (call_step(),
  // generated from api/calls.yaml), its numbers checked against their wire widths as it runs.
  template <class OneCall>
    requires requires { OneCall::kCall; }
  Status execute(const OneCall& step) {
    return call_step(step, Numbers{*this}, backend_, model_);
  }
  struct Numbers {
    const Executor& executor;
    Result<uint32_t> u32(const scenario::IntField& field) const { return executor.eval_u32(field); }
    Result<uint64_t> u64(const scenario::IntField& field) const { return executor.eval_u64(field); }
  };

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
  // A kernel step written as its operation: carried over as it is.
  template <class Operation>
    requires std::is_constructible_v<kernel::KernelOp, Operation>
  Status execute(const Operation& op) {
    return model_.kernel_op(op);
  }
  Status execute(const scenario::KmdWait& step) {
    TIDEMARK_TRY(fence, eval(step.fence));
    return model_.kernel_op(kernel::KmdWaitOp{static_cast<uint64_t>(fence), step.timeout_ns});
  }
  Status execute(const scenario::KmdSignal& step) {
    TIDEMARK_TRY(semaphore, eval(step.semaphore));
    return model_.kernel_op(kernel::KmdSignalOp{static_cast<uint64_t>(semaphore)});
  }
  Status execute(const scenario::KgslSample& step) {
    TIDEMARK_TRY(busy, eval(step.busy_us));
    TIDEMARK_TRY(total, eval(step.total_us));
    return model_.kernel_op(
        kernel::KgslSampleOp{static_cast<uint64_t>(busy), static_cast<uint64_t>(total), step.freq_hz});
  }
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
    return model_.trace_op(op);
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
    return model_.kernel_walk(updates);
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
  api::Device& backend_;
  api::Model& model_;
  std::map<std::string, api::BufferId> buffers_;
  std::map<std::string, api::FenceId> fences_;
  Scope scope_;
  CallJournal journal_;
  const Step* current_ = nullptr;
  uint64_t probe_every_ = 0;
  std::function<void(uint64_t)> probe_;
  check::WaitTally waits_;
};

}  // namespace

Status execute_workload(const Scenario& scenario, api::Device& device, api::Model& model, check::WaitTally& waits,
                        uint64_t probe_every, std::function<void(uint64_t)> probe) {
  Executor executor(scenario, device, model);
  if (probe_every > 0 && probe) executor.probe_every(probe_every, std::move(probe));
  if (auto ok = executor.create_buffers(); !ok) return ok;
  auto ran = executor.run_workload();
  crash_notes::note_workload_over();
  waits = executor.waits();
  return ran;
}

}  // namespace tidemark::runner
