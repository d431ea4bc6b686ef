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
  EXPECT_FALSE(rule.fence_shown_done(2, true));  // another queue
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

TEST(LayerSettings, ParseEveryNameAndRefuseAnythingElseWithWhatWasFound) {
  auto settings = parse_settings("completion=real,hold_frees,never_done,fail_allocation=3");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->completion, static_cast<uint32_t>(TIDEMARK_COMPLETION_REAL));
  EXPECT_EQ(settings->hold_frees, 1u);
  EXPECT_EQ(settings->never_done, 1u);
  EXPECT_EQ(settings->fail_allocation, 3u);
  EXPECT_EQ(parse_settings("fail_allocation=0").error(),
            "expected fail_allocation=N with N a whole number from 1, found 'fail_allocation=0'");
  EXPECT_NE(parse_settings("hold").error().find("found 'hold'"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::layer
