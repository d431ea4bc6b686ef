// The model half of the client API: what a scenario asks of the oracle beside the device —
// the kernel model (GPU-memory tracepoint, map, reader, views; the driver's submission path
// and kgsl statistics) and the run's Perfetto trace. The model host implements it (on the
// server in the wire lanes); the wire's client implements it over a session.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/counters.h"
#include "core/gauges.h"
#include "core/kernel_types.h"
#include "core/memory_type.h"
#include "core/trace_memory.h"

namespace tidemark::api {

// The device's own GPU counter tracks in every run trace (interned for GPU 0), as the importer
// labels them: trace checks and reconciliation select them by these names.
inline constexpr std::string_view kDeviceBytesTrack = "Device bytes (gpu 0)";
inline constexpr std::string_view kMapEntryTrack = "Map entry (gpu 0)";
// The layer's count of device memory bytes (a session with the layer on).
inline constexpr std::string_view kLayerBytesTrack = "Vulkan bytes (gpu 0)";

// (walk step, the tracepoint hit that lands before that step's read)
using WalkUpdates = std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>>;

// What the model host is told at the handshake.
struct ModelConfig {
  uint32_t kernel_pid = 1000;  // whose device memory the kernel model sees
  uint32_t kernel_gpu = 0;
  bool kernel_reports = true;  // false: the device's memory is not reported (a driver without the tracepoint)
  kernel::KmdConfig kmd;       // the submission path the device's queue submits pass through
  kernel::KgslConfig kgsl;
  tracer::MemorySource trace_memory = tracer::MemorySource::Both;  // the run trace's GPU-memory sources
  static auto fields(auto& m) {
    return std::tie(m.kernel_pid, m.kernel_gpu, m.kernel_reports, m.kmd, m.kgsl, m.trace_memory);
  }
  bool operator==(const ModelConfig&) const = default;
};

class Model {
 public:
  virtual ~Model() = default;
  // The GPU-memory model: tracepoint events and allocations written by hand, its gauges.
  virtual Status kernel_event(const kernel::GpuMemTotalEvent& event) = 0;
  virtual Status kernel_allocate(uint32_t gpu, uint32_t pid, MemoryType type, uint64_t id, uint64_t size) = 0;
  virtual Status kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) = 0;
  virtual Result<KernelGauges> kernel_gauges() = 0;
  // What the Tidemark layer saw beneath the device, beside what the device claimed (a session
  // with the layer on; zeros otherwise).
  virtual Result<ObservedGauges> observed_gauges() = 0;
  // What the tap on the driver's client/server wire decoded (kWireGauges, then commands by kind);
  // empty when the session's driver has no tapped wire.
  virtual Result<NamedGauges> wire_gauges() = 0;
  // The GpuMem reader: initialise it with a scripted attach, dump the map, read a per-type node.
  virtual Status kernel_attach(const kernel::AttachScript& script) = 0;
  virtual Result<std::string> kernel_dump() = 0;
  virtual Result<std::optional<std::string>> kernel_node(uint32_t pid, MemoryType type) = 0;
  // A first-key/next-key walk while the program updates the map. Its counts are gauges.
  virtual Status kernel_walk(const WalkUpdates& updates) = 0;
  // One sample of the scenario pid's map entry, as `dumpsys gpu --gpumem` run at that moment.
  virtual Status kernel_sample() = 0;
  // The kernel driver's submission path and kgsl statistics, and what their named
  // operations produced.
  virtual Status kernel_op(const kernel::KernelOp& op) = 0;
  virtual Result<kernel::KernelReport> kernel_report() = 0;
  // The run's Perfetto trace so far (a view, valid until the next call on this model: a long
  // run's trace is megabytes, never copied on its way), and a scenario's own counter stream in it.
  virtual Result<std::string_view> run_trace() = 0;
  // trace_hash() of run_trace()'s bytes, without them: what a replay compares and digests.
  virtual Result<std::string> run_trace_hash() = 0;
  virtual Status trace_op(const tracer::TraceOp& op) = 0;
};

}  // namespace tidemark::api
