#include "core/shard.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace tidemark {
namespace {

Environment environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](const char* name) -> const char* {
    auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
}

// Check each engine's protocol: its variables, where its index starts, its status file, and the
// order in which they are asked.
TEST(Shard, EachEngineIsReadByItsOwnProtocol) {
  auto none = find_shard("", environment({}));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);

  auto flag = find_shard("2/3", environment({{"CI_NODE_TOTAL", "5"}, {"CI_NODE_INDEX", "5"}}));
  ASSERT_TRUE(flag && *flag);
  EXPECT_EQ((**flag).index, 1u);
  EXPECT_EQ((**flag).total, 3u);
  EXPECT_EQ((**flag).protocol, "--shard");

  auto bazel = find_shard("", environment({{"TEST_TOTAL_SHARDS", "3"},
                                           {"TEST_SHARD_INDEX", "0"},
                                           {"TEST_SHARD_STATUS_FILE", "/tmp/x"},
                                           {"GTEST_TOTAL_SHARDS", "9"},
                                           {"GTEST_SHARD_INDEX", "8"}}));
  ASSERT_TRUE(bazel && *bazel);
  EXPECT_EQ((**bazel).index, 0u);
  EXPECT_EQ((**bazel).protocol, "Bazel");
  EXPECT_EQ((**bazel).status_file, "/tmp/x");

  auto gtest = find_shard(
      "",
      environment({{"GTEST_TOTAL_SHARDS", "3"}, {"GTEST_SHARD_INDEX", "2"}, {"GTEST_SHARD_STATUS_FILE", "/tmp/y"}}));
  ASSERT_TRUE(gtest && *gtest);
  EXPECT_EQ((**gtest).index, 2u);
  EXPECT_EQ((**gtest).status_file, "/tmp/y");

  auto gitlab = find_shard("", environment({{"CI_NODE_TOTAL", "3"}, {"CI_NODE_INDEX", "3"}}));
  ASSERT_TRUE(gitlab && *gitlab);
  EXPECT_EQ((**gitlab).index, 2u);  // GitLab counts from 1
  EXPECT_EQ((**gitlab).protocol, "GitLab");
}

// Check that what no engine would send is refused, naming what was wrong.
TEST(Shard, WhatNoEngineSendsIsRefused) {
  auto message = [](std::string_view flag, std::map<std::string, std::string> variables) {
    auto shard = find_shard(flag, environment(std::move(variables)));
    return shard ? std::string("accepted") : shard.error().message;
  };
  EXPECT_EQ(message("4/3", {}),
            "--shard: expected I/N with I from 1 to N and N at most 10000, such as 2/3, found '4/3'");
  EXPECT_EQ(message("0/3", {}),
            "--shard: expected I/N with I from 1 to N and N at most 10000, such as 2/3, found '0/3'");
  EXPECT_EQ(message("x", {}), "--shard: expected I/N with I from 1 to N and N at most 10000, such as 2/3, found 'x'");
  // Past the bound: a split of 10^9 built a table per shard (8 GB), and near 2^64 the walk
  // over the names wrapped and shards overlapped.
  EXPECT_EQ(message("1/1000000000", {}),
            "--shard: expected I/N with I from 1 to N and N at most 10000, such as 2/3, found '1/1000000000'");
  EXPECT_EQ(
      message("1/18446744073709551615", {}),
      "--shard: expected I/N with I from 1 to N and N at most 10000, such as 2/3, found '1/18446744073709551615'");
  EXPECT_EQ(message("", {{"TEST_TOTAL_SHARDS", "10001"}, {"TEST_SHARD_INDEX", "0"}}),
            "TEST_TOTAL_SHARDS: expected a count of shards from 1 to 10000, found '10001'");
  EXPECT_EQ(message("", {{"CI_NODE_TOTAL", "3"}, {"CI_NODE_INDEX", "0"}}),
            "CI_NODE_INDEX: expected a shard index from 1 to 3, found '0'");
  EXPECT_EQ(message("", {{"GTEST_TOTAL_SHARDS", "3"}, {"GTEST_SHARD_INDEX", "3"}}),
            "GTEST_SHARD_INDEX: expected a shard index from 0 to 2, found '3'");
  EXPECT_EQ(message("", {{"TEST_TOTAL_SHARDS", "0"}, {"TEST_SHARD_INDEX", "0"}}),
            "TEST_TOTAL_SHARDS: expected a count of shards from 1 to 10000, found '0'");
  EXPECT_EQ(message("", {{"GTEST_TOTAL_SHARDS", "3"}}),
            "GoogleTest: expected both GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX, found only GTEST_TOTAL_SHARDS");
}

// Check that the shards of a set are disjoint, cover it, differ in size by at most one, and
// do not depend on the order the names came in.
TEST(Shard, TheShardsCoverTheSetOnceAndTheSameOnEveryMachine) {
  std::vector<std::string> names = {"e", "b", "g", "a", "d", "c", "f"};
  std::vector<std::string> reversed(names.rbegin(), names.rend());
  std::multiset<std::string> seen;
  for (size_t k = 0; k < 3; ++k) {
    Shard shard{k, 3, "--shard", ""};
    auto members = shard_members(names, shard);
    EXPECT_GE(members.size(), 2u);
    EXPECT_LE(members.size(), 3u);
    std::set<std::string> these, again;
    for (size_t m : members) these.insert(names[m]);
    for (size_t m : shard_members(reversed, shard)) again.insert(reversed[m]);
    EXPECT_EQ(these, again) << "shard " << k;
    seen.insert(these.begin(), these.end());
  }
  EXPECT_EQ(seen, std::multiset<std::string>(names.begin(), names.end()));
}

// Check that with the times of a previous run the shards balance by time, not by count: one
// long scenario has a shard to itself.
TEST(Shard, PreviousTimesBalanceTheShards) {
  std::vector<std::string> names = {"a", "b", "c", "d", "e"};
  std::map<std::string, double> seconds = {{"a", 31}, {"b", 10}, {"c", 10}, {"d", 10}, {"e", 9}};
  std::vector<std::vector<size_t>> shards;
  for (size_t k = 0; k < 2; ++k) shards.push_back(shard_members(names, Shard{k, 2, "--shard", ""}, seconds));
  EXPECT_EQ(shards[0], (std::vector<size_t>{0}));           // a: 31 s
  EXPECT_EQ(shards[1], (std::vector<size_t>{1, 2, 3, 4}));  // 39 s
  // A name with no time counts as the median of the known ones.
  auto unknown = shard_members({"a", "b", "z"}, Shard{1, 2, "--shard", ""}, {{"a", 5}, {"b", 1}});
  EXPECT_EQ(unknown, (std::vector<size_t>{2}));  // z counts 5 s: a and z first, b after a
}

}  // namespace
}  // namespace tidemark
