#include "reduce/ddmin.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace tidemark::reduce {
namespace {

std::vector<size_t> range(size_t n) {
  std::vector<size_t> items(n);
  std::iota(items.begin(), items.end(), 0);
  return items;
}

// A judge that finds a candidate interesting when it holds every item of `core`, and counts
// what it was asked.
struct CoreJudge {
  std::set<size_t> core;
  size_t judged = 0;
  size_t calls = 0;
  Judge judge() {
    return [this](const std::vector<std::vector<size_t>>& candidates) {
      ++calls;
      std::vector<bool> verdicts;
      for (const auto& candidate : candidates) {
        ++judged;
        verdicts.push_back(std::includes(candidate.begin(), candidate.end(), core.begin(), core.end()));
      }
      return verdicts;
    };
  }
};

// Check that ddmin finds exactly a known core of five items spread through 10 000 of noise,
// in far fewer judgements than items.
TEST(Minimize, FindsExactlyTheCoreInsideNoise) {
  CoreJudge judge{{17, 503, 504, 2048, 9999}};
  auto found = minimize(range(10000), judge.judge(), 1);
  EXPECT_THAT(found, ::testing::ElementsAre(17, 503, 504, 2048, 9999));
  EXPECT_LT(judge.judged, 1000u);
}

// Check that judging in batches (as the reducer does on several cores) reaches the very same
// core: the first interesting candidate in batch order is taken, whatever the batch size.
TEST(Minimize, BatchesGiveTheSameResult) {
  for (size_t batch : {1, 2, 3, 8}) {
    CoreJudge judge{{3, 4, 900, 901, 902, 1500}};
    EXPECT_THAT(minimize(range(2000), judge.judge(), batch), ::testing::ElementsAre(3, 4, 900, 901, 902, 1500))
        << "batch " << batch;
  }
}

// Check that with two cores either of which is enough, the result is 1-minimal: it is one
// core whole, not a mixture that needs every item.
TEST(Minimize, TheResultIsOneMinimal) {
  auto either = [](const std::vector<std::vector<size_t>>& candidates) {
    std::vector<bool> verdicts;
    for (const auto& c : candidates) {
      auto has = [&](size_t x) { return std::binary_search(c.begin(), c.end(), x); };
      verdicts.push_back((has(10) && has(20)) || (has(30) && has(40) && has(50)));
    }
    return verdicts;
  };
  auto found = minimize(range(64), either, 2);
  EXPECT_TRUE(found == (std::vector<size_t>{10, 20}) || found == (std::vector<size_t>{30, 40, 50}))
      << ::testing::PrintToString(found);
}

// Check the edges: an item nothing needs goes (the empty set is tried last), and a single
// needed item stays.
TEST(Minimize, ASingleItemIsKeptOnlyWhenNeeded) {
  CoreJudge needed{{0}};
  EXPECT_THAT(minimize({0}, needed.judge(), 1), ::testing::ElementsAre(0));
  CoreJudge nothing{{}};
  EXPECT_TRUE(minimize(range(5), nothing.judge(), 1).empty());
}

// Check that the search finds the least value that holds, in few rounds of two values, and
// never tries below `low`.
TEST(LeastValue, FindsTheThresholdInRoundsOfTwo) {
  int rounds = 0;
  int64_t lowest_tried = 1 << 20;
  auto at_least = [&](int64_t threshold) {
    return [&, threshold](const std::vector<int64_t>& values) {
      ++rounds;
      EXPECT_LE(values.size(), 2u);
      std::vector<bool> verdicts;
      for (int64_t v : values) {
        lowest_tried = std::min(lowest_tried, v);
        verdicts.push_back(v >= threshold);
      }
      return verdicts;
    };
  };
  EXPECT_EQ(least_value(1, 65536, at_least(300)), 300);
  EXPECT_LE(rounds, 11);  // log3(65536) rounds, rounded up
  EXPECT_GE(lowest_tried, 1);
  for (int64_t threshold : {1, 2, 3, 4, 99, 100})
    EXPECT_EQ(least_value(1, 100, at_least(threshold)), threshold) << threshold;
  EXPECT_EQ(least_value(5, 5, at_least(300)), 5);
}

}  // namespace
}  // namespace tidemark::reduce
