#include "kernel/diagnosis.h"

#include <fmt/format.h>

#include <array>

namespace tidemark::kernel::diagnosis {

std::string us(uint64_t ns) { return fmt::format("{} us", ns / 1000); }

namespace {

using O = Observation;

constexpr std::string_view kDecodeRemedy = "decode the command at head";
constexpr std::string_view kHeavyWorkRemedy =
    "heavy work or a barrier wait: check the other engines' fences and semaphores before calling it a hang";

bool stuck_on(const O& o, CommandKind kind) { return o.announced && o.at_kind == kind; }

std::string head_still(const O& o) {
  return fmt::format("head {} has not moved in {}; ", o.registers.head, us(o.probe_ns));
}

std::string stuck_finding(const O& o) { return head_still(o) + "the command at head is " + o.registers.at_head; }

std::string doorbell_finding(const O& o) {
  return head_still(o) + fmt::format("the doorbell reads {} but the tail is {}; the engine is {}", o.registers.doorbell,
                                     o.registers.tail, o.registers.engine);
}

// Evaluated in order, first match wins: each predicate reads only what the rows before it
// left open (every row after healthy sees a late fence; after fence_unwritable a non-empty ring).
constexpr std::array<Scene, 14> kScenes = {{
    {"half_written", "half_written", +[](const O& o) { return o.stale_reads > 0 || o.magic_caught > 0; },
     +[](const O& o) { return o.last_finding; },
     "check a header magic before the tail moves; keep the completeness barrier on the ring's wrap path"},
    {"cpu_bound/tiny_submits", "cpu_bound",
     +[](const O& o) { return o.on_time() && o.frame_submits >= o.tiny_submits && o.busy_percent < 50; },
     +[](const O& o) {
       return fmt::format("{} submits in this frame; the engine was busy {}% of its {}", o.frame_submits,
                          o.busy_percent, us(o.frame_ns));
     },
     "batch submits: fewer, larger command buffers"},
    {"cpu_bound/ring_full", "cpu_bound", +[](const O& o) { return o.on_time() && o.frame_ring_waits > 0; },
     +[](const O& o) {
       return fmt::format("the submitter found the ring full {} times in this frame", o.frame_ring_waits);
     },
     "a larger ring or a deeper queue; batch submits"},
    {"healthy", "healthy", +[](const O& o) { return o.on_time(); },
     +[](const O& o) {
       return fmt::format("fence {} reached; the engine is {}", o.registers.fence, o.registers.engine);
     },
     "none"},
    {"stuck_command/fence_only", "stuck_command", +[](const O& o) { return o.fence_only; },
     +[](const O& o) { return fmt::format("the fence stays at {} < {}", o.registers.fence, o.registers.awaited); },
     kDecodeRemedy},
    {"heavy_work/head_moved", "heavy_work", +[](const O& o) { return o.registers.head_moved; },
     +[](const O& o) {
       return fmt::format("head moved from {} to {} in {} while the fence is {} < {}", o.head_before, o.registers.head,
                          us(o.probe_ns), o.registers.fence, o.registers.awaited);
     },
     kHeavyWorkRemedy},
    {"fence_unwritable", "fence_unwritable", +[](const O& o) { return o.ring_empty; },
     +[](const O& o) {
       return fmt::format("head {} is past the fence write of {} but the fence reads {}", o.registers.head,
                          o.registers.awaited, o.registers.fence);
     },
     "check the fence page's GPU mapping and its write permission"},
    {"heavy_work/running", "heavy_work", +[](const O& o) { return o.announced && o.command_started; },
     +[](const O& o) {
       return fmt::format("head {} stays on a {} that is still running after {}; the fence is {} < {}",
                          o.registers.head, o.registers.at_head, us(o.probe_ns), o.registers.fence,
                          o.registers.awaited);
     },
     kHeavyWorkRemedy},
    {"stuck_command/semaphore_wait", "stuck_command",
     +[](const O& o) { return stuck_on(o, CommandKind::SemaphoreWait); }, stuck_finding,
     "find the engine that should signal that semaphore"},
    {"stuck_command/bad_address", "stuck_command", +[](const O& o) { return stuck_on(o, CommandKind::BadAddress); },
     stuck_finding, "an address outside the process's GPU range: a missed address patch"},
    {"stuck_command/bad_opcode", "stuck_command", +[](const O& o) { return stuck_on(o, CommandKind::BadOpcode); },
     stuck_finding, "an opcode the engine does not know: a stream written or patched wrong"},
    {"stuck_command/other", "stuck_command", +[](const O& o) { return o.announced; }, stuck_finding, kDecodeRemedy},
    // A driver that wakes the engine before ringing cannot lose a doorbell to sleep (an engine
    // that was never told may still have powered down since).
    {"doorbell_lost/asleep", "doorbell_lost", +[](const O& o) { return o.power != PowerPolicy::Wait; },
     doorbell_finding, "wake the engine before the first submit, and read the doorbell back after writing it"},
    {"doorbell_lost/skipped", "doorbell_lost", +[](const O&) { return true; }, doorbell_finding,
     "read the doorbell back after writing it: it was skipped or merged"},
}};

}  // namespace

std::span<const Scene> scenes() { return kScenes; }

size_t first_match(const Observation& observed) {
  for (size_t row = 0; row < kScenes.size(); ++row)
    if (kScenes[row].when(observed)) return row;
  return kScenes.size() - 1;  // unreachable: the last row always holds
}

Diagnosis conclude(const Observation& observed) {
  const Scene& row = kScenes[first_match(observed)];
  Diagnosis d = observed.registers;
  d.scene = row.scene;
  d.finding = row.finding(observed);
  d.remedy = row.remedy;
  return d;
}

}  // namespace tidemark::kernel::diagnosis
