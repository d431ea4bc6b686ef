#include "core/time_bounds.h"

#include <algorithm>
#include <utility>

namespace tidemark {

std::string_view time_limit_name(TimeLimit limit) {
  return limit == TimeLimit::WallClock ? "wall-clock" : "inactivity";
}

std::optional<TimeLimit> time_limit_named(std::string_view name) {
  if (name == "wall-clock") return TimeLimit::WallClock;
  if (name == "inactivity") return TimeLimit::Inactivity;
  return std::nullopt;
}

TimeBounds apply(TimeBounds bounds, const TimeBoundsOverride& over) {
  if (over.wall) bounds.wall = *over.wall;
  if (over.inactivity) bounds.inactivity = *over.inactivity;
  return bounds;
}

BoundsWatch::BoundsWatch(TimeBounds bounds, Now now)
    : bounds_(bounds), now_(std::move(now)), started_(now_()), active_(started_) {}

std::optional<TimeLimit> BoundsWatch::check(uint64_t activity) {
  const auto now = now_();
  if (seen_ != activity) {
    seen_ = activity;
    active_ = now;
  }
  if (bounds_.wall > 0 && elapsed_seconds() >= bounds_.wall) return TimeLimit::WallClock;
  if (bounds_.inactivity > 0 && idle_seconds() >= bounds_.inactivity) return TimeLimit::Inactivity;
  return std::nullopt;
}

std::chrono::milliseconds BoundsWatch::next_check() const {
  double left = 0.1;
  if (bounds_.wall > 0) left = std::min(left, bounds_.wall - elapsed_seconds());
  if (bounds_.inactivity > 0) left = std::min(left, bounds_.inactivity - idle_seconds());
  return std::chrono::milliseconds(std::clamp<int64_t>(static_cast<int64_t>(left * 1000) + 1, 1, 100));
}

double BoundsWatch::elapsed_seconds() const { return std::chrono::duration<double>(now_() - started_).count(); }

double BoundsWatch::idle_seconds() const { return std::chrono::duration<double>(now_() - active_).count(); }

double BoundsWatch::limit_seconds(TimeLimit limit) const {
  return limit == TimeLimit::WallClock ? bounds_.wall : bounds_.inactivity;
}

}  // namespace tidemark
