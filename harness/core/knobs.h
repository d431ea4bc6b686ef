// The knobs a scenario, a command line or a session handshake may set.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark {

struct KnobSpec {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
  int64_t default_value = 0;
  std::string meaning;
  // "wire_deferred_mb in 0..65536": every message about a bad value says it this way.
  std::string expected() const;
  bool accepts(int64_t value) const { return value >= min && value <= max; }
};
const std::vector<KnobSpec>& known_knobs();
const KnobSpec* find_knob(std::string_view name);

using KnobValues = std::map<std::string, int64_t>;

// Knob values from one place; its errors are prefixed by `source` ("file:1:1", "--knob", "handshake").
struct KnobLayer {
  const KnobValues* values;
  std::string source;
};

// Every known knob: defaults, then each layer in order, each name looked up once. Errors name
// the knob, the range and the value.
Result<KnobValues> resolve_knobs(const std::vector<KnobLayer>& layers);

}  // namespace tidemark
