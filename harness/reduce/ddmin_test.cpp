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

// A judge that finds a candidate interesting when it holds at least `least` items, any of them
// (a threshold crossed by repetition), and counts what it was asked.
struct ThresholdJudge {
  size_t least;
  size_t judged = 0;
  Judge judge() {
    return [this](const std::vector<std::vector<size_t>>& candidates) {
      judged += candidates.size();
      std::vector<bool> verdicts;
      for (const auto& candidate : candidates) verdicts.push_back(candidate.size() >= least);
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

// Check that a property that needs many items (any 300 of 10 000: a threshold crossed by
// repetition) is cut to a run of exactly 300 in O(log n) judgements, and that a core spread
// through the items keeps the run from its first item to its last.
TEST(ShortestWindow, CutsARepetitionThresholdInLogarithmicallyManyJudgements) {
  ThresholdJudge at_least{300};
  const auto window = shortest_window(range(10000), at_least.judge());
  EXPECT_EQ(window.size(), 300u);
  EXPECT_LT(at_least.judged, 90u);
  CoreJudge core{{40, 700, 3000}};
  EXPECT_EQ(shortest_window(range(10000), core.judge()), [] {
    std::vector<size_t> run(3000 - 40 + 1);
    std::iota(run.begin(), run.end(), 40);
    return run;
  }());
}

// Check that a search stopped part way (a budget spent) gives what it reached: interesting,
// larger than the end it would have reached, reached in fewer judgements.
TEST(Minimize, AStoppedSearchGivesAnInterestingSubsetItReached) {
  CoreJudge judge{{17, 503, 504, 2048, 9999}};
  const auto whole = minimize(range(10000), judge.judge(), 1);
  const size_t every = judge.calls;
  CoreJudge stopped{{17, 503, 504, 2048, 9999}};
  const auto part = minimize(range(10000), stopped.judge(), 1, [&] { return stopped.calls >= 20; });
  EXPECT_TRUE(std::includes(part.begin(), part.end(), stopped.core.begin(), stopped.core.end()));
  EXPECT_GT(part.size(), whole.size());
  EXPECT_LT(stopped.calls, every);
  CoreJudge window{{40, 700, 3000}};
  const auto cut = shortest_window(range(10000), window.judge(), [&] { return window.calls >= 3; });
  EXPECT_TRUE(std::includes(cut.begin(), cut.end(), window.core.begin(), window.core.end()));
}

// Check that a coarse pass stops at its most parts: a threshold of 300 among 2 000 items is cut
// to within an eighth of it, in far fewer judgements than the 1-minimal search takes.
TEST(Minimize, ACoarsePassStopsAtItsMostParts) {
  ThresholdJudge coarse_judge{300}, whole_judge{300};
  const auto coarse = minimize(range(2000), coarse_judge.judge(), 1, {}, 8);
  EXPECT_GE(coarse.size(), 300u);
  EXPECT_LE(coarse.size(), 300u * 8 / 7 + 1);
  EXPECT_EQ(minimize(range(2000), whole_judge.judge(), 1).size(), 300u);
  EXPECT_LT(coarse_judge.judged * 4, whole_judge.judged);
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
