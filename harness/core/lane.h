// Lanes: how a scenario's workload reaches the backend. A scenario never names its lane;
// test names, labels, reports and parity do.
#pragma once

#include <optional>
#include <string_view>

namespace tidemark {

enum class Lane { Monolith, Split, Spawn, Tcp };
inline constexpr Lane kAllLanes[] = {Lane::Monolith, Lane::Split, Lane::Spawn, Lane::Tcp};
std::optional<Lane> parse_lane(std::string_view name);
std::string_view lane_name(Lane lane);   // "spawn"
std::string_view lane_title(Lane lane);  // "Spawn", as in test names

}  // namespace tidemark
