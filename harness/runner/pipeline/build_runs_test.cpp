// A build's child takes the parent's RunOptions through their one codec: a field the codec drops
// reaches no child, and a batch from another version is refused rather than half read.
#include "runner/pipeline/build_runs.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace tidemark::runner {
namespace {

BuildBatch batch_with_every_option() {
  BuildBatch batch;
  RunOptions& options = batch.options;
  options.column.backend = "gl";
  options.column.build = "mesa-25.0.7";
  options.column.lane.lane = Lane::Spawn;
  options.variant = {.mutant = MutantChoice::named("reclaim.frame_bucket"),
                     .knobs = {{"wire_deferred_mb", 0}},
                     .fault = "f",
                     .cut = "c"};
  options.report_dir = "out/builds/gl@mesa-25.0.7";
  options.validation = true;
  options.repeat = 3;
  options.retry = 2;
  options.isolation = true;
  options.time_bounds = {.wall = 12.5, .inactivity = 4.0};
  options.layer_dir = "/layer";
  options.drivers_files = {"drivers.yaml", "more.yaml"};
  options.compare_replies = false;
  batch.subject_files = {"scenarios/a.yaml", "scenarios/b.yaml"};
  batch.expectations = "expectations.txt";
  return batch;
}

// Check that every option a run takes in another process comes back as it was sent.
TEST(BuildRuns, TheBatchCarriesEveryRunOption) {
  const BuildBatch sent = batch_with_every_option();
  auto read = batch_from_json(nlohmann::json::parse(to_json(sent).dump()));
  ASSERT_TRUE(read) << read.error().message;
  const RunOptions& got = read->options;
  EXPECT_EQ(got.column.backend, "gl");
  EXPECT_EQ(got.column.build, "mesa-25.0.7");
  EXPECT_EQ(got.column.lane.lane, Lane::Spawn);
  EXPECT_EQ(got.variant.mutant.name, sent.options.variant.mutant.name);
  EXPECT_EQ(got.variant.mutant.id, sent.options.variant.mutant.id);
  EXPECT_EQ(got.variant.knobs, sent.options.variant.knobs);
  EXPECT_EQ(got.variant.fault, "f");
  EXPECT_EQ(got.variant.cut, "c");
  EXPECT_EQ(got.report_dir, sent.options.report_dir);
  EXPECT_TRUE(got.validation);
  EXPECT_EQ(got.repeat, 3);
  EXPECT_EQ(got.retry, 2);
  EXPECT_TRUE(got.isolation);
  EXPECT_EQ(got.time_bounds, sent.options.time_bounds);
  EXPECT_EQ(got.layer_dir, sent.options.layer_dir);
  EXPECT_EQ(got.drivers_files, sent.options.drivers_files);
  EXPECT_FALSE(got.compare_replies);
  EXPECT_EQ(read->subject_files, sent.subject_files);
  EXPECT_EQ(read->expectations, sent.expectations);
}

// Check that time limits the command line did not give stay unset in the child.
TEST(BuildRuns, UnsetTimeLimitsStayUnset) {
  BuildBatch sent = batch_with_every_option();
  sent.options.time_bounds = {};
  auto read = batch_from_json(to_json(sent));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_FALSE(read->options.time_bounds.wall);
  EXPECT_FALSE(read->options.time_bounds.inactivity);
}

// Check that an option the reader does not know is an error naming it, not a silent default.
TEST(BuildRuns, AnUnknownOptionIsRefused) {
  nlohmann::json json = to_json(batch_with_every_option());
  json["options"]["frobnicate"] = true;
  auto read = batch_from_json(json);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("frobnicate"), std::string::npos) << read.error().message;
}

// Check that a lane the reader does not know is bad input naming it.
TEST(BuildRuns, AnUnknownLaneIsRefused) {
  nlohmann::json json = to_json(batch_with_every_option());
  json["options"]["lane"] = "carrier-pigeon";
  auto read = batch_from_json(json);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("carrier-pigeon"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace tidemark::runner
