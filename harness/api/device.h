// The device half of the client API: GL-buffer semantics (buffer records and their stores,
// respecify and sub-data, draws into an offscreen RGBA8 target, fences and waits, read-back,
// gauges), its calls declared in api/calls.yaml. A backend implements Device; the wire's client
// implements it over a session.
// What a device does underneath (memory, queue submits, frames) it reports to DeviceEvents,
// which the model host beside it implements: the backend never hosts its own oracle.
// Nothing here knows Vulkan, GL, the kernel model or the tracer.
#pragma once

#include <optional>
#include <string>

#include "calls/api.h"  // DeviceCalls, generated from api/calls.yaml

namespace tidemark::api {

// A device: the calls of api/calls.yaml's device half, and what a device says of itself.
class Device : public DeviceCalls {
 public:
  // The driver as it names itself (a real driver's version and renderer, and the build it was
  // held to); empty for a device that is its own model. A run keeps it as its `driver`.
  virtual std::string driver() const { return {}; }
  // What the driver beneath reports of itself, for a driver build's identity
  // (drivers/driver_builds.h): a field the device cannot read is absent.
  struct Identity {
    std::optional<std::string> gl_version, gl_renderer;
    std::optional<std::string> vulkan_driver;  // "NAME INFO (DEVICE)"; "": the layer could not tell
  };
  virtual Identity identity() const { return {}; }

  // A pipelined device (the wire's client) may return OK from a call without a value and
  // report its failure from a later call, at most kMaxPipelinedCalls calls later, with
  // Error::calls_after saying how far back it was; drain() reports any such failure now.
  static constexpr uint32_t kMaxPipelinedCalls = 4096;
  virtual Status drain() { return {}; }
};

// One change of the device memory a backend holds.
struct MemoryChange {
  bool allocated = true;  // false: freed
  MemoryType type = MemoryType::Unknown;
  uint64_t id = 0;  // the backend's own allocation id, unique while live
  uint64_t size = 0;
  // What the backend says it holds after this change (its device-bytes gauge plus memory
  // outside the gauges, such as its target): the host reconciles the kernel's map against it.
  int64_t claimed_bytes = 0;
  // False: the driver's tracepoint did not fire for this change (a fault); only the claim moves.
  bool traced = true;
  // In the device-bytes gauge: the host reconciles its map against the claim after each such
  // change (memory outside the gauges, like the target, is reported but not reconciled then).
  bool counted = true;
};

// The counters a backend exposes as trace tracks, sampled at the moments it chooses (each
// queue submit, after a sweep, each present).
struct DeviceCounters {
  int64_t live_stores = 0;
  int64_t parked_bytes = 0;
  int64_t forced_syncs = 0;
  int64_t descriptor_sets = 0;
  int64_t device_bytes = 0;
};

// What the device does, told to the model host. Calls come in the order they happen; the
// host stamps them on one virtual clock.
class DeviceEvents {
 public:
  virtual ~DeviceEvents() = default;
  virtual void memory_changed(const MemoryChange& change) = 0;
  // A queue submit, as one packet in the kernel driver's ring: its kernel fence, 0 if the
  // ring refused it. A submit counts as retired only once retired(fence) says so.
  virtual uint64_t queue_submitted() = 0;
  // Whether the driver has seen `fence` (its completion interrupt came).
  virtual bool retired(uint64_t fence) const = 0;
  // Lets the kernel's virtual time run, up to `budget_ns`, until the driver has seen `fence`.
  virtual void wait_retired(uint64_t fence, uint64_t budget_ns) = 0;
  // The driver's recovery for work the engine was never told of: rings again; true if it did.
  virtual bool kick() = 0;
  // The kernel queue's registers, for a fatal message.
  virtual std::string queue_state() const = 0;
  virtual void frame() = 0;
  virtual void sample(const DeviceCounters& counters) = 0;
  // The device is up: what it reported so far is its start-up state; the run trace begins
  // here with this first sample.
  virtual void started(const DeviceCounters& counters) = 0;
};

}  // namespace tidemark::api
