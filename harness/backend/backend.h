// The client API of the harness: GL-buffer semantics — buffer records and stores,
// respecify/sub-data, draws into an offscreen RGBA8 target, fences and waits, gauges.
// Backend::create makes the real one, a Vulkan backend on Mesa lavapipe with reclaim by
// proof; the wire's client implements the same API over a session to a server.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "core/image.h"
#include "core/knobs.h"
#include "core/mutants.h"
#include "core/wait_status.h"
#include "kernel/driver.h"
#include "kernel/gpu_mem.h"
#include "tracer/run_trace.h"

namespace tidemark::backend {

// The backend's own GPU counter tracks in every run trace (interned for GPU 0), as the importer
// labels them: trace checks and reconciliation select them by these names.
inline constexpr std::string_view kDeviceBytesTrack = "Device bytes (gpu 0)";
inline constexpr std::string_view kMapEntryTrack = "Map entry (gpu 0)";

struct Knobs {
  uint32_t wire_deferred_mb = 64;  // 0 turns both reclaim watermarks off
  uint32_t retire_lag = 0;         // after each submit, wait for the one this many earlier
};

// The backend's knobs from resolved knob values (every known knob present).
Knobs knobs_from(const KnobValues& values);

struct Config {
  int width = 64;
  int height = 64;
  // The kernel model beside the backend: whose device memory it is, on which GPU.
  uint32_t kernel_pid = 1000;
  uint32_t kernel_gpu = 0;
  bool kernel_reports = true;  // false: the backend's memory is not reported (a driver without the tracepoint)
  kernel::KmdConfig kmd;        // the kernel driver's submission path the backend's queue submits pass through
  kernel::KgslConfig kgsl;
  tracer::MemorySource trace_memory = tracer::MemorySource::Both;  // the run trace's GPU-memory sources
  Knobs knobs;
  bool validation = false;  // enable VK_LAYER_KHRONOS_validation and count its messages
  MutantId mutant = MutantId::None;  // red-once: the fault switch this backend runs with
  std::function<void(const std::string&)> log;  // gauge lines and notes; may be empty
};

using BufferId = uint32_t;
using FenceId = uint32_t;

struct Rect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, x1/y1 exclusive
};

struct DrawCall {
  BufferId uniform = 0;   // the first 4 bytes of its store are the RGBA8 colour
  BufferId vertices = 0;  // 0: none; else the first 8 bytes of its store, a float2 offset
  Rect rect;
};

class Backend {
 public:
  // Environment errors name the missing package (mesa-vulkan-drivers, vulkan-validationlayers).
  static Result<std::unique_ptr<Backend>> create(const Config& config);
  virtual ~Backend() = default;

  virtual Result<BufferId> create_buffer() = 0;
  // Orphans the current store (reclaim by proof) and mints a new one holding `data`;
  // an empty `data` with size 0 leaves the record without a store.
  virtual Status buffer_data(BufferId buffer, std::span<const uint8_t> data) = 0;
  // Host write when the store is idle, a staged GPU copy when the GPU may still read it.
  virtual Status buffer_sub_data(BufferId buffer, uint64_t offset,
                                 std::span<const uint8_t> data) = 0;
  virtual Status draw(const DrawCall& call) = 0;
  virtual Result<FenceId> fence_sync() = 0;
  // Deterministic: timeout 0 never looks at the GPU; a positive timeout waits until the
  // fence's batch retires (a device that never finishes is a fatal error, not a timeout).
  virtual Result<WaitStatus> client_wait(FenceId fence, bool flush, uint64_t timeout_ns) = 0;
  virtual Status flush() = 0;
  virtual Status finish() = 0;
  // Frame boundary: submits, waits for the frame, sweeps, rewinds descriptor sets.
  virtual Status present() = 0;
  virtual Result<Image> read_pixels() = 0;
  virtual Result<Gauges> gauges() = 0;
  // Messages from VK_LAYER_KHRONOS_validation so far (empty unless Config::validation).
  virtual Result<std::vector<std::string>> validation_messages() = 0;

  // A pipelined backend (the wire's client) may return OK from a call without a value and
  // report its failure from a later call, at most kMaxPipelinedCalls calls later, with
  // Error::calls_after saying how far back it was. drain() reports any such failure now;
  // the Vulkan backend carries every call out at once and has nothing to drain.
  static constexpr uint32_t kMaxPipelinedCalls = 4096;
  virtual Status drain() { return {}; }

  // The kernel model that lives beside the backend (on the server in the wire lanes): the
  // backend reports its device memory to it as Config::kernel_pid; a scenario can also write
  // tracepoint events and allocate or free by hand, and read the model's gauges.
  virtual Status kernel_event(const kernel::GpuMemTotalEvent& event) = 0;
  virtual Status kernel_allocate(uint32_t gpu, uint32_t pid, kernel::MemoryType type, uint64_t id,
                                 uint64_t size) = 0;
  virtual Status kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) = 0;
  virtual Result<KernelGauges> kernel_gauges() = 0;
  // The GpuMem reader: initialise it with a scripted attach, dump the map, read a per-type node.
  virtual Status kernel_attach(const kernel::AttachScript& script) = 0;
  virtual Result<std::string> kernel_dump() = 0;
  virtual Result<std::optional<std::string>> kernel_node(uint32_t pid, kernel::MemoryType type) = 0;
  // A first-key/next-key walk while the program updates the map: `updates[k]` are the
  // tracepoint hits that land at walk step k (before step k's read). Its counts are gauges.
  virtual Status kernel_walk(const std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>>& updates) = 0;
  // One sample of the scenario pid's map entry, as `dumpsys gpu --gpumem` run at that moment:
  // a leak claim needs samples before, during and after the scene, and a stable window.
  virtual Status kernel_sample() = 0;

  // The kernel driver's submission path and kgsl statistics (pipelined), and what their named
  // operations produced. The backend's own queue submits go through the same ring: each is one
  // packet whose fence the backend must see before it counts the submit retired (see
  // submissions.h), so a kernel fault shows in the backend's waits and reclaim too.
  virtual Status kernel_op(const kernel::KernelOp& op) = 0;
  virtual Result<kernel::KernelReport> kernel_report() = 0;

  // The run's Perfetto trace so far (tracer/run_trace.h): GPU memory from the kernel model
  // and the backend's gauges as counters, in the kernel model's virtual time.
  virtual Result<std::string> run_trace() = 0;
  // A scenario's own GPU counter stream in that trace: its descriptor, then its samples.
  virtual Status trace_op(const tracer::TraceOp& op) = 0;
};

}  // namespace tidemark::backend
