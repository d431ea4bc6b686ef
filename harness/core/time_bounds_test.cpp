#include "core/time_bounds.h"

#include <gtest/gtest.h>

#include <chrono>

namespace tidemark {
namespace {

using std::chrono::milliseconds;

// A clock the test moves by hand: a watch's limits pass when the test says time has passed.
struct HandClock {
  BoundsWatch::Clock::time_point now{};
  void advance(BoundsWatch::Clock::duration by) { now += by; }
  BoundsWatch watch(TimeBounds bounds) {
    return BoundsWatch(bounds, [this] { return now; });
  }
};

// Check that an override replaces only the bounds it gives, each over the defaults.
TEST(TimeBounds, AnOverrideReplacesOnlyTheBoundsItGives) {
  const TimeBounds defaults;
  EXPECT_EQ(apply(defaults, {}), defaults);
  EXPECT_EQ(apply(defaults, {.wall = 5, .inactivity = {}}),
            (TimeBounds{.wall = 5, .inactivity = kDefaultInactivitySeconds}));
  EXPECT_EQ(apply(defaults, {.wall = {}, .inactivity = 0}), (TimeBounds{.wall = kDefaultWallSeconds, .inactivity = 0}));
  EXPECT_EQ(apply({.wall = 1, .inactivity = 2}, {.wall = 3, .inactivity = 4}),
            (TimeBounds{.wall = 3, .inactivity = 4}));
}

// Check that each limit's name reads back as that limit, and that no other name does.
TEST(TimeBounds, EachLimitsNameReadsBackAsIt) {
  for (const TimeLimit limit : {TimeLimit::WallClock, TimeLimit::Inactivity})
    EXPECT_EQ(time_limit_named(time_limit_name(limit)), limit);
  EXPECT_EQ(time_limit_name(TimeLimit::WallClock), "wall-clock");
  EXPECT_EQ(time_limit_name(TimeLimit::Inactivity), "inactivity");
  EXPECT_EQ(time_limit_named("wall"), std::nullopt);
}

// Check that the wall clock passes at its bound however busy the run is.
TEST(BoundsWatch, TheWallClockPassesAtItsBoundThoughTheRunIsBusy) {
  HandClock clock;
  BoundsWatch watch = clock.watch({.wall = 2, .inactivity = 1});
  uint64_t activity = 0;
  for (int tick = 0; tick < 19; ++tick) {
    clock.advance(milliseconds(100));
    EXPECT_EQ(watch.check(++activity), std::nullopt) << "at " << watch.elapsed_seconds() << " s";
  }
  clock.advance(milliseconds(100));
  EXPECT_EQ(watch.check(++activity), TimeLimit::WallClock);
  EXPECT_DOUBLE_EQ(watch.limit_seconds(TimeLimit::WallClock), 2);
}

// Check that inactivity passes after its bound without a new count, and that a new count starts
// the quiet again.
TEST(BoundsWatch, InactivityPassesOnlyAfterItsBoundWithoutANewCount) {
  HandClock clock;
  BoundsWatch watch = clock.watch({.wall = 0, .inactivity = 1});
  EXPECT_EQ(watch.check(7), std::nullopt);
  clock.advance(milliseconds(900));
  EXPECT_EQ(watch.check(7), std::nullopt);
  EXPECT_DOUBLE_EQ(watch.idle_seconds(), 0.9);
  EXPECT_EQ(watch.check(8), std::nullopt);  // activity: the quiet starts again
  EXPECT_DOUBLE_EQ(watch.idle_seconds(), 0);
  clock.advance(milliseconds(999));
  EXPECT_EQ(watch.check(8), std::nullopt);
  clock.advance(milliseconds(1));
  EXPECT_EQ(watch.check(8), TimeLimit::Inactivity);
  EXPECT_DOUBLE_EQ(watch.limit_seconds(TimeLimit::Inactivity), 1);
}

// Check that a bound of 0 is no limit: a day of silence passes neither.
TEST(BoundsWatch, ABoundOfZeroIsNoLimit) {
  HandClock clock;
  BoundsWatch watch = clock.watch({.wall = 0, .inactivity = 0});
  clock.advance(std::chrono::hours(24));
  EXPECT_EQ(watch.check(0), std::nullopt);
  EXPECT_EQ(watch.next_check(), milliseconds(100));
}

// Check that the next check comes when the nearer limit could pass, at most 100 ms away and at
// least 1 ms (a limit already passed is looked at again at once).
TEST(BoundsWatch, TheNextCheckComesWhenTheNearerLimitCouldPass) {
  HandClock clock;
  BoundsWatch watch = clock.watch({.wall = 10, .inactivity = 0.5});
  EXPECT_EQ(watch.check(0), std::nullopt);
  EXPECT_EQ(watch.next_check(), milliseconds(100));
  clock.advance(std::chrono::microseconds(437500));  // 62.5 ms of quiet left
  EXPECT_EQ(watch.next_check(), milliseconds(63));
  clock.advance(milliseconds(100));  // past it
  EXPECT_EQ(watch.next_check(), milliseconds(1));
  EXPECT_EQ(watch.check(0), TimeLimit::Inactivity);
}

}  // namespace
}  // namespace tidemark
