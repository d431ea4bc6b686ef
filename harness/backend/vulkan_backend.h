// The `vulkan` backend: the client API's device half on a real Vulkan device (Mesa lavapipe),
// with GL-buffer semantics and reclaim by proof. It reports its device memory, queue submits
// and frames to the session's DeviceEvents; it hosts no oracle of its own.
#pragma once

#include <cstdint>
#include <memory>

#include "api/registry.h"
#include "core/knobs.h"

namespace tidemark::backend {

struct Knobs {
  uint32_t wire_deferred_mb = 64;  // 0 turns both reclaim watermarks off
  uint32_t retire_lag = 0;         // after each submit, wait for the one this many earlier
};

// The backend's knobs from resolved knob values (every known knob present).
Knobs knobs_from(const KnobValues& values);

// Environment errors name the missing package (mesa-vulkan-drivers, vulkan-validationlayers).
Result<std::unique_ptr<api::Device>> create_vulkan_device(const api::SessionConfig& config,
                                                          const api::DeviceContext& context);

}  // namespace tidemark::backend
