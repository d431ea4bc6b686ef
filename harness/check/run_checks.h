// The runner's own checks, which no scenario writes: expected wait statuses, a lane that
// really crossed its wire, validation, and one digest over repeated runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/check.h"
#include "core/lane.h"

namespace tidemark::check {

// The client_waits that named an expected status, and a line for each that returned another.
struct WaitTally {
  static constexpr size_t kListed = 32;  // mismatches described; the rest only counted
  int checked = 0;
  int mismatched = 0;
  std::vector<std::string> mismatches;  // the first kListed
  void add_mismatch(std::string text) {
    ++mismatched;
    if (mismatches.size() < kListed) mismatches.push_back(std::move(text));
  }
};

// Every client_wait with an expected status returned it.
Outcome check_waits(const WaitTally& waits);

// A lane that silently fell back to direct calls would look green: frames crossed it, and for
// spawn and tcp the server is another process.
Outcome check_lane(Lane lane, const LaneTraffic& traffic);

// The validation layer's messages: any is red.
Outcome check_validation(const std::vector<std::string>& messages);

// Repeated runs give one digest; nullopt when they do (the check is only reported red).
std::optional<Outcome> check_determinism(const std::vector<std::string>& digests);

}  // namespace tidemark::check
