// Isolated runs (runner/pipeline/isolation.h) with pipelines a test scripts: a record comes back as
// the child made it, one child serves runs until it dies, a dead child is a crash and a stuck one a
// timeout, and the child's error is the run's.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <variant>

#include "runner/pipeline/isolation.h"

namespace tidemark::runner {
namespace {

constexpr size_t kPid = 0, kAbort = 1, kStuck = 2, kError = 3, kRed = 4;

// The runs a test asks its child for, by index.
Result<report::RunRecord> scripted(size_t index) {
  report::RunRecord record;
  switch (index) {
    case kPid:
      record.test = std::to_string(::getpid());
      return record;
    case kAbort:
      std::abort();
    case kStuck:
      for (;;) ::pause();
    case kError:
      return fail(ErrorKind::Environment, "no lavapipe in the child");
    default:
      record.test = "Magma.Monolith.Group.red";
      record.subject = "group/red";
      record.column = {"gl", "mesa-25.0.7"};
      record.verdict = report::Verdict::Red;
      record.checks = {{.id = "gauge[0]", .kind = "gauge", .check = "x <= 1", .passed = false}};
      return record;
  }
}

const TimeBounds kGenerous{.wall = 60, .inactivity = 0};

report::RunRecord record_in(Result<IsolatedRuns::Answer> answer) {
  EXPECT_TRUE(answer) << answer.error().message;
  if (!answer || !std::holds_alternative<report::RunRecord>(*answer)) {
    ADD_FAILURE() << "the answer is not a record";
    return {};
  }
  return std::get<report::RunRecord>(*answer);
}

// Check that the child's record comes back with its verdict, column and checks as it made them.
TEST(Isolation, AChildsRecordComesBackAsItMadeIt) {
  IsolatedRuns runs(scripted);
  const report::RunRecord record = record_in(runs.run(kRed, "red.yaml", kGenerous));
  EXPECT_EQ(record.test, "Magma.Monolith.Group.red");
  EXPECT_EQ(record.column, (report::Column{"gl", "mesa-25.0.7"}));
  EXPECT_EQ(record.verdict, report::Verdict::Red);
  ASSERT_EQ(record.checks.size(), 1u);
  EXPECT_FALSE(record.checks[0].passed);
}

// Check that runs share one child, not this process, until it dies, and the run after has a new one.
TEST(Isolation, RunsShareOneChildUntilItDiesAsACrash) {
  IsolatedRuns runs(scripted);
  const std::string first = record_in(runs.run(kPid, "pid.yaml", kGenerous)).test;
  EXPECT_NE(first, std::to_string(::getpid()));
  EXPECT_EQ(record_in(runs.run(kPid, "pid.yaml", kGenerous)).test, first);

  auto died = runs.run(kAbort, "abort.yaml", kGenerous);
  ASSERT_TRUE(died) << died.error().message;
  ASSERT_TRUE(std::holds_alternative<ChildDied>(*died));
  const ChildDied& crash = std::get<ChildDied>(*died);
  EXPECT_EQ(crash.crash.process, report::CrashedProcess::Subject);
  EXPECT_EQ(crash.crash.pid, std::stoll(first));
  EXPECT_EQ(crash.crash.signal, SIGABRT);

  const std::string after = record_in(runs.run(kPid, "pid.yaml", kGenerous)).test;
  EXPECT_NE(after, first);
}

// Check that a child past its wall-clock bound is killed and the run is a timeout naming the bound.
TEST(Isolation, AStuckChildIsKilledAtItsBoundAsATimeout) {
  IsolatedRuns runs(scripted);
  auto answer = runs.run(kStuck, "stuck.yaml", {.wall = 0.2, .inactivity = 0});
  ASSERT_TRUE(answer) << answer.error().message;
  ASSERT_TRUE(std::holds_alternative<TimedOut>(*answer));
  const TimedOut& out = std::get<TimedOut>(*answer);
  EXPECT_EQ(out.timeout.limit, TimeLimit::WallClock);
  EXPECT_EQ(out.timeout.limit_seconds, 0.2);
  EXPECT_GE(out.timeout.after_seconds, 0.2);
  EXPECT_TRUE(record_in(runs.run(kRed, "red.yaml", kGenerous)).verdict == report::Verdict::Red);
}

// Check that an error the child's pipeline returns is the run's error, with its kind and words.
TEST(Isolation, AnErrorInTheChildIsTheRunsError) {
  IsolatedRuns runs(scripted);
  auto answer = runs.run(kError, "error.yaml", kGenerous);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().kind, ErrorKind::Environment);
  EXPECT_EQ(answer.error().message, "no lavapipe in the child");
}

}  // namespace
}  // namespace tidemark::runner
