// One session's configuration: what the scenario says, what the handshake carries, and what
// the backend and the model host receive — one struct, laid out once by fields() for the wire.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "api/model.h"
#include "core/completion.h"
#include "core/gauges.h"
#include "core/knobs.h"

namespace tidemark::api {

inline constexpr const char* kDefaultBackend = "vulkan";

// The Tidemark layer beneath the backend's Vulkan device (harness/layer/): on, it counts what
// the device holds at the Vulkan boundary and its gauges are read and digested; for a backend
// that reports nothing of itself it is also the device's memory and submit report. Its faults
// are mutants (layer.*).
struct LayerConfig {
  bool on = false;
  Completion completion = Completion::Deterministic;
  static auto fields(auto& m) { return std::tie(m.on, m.completion); }
  bool operator==(const LayerConfig&) const = default;
};

struct SessionConfig {
  std::string backend = kDefaultBackend;  // a name in the backend registry
  int32_t width = 64;                     // the target, in pixels
  int32_t height = 64;
  KnobValues knobs;         // the knobs as given; the receiver resolves them
  std::string mutant;       // red-once: the fault switch; empty: none
  bool validation = false;  // the driver's validation on; any message is red
  ModelConfig model;
  LayerConfig layer;
  static auto fields(auto& m) {
    return std::tie(m.backend, m.width, m.height, m.knobs, m.mutant, m.validation, m.model, m.layer);
  }
  bool operator==(const SessionConfig&) const = default;
};

}  // namespace tidemark::api
