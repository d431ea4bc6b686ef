// The pipeline's seam (runner/pipeline/subject.h) with a fake subject: what it reads from a subject's data,
// and how often it asks the subject's one behaviour.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/testing/scratch.h"
#include "runner/pipeline/schedule.h"
#include "runner/pipeline/selection.h"
#include "runner/pipeline/subject.h"
#include "runner/pipeline/testing/fake_subject.h"
#include "session/builtin_backends.h"

namespace tidemark::runner {
namespace {

namespace fs = std::filesystem;

using testing::fake_info;
using testing::FakeSubject;

// Check that a run, retried until its tries are spent, prepares its subject once.
TEST(Pipeline, ARunRetriedPreparesItsSubjectOnce) {
  FakeSubject subject("counted", 100);
  RunOptions options;
  options.retry = 2;
  auto record = run(subject, options);
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->verdict, report::Verdict::Red);
  EXPECT_EQ(record->attempts.size(), 3u);
  EXPECT_EQ(subject.prepared, 1);
}

// Check that a run an expectations line skips is prepared once, named as its run would be, and not run.
TEST(Pipeline, ASkippedRunIsPreparedOnceAndNamedAsItsRunWouldBe) {
  FakeSubject subject("counted", 0);
  const std::vector<Expectation> expectations{{.backend = "vulkan",
                                               .build = {},
                                               .scenario = "group/counted",
                                               .checks = {std::string(kSkip)},
                                               .values = {},
                                               .reason = "hangs on this machine",
                                               .where = {"expectations.txt", 3, 1}}};
  RunOptions options;
  options.expectations = &expectations;
  auto record = run(subject, options);
  ASSERT_TRUE(record) << record.error().message;
  EXPECT_EQ(record->verdict, report::Verdict::Skipped);
  EXPECT_EQ(record->test, "Magma.Monolith.Group.counted");
  EXPECT_EQ(record->why, "skipped, as expectations.txt:3:1 says: hangs on this machine");
  EXPECT_TRUE(record->digest.empty());
  EXPECT_EQ(subject.prepared, 1);
}

// Check that the schedule's filter and its runs read the prepared identity: one prepare per run.
TEST(Pipeline, TheScheduleFiltersAndRunsPreparedRunsWithoutPreparingAgain) {
  FakeSubject held("held", 0), filtered("filtered", 0);
  std::vector<PreparedRun> runs;
  for (const FakeSubject* subject : {&held, &filtered}) runs.push_back(*prepare_run(*subject, RunOptions{}));
  const test_support::ScratchFile skips("skips.txt", "Group\\.filtered$\n");
  auto filter = load_test_filter({skips.string()}, {});
  ASSERT_TRUE(filter) << filter.error().message;
  auto records = run_scheduled(runs, Schedule{.filter = &*filter}, {});
  ASSERT_TRUE(records) << records.error().message;
  EXPECT_EQ((*records)[0].verdict, report::Verdict::Green);
  EXPECT_EQ((*records)[1].verdict, report::Verdict::Skipped);
  EXPECT_EQ(held.prepared, 1);
  EXPECT_EQ(filtered.prepared, 1);
}

// Check that test names and labels come from the data: a subject in lanes names its lane, one in none does not.
TEST(SubjectInfo, TestNamesAndLabelsFollowTheData) {
  SubjectInfo scenario = fake_info("counted");
  EXPECT_EQ(test_name(scenario, Lane::Spawn, ""), "Magma.Spawn.Group.counted");
  EXPECT_EQ(test_name(scenario, Lane::Tcp, "gl"), "Magma.Tcp.Group.counted@gl");
  EXPECT_EQ(test_labels(scenario, Lane::Split),
            (std::vector<std::string>{"integration-magma-split", "integration-magma-group"}));
  SubjectInfo capture = scenario;
  capture.test_family = "Capture";
  capture.in_lanes = false;
  capture.labels = {"capture"};
  EXPECT_EQ(test_name(capture, Lane::Spawn, ""), "Capture.Group.counted");
  EXPECT_EQ(test_labels(capture, Lane::Spawn), (std::vector<std::string>{"capture"}));
  EXPECT_EQ(check_text(scenario, "gauge[0]"), "x <= 1");
  EXPECT_EQ(check_text(scenario, "pixel[0]"), "pixel[0]");
}

// Check the three backend policies: listed only, listed or a stand-in for one listed, any Tidemark has.
TEST(SubjectInfo, ABackendIsTakenAsItsPolicySays) {
  const api::BackendRegistry& backends = session::builtin_backends();
  SubjectInfo info = fake_info("counted");
  info.backends = {"gl"};
  EXPECT_TRUE(takes_backend(info, "gl-native", backends));  // it stands in for gl
  EXPECT_FALSE(takes_backend(info, "vulkan", backends));
  EXPECT_FALSE(takes_backend(info, "no-such-backend", backends));
  info.other_backends = OtherBackends::Listed;
  EXPECT_FALSE(takes_backend(info, "gl-native", backends));
  EXPECT_TRUE(takes_backend(info, "gl", backends));
  info.other_backends = OtherBackends::Any;
  EXPECT_TRUE(takes_backend(info, "vulkan", backends));
  EXPECT_FALSE(takes_backend(info, "no-such-backend", backends));
}

// Check that a column has one spelling, read back as it was written.
TEST(Column, ItsTextIsReadBackAsItWasWritten) {
  const report::Column on_build{"gl", "mesa-25.0.7"};
  EXPECT_EQ(on_build.text(), "gl@mesa-25.0.7");
  EXPECT_EQ(report::Column::parse(on_build.text()), on_build);
  EXPECT_EQ(report::Column::parse("vulkan"), (report::Column{"vulkan", {}}));
  EXPECT_EQ((report::Column{"vulkan", {}}).text(), "vulkan");
}

}  // namespace
}  // namespace tidemark::runner
