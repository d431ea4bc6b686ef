// Replay: feed a recording's requests to a server in any lane and check every reply against
// the recorded one. The first divergence is reported with its record index and opcode.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "lanes/lanes.h"

namespace tidemark::lanes {

struct ReplayReport {
  std::string scenario;      // from the recording's header
  uint64_t records = 0;      // records read
  uint64_t requests = 0;     // requests sent (commands)
  uint64_t respecifies = 0;  // of them, buffer_data (the Vulkan floor's cycles)
  std::string digest;        // of the replayed gauges and pixels; empty if none were read
  std::optional<std::string> divergence;
  double seconds = 0;  // from the handshake's reply to the last reply
};

// Errors: a recording that cannot be read (BadInput, naming the record where it breaks), or
// a lane that fails (Fatal, naming the record being replayed).
// `mutant`, when set, replaces the recorded session's mutant: replaying a green stream
// against a broken variant shows the first reply the defect changes.
Result<ReplayReport> replay(const std::filesystem::path& file, const LaneOptions& lane, bool compare = true,
                            std::string_view mutant = {});

}  // namespace tidemark::lanes
