#include "layer/completion.h"

#include <gtest/gtest.h>

#include "layer/settings.h"

namespace tidemark::layer {
namespace {

constexpr uint64_t kQueue = 7, kOtherQueue = 8;

TEST(CompletionRule, AWaitOnALaterSubmitShowsTheEarlierOnesOnThatQueueOnly) {
  CompletionRule rule({});
  rule.submitted(kQueue, 11, /*fence*/ 1, {});
  rule.submitted(kOtherQueue, 12, /*fence*/ 2, {});
  rule.submitted(kQueue, 13, /*fence*/ 3, {});
  EXPECT_FALSE(rule.fence_shown_done(1, true));
  auto reveal = rule.fence_wait(3);
  ASSERT_TRUE(reveal);
  EXPECT_EQ(rule.kernel_need(*reveal).fence, 13u);
  rule.confirm(*reveal, 3);
  EXPECT_TRUE(rule.fence_shown_done(1, true));
  EXPECT_FALSE(rule.fence_shown_done(2, true));   // another queue
  EXPECT_FALSE(rule.fence_shown_done(1, false));  // never ahead of the driver
}

TEST(CompletionRule, ARefusedPacketCanNeverBeSeen) {
  CompletionRule rule({});
  rule.submitted(kQueue, 0, 1, {});
  rule.submitted(kQueue, 5, 2, {});
  auto need = rule.kernel_need(*rule.fence_wait(2));
  EXPECT_TRUE(need.refused);
  EXPECT_EQ(need.fence, 5u);
}

TEST(CompletionRule, ATimelineShowsTheValuesOfKnownSubmitsAndNeverMoreThanTheDriver) {
  CompletionRule rule({});
  rule.semaphore_created(9, 1);
  const CompletionRule::Signal to3[] = {{9, 3}}, to6[] = {{9, 6}};
  rule.submitted(kQueue, 1, 0, to3);
  rule.submitted(kQueue, 2, 0, to6);
  EXPECT_EQ(rule.semaphore_shown_value(9, 6), 1u);
  auto reveal = rule.semaphore_wait(9, 2);  // the first signal that reaches 2 is the one to 3
  ASSERT_TRUE(reveal);
  EXPECT_EQ(reveal->submit, 1u);
  rule.confirm(*reveal, 0, 9, 2);
  EXPECT_EQ(rule.semaphore_shown_value(9, 6), 3u);
  EXPECT_EQ(rule.semaphore_shown_value(9, 2), 2u);
  rule.semaphore_signaled(9, 10);
  EXPECT_EQ(rule.semaphore_shown_value(9, 10), 10u);
}

// Check that the first signal reaching a value is found among many increasing ones (by
// bisection), and among ones out of order (a program breaking the spec's rule) as well.
TEST(CompletionRule, TheFirstSignalReachingAValueIsFoundAmongManyAndOutOfOrder) {
  CompletionRule rule({});
  rule.semaphore_created(9, 0);
  for (uint64_t i = 1; i <= 1000; ++i) {
    const CompletionRule::Signal signal[] = {{9, 10 * i}};
    rule.submitted(kQueue, i, 0, signal);
  }
  EXPECT_EQ(rule.semaphore_wait(9, 1)->submit, 1u);
  EXPECT_EQ(rule.semaphore_wait(9, 4'990)->submit, 499u);
  EXPECT_EQ(rule.semaphore_wait(9, 4'991)->submit, 500u);
  EXPECT_EQ(rule.semaphore_wait(9, 10'000)->submit, 1000u);
  EXPECT_FALSE(rule.semaphore_wait(9, 10'001));

  rule.semaphore_created(10, 0);
  for (uint64_t value : {50, 20, 70, 60}) {
    const CompletionRule::Signal signal[] = {{10, value}};
    rule.submitted(kOtherQueue, value, 0, signal);
  }
  EXPECT_EQ(rule.semaphore_wait(10, 30)->submit, 1u);  // the signal to 50, made first
  EXPECT_EQ(rule.semaphore_wait(10, 55)->submit, 3u);  // to 70, not to 60 after it
  EXPECT_EQ(rule.semaphore_wait(10, 15)->submit, 1u);
}

TEST(CompletionRule, NeverDoneShowsOnlyWhatAWaitWasOn) {
  CompletionRule rule({.never_done = true});
  rule.submitted(kQueue, 1, 1, {});
  rule.submitted(kQueue, 2, 2, {});
  rule.confirm(*rule.fence_wait(2), 2);
  EXPECT_TRUE(rule.fence_shown_done(2, true));
  EXPECT_FALSE(rule.fence_shown_done(1, true));
}

TEST(CompletionRule, RealPassesTheDriversAnswer) {
  CompletionRule rule({.real = true});
  rule.submitted(kQueue, 1, 1, {});
  EXPECT_TRUE(rule.fence_shown_done(1, true));
}

// A poller's Nth busy answer in a row is the reveal point for what it polls; the runs are counted
// per object and start again when the object is submitted or reset again.
TEST(CompletionRule, TheNthBusyPollOfAFenceIsItsRevealPoint) {
  CompletionRule rule({.polls_to_reveal = 4});
  rule.submitted(kQueue, 11, /*fence*/ 1, {});
  rule.submitted(kQueue, 12, /*fence*/ 2, {});
  for (int poll = 1; poll <= 3; ++poll) EXPECT_FALSE(rule.fence_polled_busy(1)) << poll;
  EXPECT_FALSE(rule.fence_polled_busy(2));  // another object's run
  auto reveal = rule.fence_polled_busy(1);
  ASSERT_TRUE(reveal);
  EXPECT_EQ(reveal->submit, 1u);
  EXPECT_EQ(rule.kernel_need(*reveal).fence, 11u);
  rule.confirm(*reveal, 1);
  EXPECT_TRUE(rule.fence_shown_done(1, true));
  EXPECT_FALSE(rule.fence_shown_done(2, true));
  // A new submit of the fence starts its run again (it had three busy answers so far).
  for (int poll = 2; poll <= 3; ++poll) EXPECT_FALSE(rule.fence_polled_busy(2));
  rule.fence_reset(2);
  rule.submitted(kQueue, 13, 2, {});
  for (int poll = 1; poll <= 3; ++poll) EXPECT_FALSE(rule.fence_polled_busy(2)) << poll;
  EXPECT_TRUE(rule.fence_polled_busy(2));
}

TEST(CompletionRule, ADoneAnswerEndsTheRunOfBusyPolls) {
  CompletionRule rule({.polls_to_reveal = 3});
  rule.submitted(kQueue, 1, 1, {});
  EXPECT_FALSE(rule.fence_polled_busy(1));
  EXPECT_FALSE(rule.fence_polled_busy(1));
  rule.fence_polled_done(1);
  EXPECT_FALSE(rule.fence_polled_busy(1));
  EXPECT_FALSE(rule.fence_polled_busy(1));
  EXPECT_TRUE(rule.fence_polled_busy(1));
}

TEST(CompletionRule, ASemaphoresRevealPointNeedsASignalTheLayerSaw) {
  CompletionRule rule({.polls_to_reveal = 2});
  rule.semaphore_created(9, 0);
  EXPECT_FALSE(rule.semaphore_polled_busy(9, 1));  // nothing signals 1 yet: the driver's answer stands
  EXPECT_FALSE(rule.semaphore_polled_busy(9, 1));
  const CompletionRule::Signal to2[] = {{9, 2}};
  rule.submitted(kQueue, 5, 0, to2);
  EXPECT_FALSE(rule.semaphore_polled_busy(9, 1));
  auto reveal = rule.semaphore_polled_busy(9, 1);
  ASSERT_TRUE(reveal);
  rule.confirm(*reveal, 0, 9, 1);
  EXPECT_EQ(rule.semaphore_known(9), 2u);  // the whole submit is known, and with it its signal to 2
  EXPECT_FALSE(rule.semaphore_known(10));  // not a timeline the layer saw made
}

TEST(CompletionRule, NeverDoneAndRealHaveNoRevealPoint) {
  for (CompletionRule::Options options :
       {CompletionRule::Options{.never_done = true}, CompletionRule::Options{.real = true}}) {
    CompletionRule rule(options);
    rule.submitted(kQueue, 1, 1, {});
    for (uint32_t poll = 0; poll < 10 * kPollsToReveal; ++poll) ASSERT_FALSE(rule.fence_polled_busy(1));
  }
}

TEST(CompletionRule, TheDeviceIdleRevealsEveryQueuesNewestSubmitInTheOrderTheQueuesWereFirstUsed) {
  CompletionRule rule({});
  rule.submitted(/*queue*/ 900, 1, 0, {});
  rule.submitted(/*queue*/ 100, 2, 0, {});
  rule.submitted(/*queue*/ 900, 3, 0, {});
  auto reveals = rule.device_idle();
  ASSERT_EQ(reveals.size(), 2u);
  EXPECT_EQ(reveals[0].queue, 900u);
  EXPECT_EQ(reveals[0].submit, 2u);
  EXPECT_EQ(reveals[1].queue, 100u);
  EXPECT_EQ(reveals[1].submit, 1u);
}

TEST(CompletionRule, SubmitsAreOrderedAcrossQueues) {
  CompletionRule rule({});
  rule.submitted(kQueue, 1, 1, {});
  rule.submitted(kOtherQueue, 2, 2, {});
  EXPECT_LT(rule.fence_wait(1)->order, rule.fence_wait(2)->order);
  EXPECT_FALSE(rule.fence_known(3));  // no submit the layer saw signals it
  EXPECT_EQ(rule.fence_known(1), false);
}

TEST(LayerSettings, ParseEveryNameAndRefuseAnythingElseWithWhatWasFound) {
  auto settings = parse_settings("completion=real,hold_frees,never_done,shadow_copies,fail_allocation=3");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->completion, static_cast<uint32_t>(TIDEMARK_COMPLETION_REAL));
  EXPECT_EQ(settings->hold_frees, 1u);
  EXPECT_EQ(settings->never_done, 1u);
  EXPECT_EQ(settings->shadow_copies, 1u);
  EXPECT_EQ(settings->fail_allocation, 3u);
  EXPECT_EQ(parse_settings("hold_frees")->shadow_copies, 0u);
  EXPECT_EQ(parse_settings("drop_draw=8")->drop_draw, 8u);
  EXPECT_EQ(format_settings(*parse_settings("drop_draw=8")), "completion=deterministic,drop_draw=8");
  EXPECT_EQ(parse_settings("drop_draw=0").error(),
            "expected drop_draw=N with N a whole number from 1, found 'drop_draw=0'");
  EXPECT_EQ(parse_settings("fail_allocation=0").error(),
            "expected fail_allocation=N with N a whole number from 1, found 'fail_allocation=0'");
  EXPECT_NE(parse_settings("hold").error().find("found 'hold'"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::layer
