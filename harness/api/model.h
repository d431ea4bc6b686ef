// The model half of the client API: what a scenario asks of the oracle beside the device —
// the kernel model (GPU-memory tracepoint, map, reader, views; the driver's submission path
// and kgsl statistics) and the run's Perfetto trace, its calls declared in api/calls.yaml. The
// model host implements it (on the server in the wire lanes); the wire's client implements it
// over a session.
#pragma once

#include <string_view>
#include <tuple>

#include "calls/api.h"  // ModelCalls, generated from api/calls.yaml

namespace tidemark::api {

// The device's own GPU counter tracks in every run trace (interned for GPU 0), as the importer
// labels them: trace checks and reconciliation select them by these names.
inline constexpr std::string_view kDeviceBytesTrack = "Device bytes (gpu 0)";
inline constexpr std::string_view kMapEntryTrack = "Map entry (gpu 0)";
// The layer's count of device memory bytes (a session with the layer on).
inline constexpr std::string_view kLayerBytesTrack = "Vulkan bytes (gpu 0)";

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

// The model: the calls of api/calls.yaml's model half.
class Model : public ModelCalls {};

}  // namespace tidemark::api
