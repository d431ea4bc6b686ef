// The model host: the oracle beside a backend, owned by the session (on the server in the
// wire lanes). It holds the GPU-memory model, the kernel driver, the run trace and the
// scenario's samples; the device reports what it does through api::DeviceEvents and the
// host turns that into tracepoint events, map updates, ring packets and trace samples. A
// scenario's model steps (api::Model) land here too. The host judges whatever device sits
// beside it — the built-in reclaim model or a real driver — the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/device.h"
#include "api/model.h"
#include "core/mutants.h"
#include "kernel/driver.h"
#include "kernel/gpu_memory.h"
#include "tracer/run_trace.h"

namespace tidemark::host {

// What reaches a host from beneath it: the device's events and, with the layer on, the
// layer's samples. The host itself and its thread (host_thread.h) take them alike.
class HostEvents : public api::DeviceEvents {
 public:
  // The layer's gauges after a submit, as counter tracks in the run trace.
  virtual void observed_sample(const ObservedGauges& gauges) = 0;
};

class ModelHost final : public HostEvents, public api::Model {
 public:
  // How the Tidemark layer stands beneath the device.
  enum class Layer {
    Off,
    Counts,   // beneath a device that reports itself: its gauges become trace tracks
    Reports,  // the device's report (a real driver's): its samples also carry the map's entry,
              // the points at which reconciliation compares its bytes with the map and the trace
  };
  ModelHost(const api::ModelConfig& config, MutantId mutant, Layer layer = Layer::Off);

  // Where observed_gauges() reads the layer's counts (the session's attachment).
  void observe_from(std::function<ObservedGauges()> layer) { layer_ = std::move(layer); }
  void wire_from(std::function<NamedGauges()> wire) { wire_ = std::move(wire); }
  // What a driver's renderer server recorded (its layer's events, its wire's), fed into this host
  // at the run's read-back: when the wire's gauges are read, after the client's read-back round
  // trip (its commands flushed, the server's answer in), never at a moment of the server's own.
  void read_back_from(std::function<Status(ModelHost&)> feed) { read_back_ = std::move(feed); }
  uint32_t kernel_pid() const { return config_.kernel_pid; }
  // Into the run trace, stamped now: a track's descriptor, an instant on a track, and the
  // layer's count of device memory bytes beside the map's entry (a server layer's sample at a
  // submit, the other layer tracks left without rows).
  void trace_track(const tracer::TrackDescriptor& track);
  void trace_instant(uint64_t track_uuid, std::string_view name, std::span<const tracer::TrackEventArgument> arguments);
  void layer_bytes_sample(int64_t vkbytes);
  // HostEvents
  void observed_sample(const ObservedGauges& gauges) override;
  void memory_changed(const api::MemoryChange& change) override;
  uint64_t queue_submitted() override;
  bool retired(uint64_t fence) const override;
  void wait_retired(uint64_t fence, uint64_t budget_ns) override;
  bool kick() override;
  std::string queue_state() const override;
  void frame() override;
  void sample(const api::DeviceCounters& counters) override;
  void started(const api::DeviceCounters& counters) override;

  // api::Model: every call of the table's model half (api/calls.yaml), each carried out in
  // model_host.cpp.
  TIDEMARK_MODEL_CALLS_OVERRIDDEN

  // The run trace written to `file` where it lies (RunTrace::save): a process's observation
  // neither reads its trace back nor copies it.
  Status save_run_trace(const std::filesystem::path& file);

 private:
  kernel::SubmissionModel& device_queue() { return driver_.queue(kernel::Queue::Backend); }
  const kernel::SubmissionModel& device_queue() const { return driver_.queue(kernel::Queue::Backend); }
  int64_t map_entry() const;  // the map's value for the scenario's pid (0: no entry)
  uint64_t trace_now();
  void snapshot_memory(uint64_t start, uint64_t spacing);

  api::ModelConfig config_;
  MutantId mutant_;
  kernel::GpuMemoryModel memory_;
  kernel::KernelDriver driver_;
  std::optional<tracer::RunTrace> trace_;  // started once the device is up
  std::optional<uint64_t> last_trace_ts_;
  int64_t breaks_ = 0;  // device changes after which its claim, the map's entry and the views disagreed
  // gpumem_sample: the samples' count, first, last and trailing run of the last value, kept as
  // they come (a long scene's samples need no list).
  struct {
    int64_t count = 0, first = 0, last = 0, stable = 0;
  } samples_;
  struct {
    int64_t walked = 0, mixed = 0, cut = 0;
  } walk_;
  Layer layer_on_ = Layer::Off;
  std::function<ObservedGauges()> layer_;
  std::function<NamedGauges()> wire_;
  std::function<Status(ModelHost&)> read_back_;
  // What the device reported of all its memory (target included): live and peak.
  struct {
    int64_t allocs = 0, allocspk = 0, bytes = 0, bytespk = 0;
  } claim_;
};

}  // namespace tidemark::host
