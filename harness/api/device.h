// The device half of the client API: GL-buffer semantics (buffer records and their stores,
// respecify and sub-data, draws into an offscreen RGBA8 target, fences and waits, read-back,
// gauges). A backend implements Device; the wire's client implements it over a session.
// What a device does underneath (memory, queue submits, frames) it reports to DeviceEvents,
// which the model host beside it implements: the backend never hosts its own oracle.
// Nothing here knows Vulkan, GL, the kernel model or the tracer.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "core/image.h"
#include "core/memory_type.h"
#include "core/wait_status.h"

namespace tidemark::api {

using BufferId = uint32_t;
using FenceId = uint32_t;

struct Rect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, x1/y1 exclusive
  static auto fields(auto& m) { return std::tie(m.x0, m.y0, m.x1, m.y1); }
  bool operator==(const Rect&) const = default;
};

struct DrawCall {
  BufferId uniform = 0;   // the first 4 bytes of its store are the RGBA8 colour
  BufferId vertices = 0;  // 0: none; else the first 8 bytes of its store, a float2 offset
  Rect rect;
  static auto fields(auto& m) { return std::tie(m.uniform, m.vertices, m.rect); }
  bool operator==(const DrawCall&) const = default;
};

class Device {
 public:
  virtual ~Device() = default;

  virtual Result<BufferId> create_buffer() = 0;
  // Orphans the current store and gives the record a new one holding `data`; an empty
  // `data` leaves the record without a store.
  virtual Status buffer_data(BufferId buffer, std::span<const uint8_t> data) = 0;
  // Into the live store: what the GPU may still read must not change under it.
  virtual Status buffer_sub_data(BufferId buffer, uint64_t offset, std::span<const uint8_t> data) = 0;
  virtual Status draw(const DrawCall& call) = 0;
  virtual Result<FenceId> fence_sync() = 0;
  // Deterministic: timeout 0 never looks at the GPU; a positive timeout waits until the
  // fence's work retires (a device that never finishes is a fatal error, not a timeout).
  virtual Result<WaitStatus> client_wait(FenceId fence, bool flush, uint64_t timeout_ns) = 0;
  virtual Status flush() = 0;
  virtual Status finish() = 0;
  // The frame boundary.
  virtual Status present() = 0;
  // The target, top row first.
  virtual Result<Image> read_pixels() = 0;
  virtual Result<Gauges> gauges() = 0;
  // Messages of the driver's validation so far (empty unless the session asked for it).
  virtual Result<std::vector<std::string>> validation_messages() = 0;
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
