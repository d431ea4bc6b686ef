// Lanes: how a scenario's workload reaches the backend. A scenario never names its lane;
// test names, labels, reports and parity do.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tidemark {

enum class Lane { Monolith, Split, Spawn, Tcp };
inline constexpr Lane kAllLanes[] = {Lane::Monolith, Lane::Split, Lane::Spawn, Lane::Tcp};
std::optional<Lane> parse_lane(std::string_view name);
std::string_view lane_name(Lane lane);   // "spawn"
std::string_view lane_title(Lane lane);  // "Spawn", as in test names

// What one run's lane carried: its name, the frames each way, the processes at each end, and
// the knobs its server said it applied. A lane session reports it, the lane check reads it and
// a run record keeps it.
struct LaneTraffic {
  std::string name;
  uint64_t frames_sent = 0;
  uint64_t frames_received = 0;
  int64_t client_pid = 0;
  int64_t server_pid = 0;
  std::map<std::string, int64_t> server_knobs;
  bool operator==(const LaneTraffic&) const = default;
};

}  // namespace tidemark
