// The kernel model's plain types, as the client API, the wire and scenarios name them: the
// submission path's and kgsl's configuration, the scripted operations and their report, the
// gpu_mem tracepoint's event and the reader's attach script. The models themselves live in
// kernel/; these are here so that naming them needs no model.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>
#include <vector>

namespace tidemark::kernel {

// --- The gpu_mem tracepoint and its reader ---------------------------------------------------

struct GpuMemTotalEvent {
  uint32_t gpu_id = 0;
  uint32_t pid = 0;   // 0: the GPU's global total
  uint64_t size = 0;  // the new total after the change, never a delta
  static auto fields(auto& m) { return std::tie(m.gpu_id, m.pid, m.size); }
  auto operator<=>(const GpuMemTotalEvent&) const = default;
};

// How attaching to the tracepoint goes: fail this many times, then succeed (or never).
struct AttachScript {
  uint32_t failures = 0;
  bool stop_requested = false;  // the service is stopping: give up at the first failure
  static auto fields(auto& m) { return std::tie(m.failures, m.stop_requested); }
};

// --- The submission path --------------------------------------------------------------------

enum class CommandKind : uint8_t { Draw, SemaphoreWait, BadAddress, BadOpcode };
inline constexpr std::string_view kCommandKindNames[] = {"draw", "semaphore_wait", "bad_address", "bad_opcode"};

struct Command {
  CommandKind kind = CommandKind::Draw;
  uint64_t cost_ns = 1'000;  // engine time once it runs
  uint64_t arg = 0;          // the semaphore, the faulting address or the opcode
  static auto fields(auto& m) { return std::tie(m.kind, m.cost_ns, m.arg); }
  bool operator==(const Command&) const = default;
};

enum class DoorbellFault : uint8_t { None, NotWritten, Merged };
inline constexpr std::string_view kDoorbellFaultNames[] = {"none", "not_written", "merged"};

// Faults armed for the next submit (a scripted one or the backend's).
struct SubmitFaults {
  bool half_written = false;  // no completeness barrier: a wrapped packet's bytes land late
  DoorbellFault doorbell = DoorbellFault::None;
  bool fence_unwritable = false;  // the fence write targets a read-only page
  static auto fields(auto& m) { return std::tie(m.half_written, m.doorbell, m.fence_unwritable); }
  bool operator==(const SubmitFaults&) const = default;
};

// What the driver does about power before ringing: wake the engine and wait until it is up
// (runtime-PM get), start the wake and ring at once (the doorbell lands inside the wake
// window), or nothing (a doorbell to a sleeping engine is a posted write that goes nowhere).
enum class PowerPolicy : uint8_t { Wait, Race, Off };
inline constexpr std::string_view kPowerPolicyNames[] = {"wait", "race", "off"};

struct KmdConfig {
  uint32_t ring_dwords = 4096;
  uint64_t idle_timeout_ns = 5'000'000;  // the engine powers down after this long with nothing to do
  uint64_t wake_ns = 200'000;            // waking takes tens to hundreds of microseconds
  PowerPolicy power = PowerPolicy::Wait;
  bool doorbell_readback = true;             // write, read back, rewrite (after a wake) when it did not land
  bool magic_check = true;                   // the header magic is checked before the tail moves
  uint32_t recycle_frames = 2;               // frames a completed command buffer is kept before reuse
  uint64_t submit_cpu_ns = 5'000;            // driver time of one submit ioctl
  uint64_t irq_ns = 10'000;                  // fence write -> the driver sees the completion interrupt
  uint64_t late_write_ns = 50'000;           // a half-written packet's bytes land this long after the tail moved
  uint64_t submit_timeout_ns = 100'000'000;  // a submitter waits this long for ring space, then -EBUSY
  uint64_t backend_cost_ns = 2'000;          // engine time of one backend queue submit
  uint64_t probe_ns = 1'000'000;             // how long a diagnosis watches the head
  uint32_t tiny_submits = 1'000;             // submits in one frame that make it "thousands of tiny submits"
  static auto fields(auto& m) {
    return std::tie(m.ring_dwords, m.idle_timeout_ns, m.wake_ns, m.power, m.doorbell_readback, m.magic_check,
                    m.recycle_frames, m.submit_cpu_ns, m.irq_ns, m.late_write_ns, m.submit_timeout_ns,
                    m.backend_cost_ns, m.probe_ns, m.tiny_submits);
  }
  bool operator==(const KmdConfig&) const = default;
};

// The smallest and largest ring a scenario may ask for (a packet must fit; the model keeps one
// record per packet in flight).
inline constexpr uint32_t kMinRingDwords = 32;
inline constexpr uint32_t kMaxRingDwords = 1u << 20;
inline constexpr size_t kMaxCommandsPerSubmit = 1024;

// What an observer concludes from head, tail, the doorbell register, the fence and the
// command at head (watched for `probe_ns`), in the terms of the spec's fault table.
struct Diagnosis {
  std::string scene;  // healthy, half_written, doorbell_lost, heavy_work, stuck_command, fence_unwritable, cpu_bound
  uint32_t head = 0;  // dword offsets in the ring
  uint32_t tail = 0;
  uint32_t doorbell = 0;  // what reading the register returns
  uint64_t fence = 0;     // the fence's value in memory
  uint64_t awaited = 0;   // the fence the last submitted packet writes
  bool head_moved = false;
  std::string at_head;  // the command at head: "draw", "semaphore_wait 3", "bad_address 0xdead000", ... or "nothing"
  std::string engine;   // awake, waking, asleep
  std::string finding;  // one line: what the evidence says
  std::string remedy;   // the spec's remedy for the scene
  static auto fields(auto& m) {
    return std::tie(m.scene, m.head, m.tail, m.doorbell, m.fence, m.awaited, m.head_moved, m.at_head, m.engine,
                    m.finding, m.remedy);
  }
  bool operator==(const Diagnosis&) const = default;
};
inline constexpr std::string_view kDiagnosisFields[] = {
    "scene", "head", "tail", "doorbell", "fence", "awaited", "head_moved", "at_head", "engine", "finding", "remedy"};

// --- kgsl -----------------------------------------------------------------------------------

struct KgslConfig {
  // UPDATE_BUSY_VAL: the msm-4.14 source (kgsl_pwrctrl.c) moves the accumulators to busy_old/
  // total_old once total reaches 1 000 000 us; seed 002 says 1 ms. The source is the default.
  uint64_t update_busy_us = 1'000'000;
  // The devfreq frequency table, [0] the maximum: Adreno 640's (SM8150, an msm-4.14 SoC).
  // Must be non-empty with a non-zero first entry. An empty table or a zero [0] is read as
  // "every sample ran at the maximum": busy is then accumulated unscaled, never divided by 0.
  std::vector<uint64_t> freq_table_hz = {585'000'000, 499'200'000, 427'000'000, 345'000'000, 257'000'000};
  std::string device_name = "kgsl-3d0";
  static auto fields(auto& m) { return std::tie(m.update_busy_us, m.freq_table_hz, m.device_name); }
  bool operator==(const KgslConfig&) const = default;
};

// --- The scripted operations and what they produced ------------------------------------------

struct KmdSubmitOp {
  std::vector<Command> commands;
  SubmitFaults faults;  // this submit's own faults (added to any armed with KmdFaultOp)
  static auto fields(auto& m) { return std::tie(m.commands, m.faults); }
};
struct KmdAdvanceOp {
  uint64_t ns = 0;
  static auto fields(auto& m) { return std::tie(m.ns); }
};
struct KmdWaitOp {
  uint64_t fence = 0;
  uint64_t timeout_ns = 0;
  static auto fields(auto& m) { return std::tie(m.fence, m.timeout_ns); }
};
struct KmdFrameOp {
  static auto fields(auto&) { return std::tie(); }
};
struct KmdSignalOp {
  uint64_t semaphore = 0;
  static auto fields(auto& m) { return std::tie(m.semaphore); }
};
// The driver runs two queues, each its own ring, engine and fence: the scene's, which scripted
// submits, waits and signals use, and the backend's, which carries the backend's queue submits.
// Time and frames pass on both.
enum class Queue : uint8_t { Scene, Backend };
inline constexpr std::string_view kQueueNames[] = {"scene", "backend"};

// Faults for the next submit on a queue.
struct KmdFaultOp {
  SubmitFaults faults;
  Queue queue = Queue::Scene;
  static auto fields(auto& m) { return std::tie(m.faults, m.queue); }
};
struct KmdDiagnoseOp {
  std::string name;
  Queue queue = Queue::Scene;
  static auto fields(auto& m) { return std::tie(m.name, m.queue); }
};
struct KgslSampleOp {
  uint64_t busy_us = 0;
  uint64_t total_us = 0;
  uint64_t freq_hz = 0;
  static auto fields(auto& m) { return std::tie(m.busy_us, m.total_us, m.freq_hz); }
};
struct KgslPowerOp {
  bool axi_on = true;
  static auto fields(auto& m) { return std::tie(m.axi_on); }
};
enum class KgslNode : uint8_t { Gpubusy, GpuLoad, TracePipe };
inline constexpr std::string_view kKgslNodeNames[] = {"gpubusy", "gpu_load", "trace_pipe"};
struct KgslReadOp {
  KgslNode node = KgslNode::Gpubusy;
  std::string name;
  static auto fields(auto& m) { return std::tie(m.node, m.name); }
};

using KernelOp = std::variant<KmdSubmitOp, KmdAdvanceOp, KmdWaitOp, KmdFrameOp, KmdSignalOp, KmdFaultOp, KmdDiagnoseOp,
                              KgslSampleOp, KgslPowerOp, KgslReadOp>;

// What the named operations produced; a name used again keeps its latest result.
struct NamedDiagnosis {
  std::string name;
  Diagnosis diagnosis;
  static auto fields(auto& m) { return std::tie(m.name, m.diagnosis); }
  bool operator==(const NamedDiagnosis&) const = default;
};
struct NamedRead {
  std::string name;
  std::string text;
  static auto fields(auto& m) { return std::tie(m.name, m.text); }
  bool operator==(const NamedRead&) const = default;
};
struct KernelReport {
  std::vector<NamedDiagnosis> diagnoses;
  std::vector<NamedRead> reads;
  static auto fields(auto& m) { return std::tie(m.diagnoses, m.reads); }
  bool operator==(const KernelReport&) const = default;
};

}  // namespace tidemark::kernel
