#include "report/merge.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

#include "core/testing/scratch.h"
#include "report/summary.h"

namespace tidemark::report {
namespace {

namespace fs = std::filesystem;

// Three shards of a selection of six scenarios, two each, in folders under a fresh temp folder.
class Merge : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t index = 1; index <= 3; ++index) write_shard(index, 3);
  }

  static RunRecord record(std::string test, std::string subject, std::string digest, std::string lane) {
    return {.test = std::move(test),
            .subject = std::move(subject),
            .column = {"vulkan", {}},
            .verdict = Verdict::Green,
            .seconds = 1.0,
            .lane = {.name = std::move(lane)},
            .knobs = {{"k", 1}},
            .digest = std::move(digest)};
  }
  static std::vector<std::string> all() { return {"g/a", "g/b", "g/c", "g/d", "g/e", "g/f"}; }

  fs::path write_shard(size_t index, size_t total, std::string folder = {}, std::string digest = "d") {
    ShardOrigin shard{index, total, "GitLab", 6, selection_hash(all()), {}};
    std::vector<RunRecord> results;
    for (size_t k = index - 1; k < all().size(); k += total) {
      const std::string subject = all()[k];
      shard.members.push_back(subject);
      results.push_back(record("Magma.Spawn.G." + subject.substr(2), subject, digest + subject, "spawn"));
    }
    fs::path dir = root_ / (folder.empty() ? "shard-" + std::to_string(index) : folder);
    EXPECT_TRUE(write_summary(dir, {.command = "run", .series = "run lane=spawn", .shard = shard}, results));
    dirs_.push_back(dir);
    return dir;
  }

  std::string merge_error() {
    auto merged = merge_summaries(dirs_, root_ / "merged");
    EXPECT_FALSE(merged);
    EXPECT_FALSE(fs::exists(root_ / "merged" / "summary.json"));
    return merged ? "" : merged.error().message;
  }

  const test_support::ScratchDir scratch_{"merge"};
  const fs::path root_ = scratch_.path();
  std::vector<fs::path> dirs_;
};

// Check that the shards' union is one summary, every test once, in one order.
TEST_F(Merge, TheShardsBecomeOneSummary) {
  std::reverse(dirs_.begin(), dirs_.end());
  auto merged = merge_summaries(dirs_, root_ / "merged");
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(merged->summaries, 3u);
  EXPECT_EQ(merged->results, 6u);
  EXPECT_EQ(merged->green, 6u);
  EXPECT_EQ(merged->scenarios, 6u);
  EXPECT_TRUE(merged->differences.empty());
  std::ifstream in(root_ / "merged" / "summary.json");
  nlohmann::json summary = nlohmann::json::parse(in);
  ASSERT_EQ(summary["results"].size(), 6u);
  EXPECT_EQ(summary["results"][0]["test"], "Magma.Spawn.G.a");
  EXPECT_EQ(summary["results"][5]["test"], "Magma.Spawn.G.f");
  ASSERT_EQ(summary["merged_from"].size(), 3u);
  EXPECT_EQ(summary["merged_from"][0]["shard"]["index"], 1);
  EXPECT_TRUE(fs::exists(root_ / "merged" / "summary.html"));
  EXPECT_TRUE(fs::exists(root_ / "merged" / "junit.xml"));
}

// Check that a missing shard is named with the ones given.
TEST_F(Merge, AMissingShardIsNamed) {
  dirs_.erase(dirs_.begin() + 1);
  std::string error = merge_error();
  EXPECT_NE(error.find("series 'run lane=spawn': shard 2 of 3 missing (given: 1 in "), std::string::npos) << error;
}

// Check that a shard given twice is named with both folders.
TEST_F(Merge, AShardGivenTwiceIsNamed) {
  write_shard(2, 3, "shard-2-again");
  std::string error = merge_error();
  EXPECT_NE(error.find("shard 2 of 3 given twice: "), std::string::npos) << error;
  EXPECT_NE(error.find("shard-2-again"), std::string::npos) << error;
}

// Check that shards of two different splits are refused.
TEST_F(Merge, ShardsOfDifferentSplitsAreRefused) {
  dirs_.pop_back();
  write_shard(3, 4, "of-four");
  std::string error = merge_error();
  EXPECT_NE(error.find("expected the shards of one split"), std::string::npos) << error;
}

// Check that a folder without a summary, and a summary that is not one, are named.
TEST_F(Merge, AFolderWithoutASummaryIsNamed) {
  fs::create_directories(root_ / "empty");
  dirs_.push_back(root_ / "empty");
  EXPECT_NE(merge_error().find("empty: no summary.json"), std::string::npos);
  dirs_.back() = root_ / "bad";
  fs::create_directories(root_ / "bad");
  std::ofstream(root_ / "bad" / "summary.json") << "{\n  \"format\": \n}";
  std::string error = merge_error();
  EXPECT_NE(error.find("summary.json:3:1: expected a JSON summary"), std::string::npos) << error;
}

// Check that one scenario giving two digests on two machines is a difference, named.
TEST_F(Merge, TwoDigestsForOneScenarioAreADifference) {
  ASSERT_TRUE(write_summary(root_ / "tcp", {.command = "run", .series = "run lane=tcp"},
                            {record("Magma.Tcp.G.a", "g/a", "other", "tcp")}));
  dirs_.push_back(root_ / "tcp");
  auto merged = merge_summaries(dirs_, root_ / "merged");
  ASSERT_TRUE(merged) << merged.error().message;
  ASSERT_EQ(merged->differences.size(), 1u);
  EXPECT_EQ(merged->differences[0], "g/a: dg/a in Magma.Spawn.G.a; other in Magma.Tcp.G.a");
}

// Check that a test in two summaries is refused.
TEST_F(Merge, ATestInTwoSummariesIsRefused) {
  ASSERT_TRUE(write_summary(root_ / "again", {.command = "run", .series = "run lane=spawn knob=x=1"},
                            {record("Magma.Spawn.G.a", "g/a", "dg/a", "spawn")}));
  dirs_.push_back(root_ / "again");
  EXPECT_NE(merge_error().find("Magma.Spawn.G.a is in "), std::string::npos);
}

}  // namespace
}  // namespace tidemark::report
