// The kernel driver's submission path, modelled deterministically (virtual nanoseconds, no
// wall clock): a fixed ring with head and tail, the barrier -> tail -> doorbell order, a
// monotonic per-queue fence with waiters, command-buffer lifecycle with deferred recycling,
// an engine that powers down when idle, the four fault scenes of seed 003 as injectable
// faults, and a diagnosis read from what an outside observer can see.
// Facts: ../shared/specs/kernel-model.md section 6.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "core/kernel_types.h"
#include "core/mutants.h"

namespace tidemark::kernel {

// --- What travels through the ring (sizes in 32-bit dwords) -------------------------------

inline constexpr uint32_t kHeaderMagic = 0xC0DEB00Cu;  // the first dword of every packet
inline constexpr uint32_t kHeaderDwords = 2;           // magic, (buffer id << 16 | length)
inline constexpr uint32_t kCommandDwords = 4;
inline constexpr uint32_t kFenceWriteDwords = 4;  // "write N to the fence", last in a packet

std::optional<CommandKind> parse_command_kind(std::string_view name);

// The packet a submit of `commands` occupies.
constexpr uint32_t packet_dwords(size_t commands) {
  return kHeaderDwords + static_cast<uint32_t>(commands) * kCommandDwords + kFenceWriteDwords;
}

// --- The diagnosis --------------------------------------------------------------------------

// A field's text as a check compares it ("true"/"false", decimal numbers, the strings).
std::optional<std::string> diagnosis_field(const Diagnosis& diagnosis, std::string_view field);

// What the model counts (the kernel gauges k*).
struct KmdCounters {
  int64_t submits = 0;            // packets the ring accepted
  int64_t refused = 0;            // submits refused: no ring space within submit_timeout_ns
  int64_t ring_waits = 0;         // submits that waited for ring space
  int64_t ring_wait_ns = 0;       // time they waited
  int64_t ring_peak = 0;          // most dwords in the ring at once
  int64_t doorbells_lost = 0;     // writes that did not reach the engine (not written, merged, asleep, waking)
  int64_t doorbell_rewrites = 0;  // read back, found stale, rewritten
  int64_t kicks = 0;              // rings again by a waiter that found the engine idle with work queued
  int64_t waits = 0;
  int64_t wait_timeouts = 0;
  int64_t fence_regressions = 0;  // a fence write that went backwards
  int64_t magic_caught = 0;       // half-written packets the header magic caught before the tail moved
  int64_t stale_reads = 0;        // packets the engine decoded before their bytes landed
  int64_t clobbered = 0;          // unconsumed packets a submitter wrote over
  int64_t uaf = 0;                // command buffers the engine read after they were recycled
  int64_t recycled = 0;
  int64_t sleeps = 0;  // engine power-downs
  int64_t wakes = 0;
  int64_t busy_ns = 0;  // engine time spent executing
};

// --- The model ------------------------------------------------------------------------------

namespace diagnosis {
struct Observation;  // what diagnose() concludes from: kernel/diagnosis.h, private to kernel/
}

class SubmissionModel {
 public:
  explicit SubmissionModel(KmdConfig config = {}, MutantId mutant = MutantId::None);

  // A submit ioctl of `commands` (a fence write is appended): costs submit_cpu_ns, waits for
  // ring space, writes the packet, moves the tail, rings. Returns the fence value the packet
  // writes, or nullopt when the ring stayed full past submit_timeout_ns (-EBUSY).
  std::optional<uint64_t> submit(const std::vector<Command>& commands);
  // The faults the next submit carries.
  void arm(const SubmitFaults& faults) { armed_ = faults; }
  // Virtual time passes: the engine executes, powers down, completes.
  void advance(uint64_t ns);
  // A waiter sleeps until the driver has seen fence >= `fence` or `timeout_ns` passes.
  bool wait(uint64_t fence, uint64_t timeout_ns);
  // A frame boundary: deferred recycling counts frames; per-frame statistics restart.
  void frame();
  // Another engine signals a semaphore (a semaphore_wait on it can go on).
  void signal(uint64_t semaphore);
  // The waiter's recovery: if the engine sits with work the doorbell never announced, wake it
  // (waiting for the wake) and ring again. True when it rang.
  bool kick();
  // Watches for probe_ns (time passes) and says what the registers show.
  Diagnosis diagnose();
  // The watch alone: the registers and what the diagnosis table's rows read (diagnose() is
  // diagnosis::conclude(observe())). Counts as a diagnosis: the next sees only what happened since.
  diagnosis::Observation observe();

  // The backend's queue submit: one packet of one draw of backend_cost_ns.
  std::optional<uint64_t> submit_backend() { return submit({Command{CommandKind::Draw, config_.backend_cost_ns, 0}}); }

  uint64_t now() const { return now_; }
  uint64_t fence() const { return fence_; }                // in memory
  uint64_t seen_fence() const { return seen_; }            // what the driver has seen (after the interrupt)
  uint64_t last_fence() const { return next_fence_ - 1; }  // the last fence handed out
  uint32_t head() const;
  uint32_t tail() const { return tail_; }
  uint32_t doorbell_register() const { return doorbell_; }
  uint32_t ring_used() const;
  std::string_view engine_state() const;
  int64_t command_buffers_kept() const;  // completed, not yet recycled
  const KmdCounters& counters() const { return counters_; }
  const KmdConfig& config() const { return config_; }
  // Lines the model logged about faults it saw (stale reads, magic catches, use-after-free).
  // The first kMaxKeptRecords findings (the diagnosis reads the latest, kept apart).
  const std::vector<std::string>& findings() const { return findings_; }
  size_t semaphores_signalled() const { return signalled_.size(); }
  bool is_signalled(uint64_t semaphore) const { return signalled_.contains(semaphore); }

 private:
  enum class Power { Awake, Waking, Asleep };
  enum class BufferState { Created, Submitted, Queued, Executing, Completed, Recycled };
  struct Packet {
    uint64_t fence = 0;
    uint32_t start = 0;  // dword offset of its header
    uint32_t dwords = 0;
    uint32_t pad = 0;  // dwords skipped at the ring's end before it (a wrap)
    std::vector<Command> commands;
    bool fence_unwritable = false;
    uint64_t visible_at = 0;  // its bytes are in memory from then on
    bool clobbered = false;
  };
  struct CommandBuffer {
    BufferState state = BufferState::Created;
    uint64_t fence = 0;
    uint64_t completed_frame = 0;
    uint64_t recycled_at = 0;
    bool uaf_reported = false;
  };

  uint32_t free_dwords() const;
  uint64_t after(uint64_t ns) const;  // now + ns, saturating
  bool has_announced_work() const;    // the front packet lies before the doorbell the engine latched
  bool blocked_at_head() const;       // a semaphore not yet signalled, or a command the engine stops on
  void ring_doorbell(DoorbellFault fault);
  void deliver_doorbell(uint32_t value, uint64_t fence);
  void wake_and_wait();
  // Runs the engine until `until`, or until `stop` holds (checked before each event).
  template <class Stop>
  void run_until(uint64_t until, Stop stop);
  // The next moment something happens, or nullopt when nothing will without outside help.
  std::optional<uint64_t> next_event() const;
  void step_to(uint64_t at);
  void write_fence(const Packet& packet);
  CommandBuffer& buffer_of(uint64_t fence) { return buffers_[fence - first_buffer_fence_]; }
  void touch_buffer(uint64_t fence);
  void recycle(CommandBuffer& buffer);
  std::string describe_at_head() const;

  KmdConfig config_;
  MutantId mutant_;
  uint64_t now_ = 0;
  Power power_ = Power::Awake;
  uint64_t ready_at_ = 0;  // when Waking ends
  uint64_t idle_since_ = 0;
  uint32_t tail_ = 0;      // the driver's
  uint32_t doorbell_ = 0;  // what the engine latched (and the register reads back)
  std::optional<std::pair<uint32_t, uint64_t>>
      merged_;  // a doorbell write (value, fence) held in a write-combining buffer
  SubmitFaults armed_;
  std::deque<Packet> ring_;  // packets not fully consumed, oldest first
  uint64_t announced_ = 0;   // the last fence whose packet the latched doorbell covers
  size_t at_command_ = 0;    // the front packet's command the engine is on (commands.size(): the fence write)
  bool fetched_ = false;     // the front packet's header has been read
  bool command_started_ = false;
  uint64_t command_done_at_ = 0;
  uint64_t progress_ = 0;  // commands finished and fences written: what "the head moves" means
  std::unordered_set<uint64_t> signalled_;
  uint64_t next_fence_ = 1;
  uint64_t fence_ = 0;
  uint64_t seen_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>> interrupts_;  // (when, fence value)
  std::deque<CommandBuffer> buffers_;                     // by fence, from first_buffer_fence_
  uint64_t first_buffer_fence_ = 1;
  uint64_t completed_cursor_ = 0;  // buffers up to this fence have been marked completed
  uint64_t frame_ = 0;
  uint64_t frame_started_ = 0;
  int64_t frame_submits_ = 0;
  int64_t frame_busy_ns_ = 0;
  int64_t frame_ring_waits_ = 0;
  KmdCounters diagnosed_;  // the counters when the last diagnosis looked
  KmdCounters counters_;
  std::vector<std::string> findings_;
  std::string last_finding_;
  void found(std::string finding);
};

}  // namespace tidemark::kernel
