#include "check/run_checks.h"

#include <gtest/gtest.h>

namespace tidemark::check {
namespace {

using scenario::CheckKind;

TEST(Waits, AllAsExpectedPass) {
  Outcome outcome = check_waits({.checked = 3, .mismatches = {}});
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.id.kind, CheckKind::Waits);
  EXPECT_EQ(outcome.text, "every client_wait returns its expected status");
  EXPECT_EQ(outcome.detail, "3 waits as expected");
}

TEST(Waits, MismatchesAreCountedAndListed) {
  Outcome outcome =
      check_waits({.checked = 4, .mismatched = 2, .mismatches = {"line 9 (wait #1) a", "line 12 (wait #3) b"}});
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "2 of 4 waits off: line 9 (wait #1) a; line 12 (wait #3) b");
}

// A lane whose client is pid 5.
Outcome lane(Lane which, uint64_t sent, uint64_t received, int64_t server_pid) {
  const LaneTraffic traffic{
      .frames_sent = sent, .frames_received = received, .client_pid = 5, .server_pid = server_pid};
  return check_lane(which, traffic);
}

TEST(Lane, FramesBothWaysToAnotherProcessPass) {
  Outcome outcome = lane(Lane::Spawn, 10, 9, 6);
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.id.kind, CheckKind::Lane);
  EXPECT_EQ(outcome.text, "frames crossed the wire to a server in another process");
  EXPECT_EQ(outcome.detail, "10 frames sent, 9 received; client pid 5, server pid 6");
}

TEST(Lane, ASpawnOrTcpServerInTheClientsProcessFails) {
  EXPECT_FALSE(lane(Lane::Tcp, 10, 9, 5).passed);
  EXPECT_FALSE(lane(Lane::Spawn, 10, 9, 5).passed);
}

TEST(Lane, ASplitLaneMayShareItsProcessButMustSendAndReceiveFrames) {
  EXPECT_TRUE(lane(Lane::Split, 1, 1, 5).passed);
  EXPECT_FALSE(lane(Lane::Split, 1, 0, 5).passed);
  Outcome silent = lane(Lane::Split, 0, 0, 5);
  EXPECT_FALSE(silent.passed);
  EXPECT_EQ(silent.text, "frames crossed the wire");
}

TEST(Validation, NoMessagesPass) {
  Outcome outcome = check_validation({});
  EXPECT_TRUE(outcome.passed);
  EXPECT_EQ(outcome.id.kind, CheckKind::Validation);
  EXPECT_EQ(outcome.detail, "0 messages");
}

TEST(Validation, AnyMessageFailsShowingTheFirst) {
  Outcome outcome = check_validation({"VUID-1 bad", "VUID-2 worse"});
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "2 messages, first: VUID-1 bad");
}

TEST(Determinism, OneDigestIsNoOutcome) {
  EXPECT_FALSE(check_determinism({"ab12", "ab12", "ab12"}));
  EXPECT_FALSE(check_determinism({}));
}

TEST(Determinism, TwoDigestsFailListingBothInOrder) {
  auto outcome = check_determinism({"ff00", "ab12", "ff00"});
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->id.kind, CheckKind::Determinism);
  EXPECT_EQ(outcome->text, "3 runs give one digest");
  EXPECT_EQ(outcome->detail, "2 distinct digests: ab12, ff00");
}

// Check that a run with more mismatched waits than are listed names the first ones and
// counts the rest, so the detail stays bounded however long the run.
TEST(RunChecks, ManyMismatchedWaitsListTheFirstAndCountTheRest) {
  WaitTally waits;
  for (int i = 1; i <= 1000; ++i) {
    ++waits.checked;
    waits.add_mismatch("wait #" + std::to_string(i));
  }
  Outcome outcome = check_waits(waits);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(waits.mismatches.size(), WaitTally::kListed);
  EXPECT_EQ(outcome.detail.rfind("1000 of 1000 waits off: wait #1; wait #2;", 0), 0u) << outcome.detail;
  EXPECT_TRUE(outcome.detail.ends_with("; wait #32; and 968 more")) << outcome.detail;
}

}  // namespace
}  // namespace tidemark::check
