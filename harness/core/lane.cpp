#include "core/lane.h"

namespace tidemark {

std::optional<Lane> parse_lane(std::string_view name) {
  for (Lane lane : kAllLanes)
    if (lane_name(lane) == name) return lane;
  return std::nullopt;
}

std::string_view lane_name(Lane lane) {
  switch (lane) {
    case Lane::Monolith:
      return "monolith";
    case Lane::Split:
      return "split";
    case Lane::Spawn:
      return "spawn";
    case Lane::Tcp:
      return "tcp";
  }
  return "?";
}

std::string_view lane_title(Lane lane) {
  switch (lane) {
    case Lane::Monolith:
      return "Monolith";
    case Lane::Split:
      return "Split";
    case Lane::Spawn:
      return "Spawn";
    case Lane::Tcp:
      return "Tcp";
  }
  return "?";
}

}  // namespace tidemark
