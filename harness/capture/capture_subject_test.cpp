// A capture fixture as a subject (capture/capture_subject.h): the data the pipeline reads of it, and
// what its one behaviour refuses before anything runs. Its replays run in the end-to-end tests.
#include "capture/capture_subject.h"

#include <gtest/gtest.h>

#include <fstream>

#include "capture/testing/sample_fixture.h"
#include "core/testing/scratch.h"

namespace tidemark::capture {
namespace {

namespace fs = std::filesystem;

class CaptureAsSubject : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(scratch_ / "app.trace") << testing::kSampleCapture;
    std::ofstream(scratch_ / "x.capture.yaml") << testing::kSampleFixture;
    auto loaded = load_capture_fixture(scratch_ / "x.capture.yaml");
    ASSERT_TRUE(loaded) << loaded.error().message;
    subject_.emplace(std::move(*loaded));
  }
  // The error preparing a run with `options` gives, or "prepared".
  std::string refusal(const runner::RunOptions& options) {
    report::RunRecord record;
    auto prepared = subject_->prepare(options, record);
    if (prepared) return "prepared";
    EXPECT_EQ(prepared.error().kind, ErrorKind::BadInput);
    return prepared.error().message;
  }
  const test_support::ScratchDir scratch_{"capture-subject"};
  std::optional<CaptureSubject> subject_;
};

// Check the data: named in the Capture family without a lane, on its replayer's backend only, its
// checks and controls by id, its content the YAML and the capture.
TEST_F(CaptureAsSubject, ItsDataNamesItsTestsChecksAndControls) {
  const runner::SubjectInfo& info = subject_->info();
  EXPECT_EQ(info.id, "captures/the-replay-holds-few-buffers");
  EXPECT_EQ(runner::test_name(info, Lane::Spawn, ""), "Capture.Captures.the-replay-holds-few-buffers");
  EXPECT_EQ(info.labels, (std::vector<std::string>{"capture", "integration-magma-captures"}));
  EXPECT_FALSE(info.in_lanes);
  EXPECT_TRUE(info.starts_builds);
  EXPECT_EQ(info.backends, (std::vector<std::string>{"gl"}));
  EXPECT_EQ(info.other_backends, runner::OtherBackends::Listed);
  EXPECT_EQ(runner::check_ids(info), (std::vector<std::string>{check_id(0), check_id(1)}));
  ASSERT_EQ(info.controls.size(), 2u);
  EXPECT_EQ(info.controls[0].label, "fault=hold_frees");
  EXPECT_EQ(info.controls[0].fails, (std::vector<std::string>{check_id(0)}));
  EXPECT_TRUE(info.controls[1].run_fails);
  EXPECT_EQ(info.red_once_test_name, "RedOnce.Capture.Captures.the-replay-holds-few-buffers");
  EXPECT_EQ(info.content, (std::vector<fs::path>{scratch_ / "x.capture.yaml", scratch_ / "app.trace"}));
}

// Check that a session's options are refused by name rather than ignored, and another backend too.
TEST_F(CaptureAsSubject, ASessionsOptionsAndAnotherBackendAreRefused) {
  runner::RunOptions mutant;
  mutant.variant.mutant = MutantChoice::named("reclaim.frame_bucket");
  EXPECT_NE(refusal(mutant).find("found --mutant"), std::string::npos) << refusal(mutant);
  runner::RunOptions spawn;
  spawn.column.lane.lane = Lane::Spawn;
  EXPECT_NE(refusal(spawn).find("found --lane spawn"), std::string::npos) << refusal(spawn);
  runner::RunOptions validation;
  validation.validation = true;
  EXPECT_NE(refusal(validation).find("found --validation"), std::string::npos) << refusal(validation);
  runner::RunOptions vulkan;
  vulkan.column.backend = "vulkan";
  EXPECT_EQ(refusal(vulkan), "the capture (apitrace) replays on gl only");
  runner::RunOptions cut;
  cut.variant.cut = "draws";
  EXPECT_EQ(refusal(cut),
            "captures/the-replay-holds-few-buffers: expected the cut setup of an apitrace capture, found 'draws' of "
            "apitrace");
}

}  // namespace
}  // namespace tidemark::capture
