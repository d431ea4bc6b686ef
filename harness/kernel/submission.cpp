#include "kernel/submission.h"

#include "core/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "kernel/diagnosis.h"
#include "kernel/saturating.h"

namespace tidemark::kernel {

std::optional<CommandKind> parse_command_kind(std::string_view name) {
  for (size_t k = 0; k < std::size(kCommandKindNames); ++k)
    if (kCommandKindNames[k] == name) return static_cast<CommandKind>(k);
  return std::nullopt;
}

std::optional<std::string> diagnosis_field(const Diagnosis& d, std::string_view field) {
  if (field == "scene") return d.scene;
  if (field == "head") return std::to_string(d.head);
  if (field == "tail") return std::to_string(d.tail);
  if (field == "doorbell") return std::to_string(d.doorbell);
  if (field == "fence") return std::to_string(d.fence);
  if (field == "awaited") return std::to_string(d.awaited);
  if (field == "head_moved") return d.head_moved ? "true" : "false";
  if (field == "at_head") return d.at_head;
  if (field == "engine") return d.engine;
  if (field == "finding") return d.finding;
  if (field == "remedy") return d.remedy;
  return std::nullopt;
}

namespace {

std::string describe(const Command& command) {
  switch (command.kind) {
    case CommandKind::Draw:
      return "draw";
    case CommandKind::SemaphoreWait:
      return fmt::format("semaphore_wait {}", command.arg);
    case CommandKind::BadAddress:
      return fmt::format("bad_address 0x{:x}", command.arg);
    case CommandKind::BadOpcode:
      return fmt::format("bad_opcode 0x{:x}", command.arg);
  }
  return "?";
}

using diagnosis::us;

// part * 100 / whole, capped at 100%, without overflow: command costs and clocks come from the
// client and reach 2^63 ns (the session fuzz target's first finding: `busy * 100` overflowed).
int64_t percent_of(int64_t part, int64_t whole) {
  if (whole <= 0) return 0;
  part = std::clamp<int64_t>(part, 0, whole);
  if (part <= INT64_MAX / 100) return part * 100 / whole;
  return part / (whole / 100);
}

}  // namespace

// A wait "forever" (UINT64_MAX) ends at the end of time rather than wrapping around.
uint64_t SubmissionModel::after(uint64_t ns) const { return saturating_add(now_, ns); }

SubmissionModel::SubmissionModel(KmdConfig config, MutantId mutant) : config_(config), mutant_(mutant) {
  config_.ring_dwords = std::clamp(config_.ring_dwords, kMinRingDwords, kMaxRingDwords);
}

// --- Registers ------------------------------------------------------------------------------

uint32_t SubmissionModel::head() const {
  if (ring_.empty()) return tail_;
  const Packet& front = ring_.front();
  uint32_t ring = config_.ring_dwords;
  if (at_command_ == 0 && !fetched_) return (front.start + ring - front.pad) % ring;
  return (front.start + kHeaderDwords + static_cast<uint32_t>(at_command_) * kCommandDwords) % ring;
}

uint32_t SubmissionModel::ring_used() const {
  if (ring_.empty()) return 0;
  return (tail_ + config_.ring_dwords - head()) % config_.ring_dwords;
}

uint32_t SubmissionModel::free_dwords() const { return config_.ring_dwords - 1 - ring_used(); }

std::string_view SubmissionModel::engine_state() const {
  switch (power_) {
    case Power::Awake:
      return "awake";
    case Power::Waking:
      return "waking";
    case Power::Asleep:
      return "asleep";
  }
  return "?";
}

int64_t SubmissionModel::command_buffers_kept() const {
  return std::count_if(buffers_.begin(), buffers_.end(),
                       [](const CommandBuffer& b) { return b.state == BufferState::Completed; });
}

// --- The engine -----------------------------------------------------------------------------

bool SubmissionModel::has_announced_work() const { return !ring_.empty() && ring_.front().fence <= announced_; }

bool SubmissionModel::blocked_at_head() const {
  if (!has_announced_work() || command_started_ || at_command_ >= ring_.front().commands.size()) return false;
  const Command& command = ring_.front().commands[at_command_];
  switch (command.kind) {
    case CommandKind::Draw:
      return false;
    case CommandKind::SemaphoreWait:
      return !signalled_.contains(command.arg);
    case CommandKind::BadAddress:
    case CommandKind::BadOpcode:
      return true;  // the front end stops on it: head stays here
  }
  return false;
}

std::optional<uint64_t> SubmissionModel::next_event() const {
  std::optional<uint64_t> next;
  auto consider = [&](uint64_t at) { next = next ? std::min(*next, at) : at; };
  if (!interrupts_.empty()) consider(interrupts_.front().first);
  switch (power_) {
    case Power::Waking:
      consider(ready_at_);
      break;
    case Power::Asleep:
      break;
    case Power::Awake:
      if (command_started_)
        consider(command_done_at_);
      else if (has_announced_work()) {
        if (!blocked_at_head()) consider(now_);
      } else {
        consider(idle_since_ + config_.idle_timeout_ns);
      }
      break;
  }
  return next;
}

void SubmissionModel::step_to(uint64_t at) {
  now_ = std::max(now_, at);
  while (!interrupts_.empty() && interrupts_.front().first <= now_) {
    uint64_t value = interrupts_.front().second;
    interrupts_.pop_front();
    seen_ = value;  // the driver reads the fence's memory: a narrowed fence goes back here too
    for (; completed_cursor_ < value && completed_cursor_ + 1 < first_buffer_fence_ + buffers_.size();) {
      ++completed_cursor_;
      if (completed_cursor_ < first_buffer_fence_) continue;
      CommandBuffer& buffer = buffer_of(completed_cursor_);
      if (buffer.state == BufferState::Recycled) continue;
      buffer.state = BufferState::Completed;
      buffer.completed_frame = frame_;
      if (mutant_is(mutant_, MutantId::KmdRecycleAtCompletion)) recycle(buffer);
    }
  }
  if (power_ == Power::Waking && ready_at_ <= now_) {
    power_ = Power::Awake;
    ++counters_.wakes;
    idle_since_ = ready_at_;
  }
  if (power_ != Power::Awake) return;
  if (command_started_ && command_done_at_ <= now_) {
    command_started_ = false;
    ++at_command_;
    ++progress_;
    if (!has_announced_work() || at_command_ > ring_.front().commands.size()) idle_since_ = now_;
  }
  if (command_started_ || !has_announced_work()) {
    if (!has_announced_work() && !command_started_ && idle_since_ + config_.idle_timeout_ns <= now_) {
      power_ = Power::Asleep;
      ++counters_.sleeps;
    }
    return;
  }
  Packet& front = ring_.front();
  if (!fetched_) {
    fetched_ = true;
    if (now_ < front.visible_at || front.clobbered) {
      ++counters_.stale_reads;
      found(fmt::format(
          "the engine decoded ring offset {} (fence {}) at {} before its bytes were written: its {} commands ran "
          "from stale bytes",
          front.start, front.fence, us(now_), front.commands.size()));
    }
  }
  touch_buffer(front.fence);
  if (at_command_ < front.commands.size()) {
    if (blocked_at_head()) return;
    const Command& command = front.commands[at_command_];
    command_started_ = true;
    command_done_at_ = after(command.cost_ns);
    counters_.busy_ns = saturating_add(counters_.busy_ns, command.cost_ns);
    frame_busy_ns_ = saturating_add(frame_busy_ns_, command.cost_ns);
    return;
  }
  write_fence(front);
  ring_.pop_front();
  at_command_ = 0;
  fetched_ = false;
  if (!has_announced_work()) idle_since_ = now_;
}

void SubmissionModel::write_fence(const Packet& packet) {
  if (packet.fence_unwritable && !mutant_is(mutant_, MutantId::KmdFenceIgnoresPermission)) return;
  uint64_t value = mutant_is(mutant_, MutantId::KmdNarrowFence) ? (packet.fence & 0xff) : packet.fence;
  if (value < fence_) ++counters_.fence_regressions;
  fence_ = value;
  ++progress_;
  interrupts_.emplace_back(now_ + config_.irq_ns, value);
}

void SubmissionModel::touch_buffer(uint64_t fence) {
  if (fence < first_buffer_fence_) return;
  CommandBuffer& buffer = buffer_of(fence);
  if (buffer.state == BufferState::Recycled) {
    if (!buffer.uaf_reported) {
      buffer.uaf_reported = true;
      ++counters_.uaf;
      found(
          fmt::format("use-after-free: the command buffer of fence {} was recycled at {} and read by the engine at {}",
                      fence, us(buffer.recycled_at), us(now_)));
    }
    return;
  }
  if (buffer.state < BufferState::Executing) buffer.state = BufferState::Executing;
}

void SubmissionModel::recycle(CommandBuffer& buffer) {
  buffer.state = BufferState::Recycled;
  buffer.recycled_at = now_;
  ++counters_.recycled;
}

template <class Stop>
void SubmissionModel::run_until(uint64_t until, Stop stop) {
  while (!stop()) {
    std::optional<uint64_t> next = next_event();
    if (!next || *next > until) {
      step_to(until);
      return;
    }
    step_to(*next);
  }
}

void SubmissionModel::advance(uint64_t ns) {
  run_until(after(ns), [] { return false; });
}

// --- The driver -----------------------------------------------------------------------------

void SubmissionModel::wake_and_wait() {
  if (power_ == Power::Asleep) {
    power_ = Power::Waking;
    ready_at_ = now_ + config_.wake_ns;
  }
  if (power_ == Power::Waking) advance(ready_at_ - now_);
}

void SubmissionModel::deliver_doorbell(uint32_t value, uint64_t fence) {
  if (power_ != Power::Awake) {
    if (!mutant_is(mutant_, MutantId::KmdDoorbellWakesEngine)) {
      ++counters_.doorbells_lost;
      return;
    }
    wake_and_wait();
  }
  doorbell_ = value;
  announced_ = std::max(announced_, fence);
}

void SubmissionModel::ring_doorbell(DoorbellFault fault) {
  switch (config_.power) {
    case PowerPolicy::Wait:
      wake_and_wait();
      break;
    case PowerPolicy::Race:
      if (power_ == Power::Asleep) {
        power_ = Power::Waking;
        ready_at_ = now_ + config_.wake_ns;
      }
      break;
    case PowerPolicy::Off:
      break;
  }
  uint64_t fence = last_fence();
  if (fault == DoorbellFault::NotWritten) {
    ++counters_.doorbells_lost;
  } else if (fault == DoorbellFault::Merged || mutant_is(mutant_, MutantId::KmdDoorbellMerged)) {
    // Write-combined into the next register write: the held one goes out now, this one waits.
    if (merged_)
      deliver_doorbell(merged_->first, merged_->second);
    else
      ++counters_.doorbells_lost;
    merged_ = std::make_pair(tail_, fence);
  } else {
    merged_.reset();
    deliver_doorbell(tail_, fence);
  }
  if (!config_.doorbell_readback || mutant_is(mutant_, MutantId::KmdNoDoorbellReadback)) return;
  if (announced_ >= fence && doorbell_ == tail_) return;
  // The read flushes a combined write and shows a value that did not land: wake, rewrite.
  ++counters_.doorbell_rewrites;
  merged_.reset();
  wake_and_wait();
  deliver_doorbell(tail_, fence);
}

bool SubmissionModel::kick() {
  if (ring_.empty() || announced_ >= last_fence()) return false;
  ++counters_.kicks;
  merged_.reset();
  wake_and_wait();
  deliver_doorbell(tail_, last_fence());
  return true;
}

std::optional<uint64_t> SubmissionModel::submit(const std::vector<Command>& commands) {
  SubmitFaults faults = std::exchange(armed_, SubmitFaults{});
  if (!mutant_is(mutant_, MutantId::KmdFreeSubmits)) advance(config_.submit_cpu_ns);
  ++frame_submits_;
  uint32_t dwords = packet_dwords(commands.size());
  if (dwords > config_.ring_dwords - 1) {  // can never fit
    ++counters_.refused;
    return std::nullopt;
  }
  uint32_t pad = 0;
  uint32_t needed = 0;
  bool wrapped = false;
  auto place = [&] {
    wrapped = tail_ + dwords > config_.ring_dwords;
    pad = wrapped ? config_.ring_dwords - tail_ : 0;
    // The skipped end of an empty ring is consumed at once, so a packet that fits the ring
    // never waits for a pad it could not share the ring with.
    if (wrapped && ring_.empty() && pad + dwords > config_.ring_dwords - 1) {
      tail_ = 0;
      pad = 0;
    }
    needed = pad + dwords;
  };
  place();
  if (free_dwords() < needed) {
    if (mutant_is(mutant_, MutantId::KmdNoFullCheck)) {
      // Written over the oldest packets the engine has not consumed yet.
      uint32_t deficit = needed - free_dwords();
      for (auto& packet : ring_) {
        if (deficit == 0) break;
        if (!packet.clobbered) ++counters_.clobbered;
        packet.clobbered = true;
        deficit -= std::min(deficit, packet.pad + packet.dwords);
      }
    } else {
      uint64_t started = now_;
      run_until(after(config_.submit_timeout_ns), [&] { return ring_.empty() || free_dwords() >= needed; });
      place();
      // A wait that ends in -EBUSY was still a wait for ring space: count it and its time.
      ++counters_.ring_waits;
      ++frame_ring_waits_;
      counters_.ring_wait_ns = saturating_add(counters_.ring_wait_ns, now_ - started);
      if (free_dwords() < needed) {
        ++counters_.refused;
        return std::nullopt;
      }
    }
  }
  Packet packet;
  packet.fence = next_fence_++;
  packet.pad = pad;
  packet.start = wrapped ? 0 : tail_;
  packet.dwords = dwords;
  packet.commands = commands;
  packet.fence_unwritable = faults.fence_unwritable;
  // Only the wrap path lacks the completeness barrier: there the tail moves while the packet
  // is still being copied in.
  packet.visible_at = faults.half_written && wrapped ? now_ + config_.late_write_ns : now_;
  buffers_.push_back(CommandBuffer{.state = BufferState::Submitted, .fence = packet.fence});
  if (config_.magic_check && !mutant_is(mutant_, MutantId::KmdNoMagicCheck) && packet.visible_at > now_) {
    ++counters_.magic_caught;
    found(fmt::format(
        "header magic missing at ring offset {} (fence {}) when the tail was to move: the wrapped packet was "
        "still being written; the tail waited {}",
        packet.start, packet.fence, us(packet.visible_at - now_)));
    advance(packet.visible_at - now_);
  }
  tail_ = (packet.start + dwords) % config_.ring_dwords;
  ring_.push_back(std::move(packet));
  counters_.ring_peak = std::max<int64_t>(counters_.ring_peak, ring_used());
  ++counters_.submits;
  CommandBuffer& buffer = buffers_.back();
  buffer.state = BufferState::Queued;
  if (mutant_is(mutant_, MutantId::KmdRecycleOnSubmit)) recycle(buffer);
  ring_doorbell(faults.doorbell);
  return last_fence();
}

bool SubmissionModel::wait(uint64_t fence, uint64_t timeout_ns) {
  ++counters_.waits;
  run_until(after(timeout_ns), [&] { return seen_ >= fence; });
  if (seen_ >= fence) return true;
  ++counters_.wait_timeouts;
  return false;
}

void SubmissionModel::frame() {
  ++frame_;
  for (auto& buffer : buffers_)
    if (buffer.state == BufferState::Completed && frame_ - buffer.completed_frame >= config_.recycle_frames)
      recycle(buffer);
  // Records no packet in the ring refers to any more are forgotten.
  while (!buffers_.empty() && buffers_.front().state == BufferState::Recycled &&
         (ring_.empty() || first_buffer_fence_ < ring_.front().fence) && first_buffer_fence_ <= completed_cursor_) {
    buffers_.pop_front();
    ++first_buffer_fence_;
  }
  frame_started_ = now_;
  frame_submits_ = 0;
  frame_busy_ns_ = 0;
  frame_ring_waits_ = 0;
}

void SubmissionModel::signal(uint64_t semaphore) { signalled_.insert(semaphore); }

void SubmissionModel::found(std::string finding) {
  if (findings_.size() < kMaxKeptRecords) findings_.push_back(finding);
  last_finding_ = std::move(finding);
}

// --- The observer ---------------------------------------------------------------------------

std::string SubmissionModel::describe_at_head() const {
  if (ring_.empty()) return "nothing";
  const Packet& front = ring_.front();
  if (at_command_ < front.commands.size()) return describe(front.commands[at_command_]);
  return fmt::format("fence_write {}", front.fence);
}

// Watches for probe_ns, then records the registers and everything the table's rows read.
diagnosis::Observation SubmissionModel::observe() {
  diagnosis::Observation o;
  o.head_before = head();
  uint64_t progress_before = progress_;
  advance(config_.probe_ns);
  Diagnosis& d = o.registers;
  d.head = head();
  d.tail = tail_;
  d.doorbell = doorbell_;
  d.fence = fence_;
  d.awaited = last_fence();
  d.head_moved = progress_ != progress_before;  // commands finished, not just a header fetched
  d.at_head = describe_at_head();
  d.engine = std::string(engine_state());
  o.probe_ns = config_.probe_ns;
  o.stale_reads = counters_.stale_reads - diagnosed_.stale_reads;
  o.magic_caught = counters_.magic_caught - diagnosed_.magic_caught;
  diagnosed_ = counters_;
  o.last_finding = last_finding_;
  o.frame_submits = frame_submits_;
  o.tiny_submits = config_.tiny_submits;
  o.frame_ns = now_ - frame_started_;
  o.busy_percent = percent_of(frame_busy_ns_, static_cast<int64_t>(o.frame_ns));
  o.frame_ring_waits = frame_ring_waits_;
  o.fence_only = mutant_is(mutant_, MutantId::KmdDiagnosisReadsFenceOnly);
  o.ring_empty = ring_.empty();
  o.announced = has_announced_work();
  o.command_started = command_started_;
  if (!ring_.empty() && at_command_ < ring_.front().commands.size())
    o.at_kind = ring_.front().commands[at_command_].kind;
  o.power = config_.power;
  return o;
}

Diagnosis SubmissionModel::diagnose() { return diagnosis::conclude(observe()); }

}  // namespace tidemark::kernel
