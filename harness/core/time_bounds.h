// A subject's time limits: its whole run may take at most `wall` seconds, and it may make no
// progress for `inactivity` seconds. A BoundsWatch follows a count of what the subject's processes
// did (the layer's calls that changed something, the wire's commands, the steps begun), never a
// guess from a sleep, and past either limit their whole tree is killed (core/process.h's
// kill_tree): a `timeout` verdict.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

namespace tidemark {

// The defaults: many times the suite's longest subject run, room for a sanitizer build on a busy
// two-core machine. Inactivity is no longer than a lane's reply timeout (--reply-timeout-ms), which
// it meets first as its quiet began before the request did.
inline constexpr double kDefaultWallSeconds = 300;
inline constexpr double kDefaultInactivitySeconds = 60;

enum class TimeLimit { WallClock, Inactivity };
std::string_view time_limit_name(TimeLimit limit);  // "wall-clock", "inactivity"
std::optional<TimeLimit> time_limit_named(std::string_view name);

// Seconds; 0 = no limit.
struct TimeBounds {
  double wall = kDefaultWallSeconds;
  double inactivity = kDefaultInactivitySeconds;
  bool operator==(const TimeBounds&) const = default;
};

// Overrides of the defaults: a subject's YAML (`timeout`, `inactivity_timeout`), then the command
// line's (--timeout, --inactivity-timeout), each where given.
struct TimeBoundsOverride {
  std::optional<double> wall, inactivity;
  bool operator==(const TimeBoundsOverride&) const = default;
};
TimeBounds apply(TimeBounds bounds, const TimeBoundsOverride& over);

// Watches one run: fed the activity count now and then, says when a limit is passed.
class BoundsWatch {
 public:
  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;  // the clock it reads: a test's, or the steady one
  explicit BoundsWatch(TimeBounds bounds, Now now = Clock::now);
  // The limit passed by now, if any; a count unlike the last one seen is activity.
  std::optional<TimeLimit> check(uint64_t activity);
  // How long to wait before the next check: until the nearer limit could pass, at most 100 ms.
  std::chrono::milliseconds next_check() const;
  double elapsed_seconds() const;
  double idle_seconds() const;
  double limit_seconds(TimeLimit limit) const;
  const TimeBounds& bounds() const { return bounds_; }

 private:
  TimeBounds bounds_;
  Now now_;
  Clock::time_point started_, active_;
  std::optional<uint64_t> seen_;
};

}  // namespace tidemark
