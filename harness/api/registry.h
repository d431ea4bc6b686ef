// The backends a session can run on, by name: each is a name and a factory. The monolith
// lane and the server pick from the registry by the session config's `backend`; adding a
// backend is its folder and one line in its registry.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/device.h"
#include "api/session_config.h"
#include "core/knobs.h"
#include "core/mutants.h"

namespace tidemark::api {

// What a factory gets besides the config: the config's knobs and mutant resolved, where
// its device's events go, and where its notes go (gauge lines; may be empty).
struct DeviceContext {
  KnobValues knobs;
  MutantId mutant = MutantId::None;
  DeviceEvents* events = nullptr;
  std::function<void(const std::string&)> log;
  // The Tidemark layer is beneath the device (it must load it into its Vulkan instance), and
  // what it counts: a backend that reports nothing of itself reads its gauges here.
  bool layer = false;
  std::function<ObservedGauges()> observed;
  // The Vulkan driver beneath, as the layer read it at vkCreateDevice ("llvmpipe Mesa 25.0.7 (...)").
  std::function<std::string()> vulkan_driver;
  // The renderer server the driver's client talks to (its command and pid), whose Vulkan device
  // the layer and `vulkan_driver` are beneath; empty: the driver is all in this process.
  std::string server;
};

using DeviceFactory = std::function<Result<std::unique_ptr<Device>>(const SessionConfig&, const DeviceContext&)>;

struct BackendEntry {
  std::string name;
  std::string summary;            // one line: what it drives
  std::vector<GaugeKind> gauges;  // the kinds of gauge its devices give
  DeviceFactory make;
  // True: its devices report their own memory and submits to the host (the layer, when on,
  // only counts beneath them); false: the layer is their report (a real driver's).
  bool reports_itself = true;
  // True: its gauges come from the layer, which is then beneath it whatever the scenario says.
  bool needs_layer = false;
  // A backend it may stand in for: a scenario that lists that one may be run on this one
  // (a user's own GL driver in Zink's place), judged by the gauges it gives.
  std::string stands_for;
  // True: its device runs the whole driver a driver build names (GL and the Vulkan beneath) and
  // reads every identity field itself; false: the build is read by the registry's
  // identity_probe beside it, and by the device where it runs on the build's Vulkan driver.
  bool whole_driver = false;
  bool gives(GaugeKind kind) const;
  std::string gauge_kinds() const;  // "device, reclaim-model"
};

class BackendRegistry {
 public:
  BackendRegistry& add(BackendEntry entry);
  const BackendEntry* find(std::string_view name) const;
  // The entry, or a bad-input error naming the known backends.
  Result<const BackendEntry*> lookup(std::string_view name) const;
  const std::vector<BackendEntry>& entries() const { return entries_; }

  // Reads the driver this process's environment names (a driver build's), from a GL context and
  // a Vulkan device of its own that are gone when it returns: a build's identity is checked
  // whole where a backend is not the whole driver. Null: none registered.
  std::function<Result<Device::Identity>()> identity_probe;

 private:
  std::vector<BackendEntry> entries_;
};

}  // namespace tidemark::api
