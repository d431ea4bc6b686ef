#include "bisect/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace tidemark::bisect {
namespace {

// A history of `count` candidates whose first bad is `first_bad`; `skipped` never judge.
struct Planted {
  size_t count;
  size_t first_bad;
  std::set<size_t> skipped;
  std::set<size_t> nondeterministic;
  size_t judged = 0;
  Judge judge() {
    return [this](size_t index) -> Result<Judged> {
      ++judged;
      if (skipped.contains(index)) return Judged{Judgement::Skip, "does not build"};
      if (nondeterministic.contains(index)) return Judged{Judgement::Nondeterministic, "two digests"};
      return Judged{index >= first_bad ? Judgement::Bad : Judgement::Good, ""};
    };
  }
};

TEST(BisectSearch, FindsEveryPlantedFirstBadWithinTheBound) {
  for (size_t count : {2u, 3u, 4u, 5u, 8u, 17u, 24u, 100u, 1000u})
    for (size_t first_bad = 1; first_bad < count; ++first_bad) {
      Planted planted{count, first_bad};
      auto found = search(count, planted.judge());
      ASSERT_TRUE(found) << found.error().message;
      EXPECT_EQ(found->first_bad, first_bad) << count;
      EXPECT_EQ(found->last_good, first_bad - 1) << count;
      EXPECT_TRUE(found->undecided.empty());
      EXPECT_LE(planted.judged, judgement_bound(count)) << count << " " << first_bad;
      EXPECT_EQ(found->tried.size(), planted.judged);
      EXPECT_EQ(found->tried[0].index, 0u);
      EXPECT_EQ(found->tried[1].index, count - 1);
    }
}

TEST(BisectSearch, EachJudgementAfterTheFirstWasAmongThoseToldAhead) {
  for (size_t first_bad = 1; first_bad < 24; ++first_bad) {
    Planted planted{24, first_bad, {11, 12}};
    planted.skipped.erase(first_bad);
    std::vector<std::vector<size_t>> told;
    auto found = search(24, planted.judge(), [&](const std::vector<size_t>& next) { told.push_back(next); });
    ASSERT_TRUE(found);
    ASSERT_EQ(told.size(), found->tried.size());
    for (size_t k = 1; k < found->tried.size(); ++k) {
      const auto& before = told[k - 1];
      EXPECT_NE(std::find(before.begin(), before.end(), found->tried[k].index), before.end()) << first_bad << " " << k;
    }
  }
}

TEST(BisectSearch, TheBoundIsTheEndsAndTheHalvings) {
  EXPECT_EQ(judgement_bound(2), 3u);
  EXPECT_EQ(judgement_bound(24), 7u);  // ceil(log2 24) = 5
  EXPECT_EQ(judgement_bound(32), 7u);
  EXPECT_EQ(judgement_bound(33), 8u);
}

TEST(BisectSearch, SkipsNextToTheBoundaryStayWithinTheBoundPlusTheSkips) {
  for (size_t first_bad = 2; first_bad < 22; ++first_bad) {
    // The candidates either side of the boundary do not build (but the first bad itself does).
    Planted planted{24, first_bad, {first_bad - 1, first_bad + 1}};
    planted.skipped.erase(0);
    planted.skipped.erase(23);
    auto found = search(24, planted.judge());
    ASSERT_TRUE(found) << found.error().message;
    size_t skips = 0;
    for (const auto& tried : found->tried) skips += tried.judged.judgement == Judgement::Skip;
    EXPECT_LE(planted.judged, judgement_bound(24) + skips) << first_bad;
    if (planted.skipped.contains(first_bad - 1)) {
      // The last good that could be judged is before the skip: the first bad is one of the two.
      EXPECT_EQ(found->first_bad, first_bad);
      EXPECT_EQ(found->last_good, first_bad - 2);
      EXPECT_EQ(found->undecided, std::vector<size_t>{first_bad - 1});
    }
  }
}

TEST(BisectSearch, ASkippedFirstBadLeavesTheRangeUndecided) {
  Planted planted{16, 9, {9}};
  auto found = search(16, planted.judge());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->last_good, 8u);
  EXPECT_EQ(found->first_bad, 10u);
  EXPECT_EQ(found->undecided, std::vector<size_t>{9});
}

TEST(BisectSearch, AllSkippedBetweenTheEndsIsUndecidedAcrossTheRange) {
  Planted planted{6, 3, {1, 2, 3, 4}};
  auto found = search(6, planted.judge());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->last_good, 0u);
  EXPECT_EQ(found->first_bad, 5u);
  EXPECT_EQ(found->undecided, (std::vector<size_t>{1, 2, 3, 4}));
  EXPECT_EQ(planted.judged, 6u);  // each judged once
}

TEST(BisectSearch, ANondeterministicCandidateIsReportedNeverGuessed) {
  Planted planted{10, 5, {}, {5}};
  auto found = search(10, planted.judge());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->first_bad, 6u);
  EXPECT_EQ(found->undecided, std::vector<size_t>{5});
  bool reported = false;
  for (const auto& tried : found->tried)
    reported = reported || (tried.index == 5 && tried.judged.judgement == Judgement::Nondeterministic);
  EXPECT_TRUE(reported);
}

TEST(BisectSearch, TheEndsAreCheckedFirstAndNamed) {
  Planted bad_good_end{10, 0};  // everything bad: the good end is bad
  auto found = search(10, bad_good_end.judge());
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(found.error().message, "the good end (candidate 1) is bad, expected good: ");
  EXPECT_EQ(bad_good_end.judged, 1u);

  Planted good_bad_end{10, 10};  // everything good: the bad end is good
  found = search(10, good_bad_end.judge());
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().message, "the bad end (candidate 10) is good, expected bad: ");

  Planted skipped_end{10, 4, {9}};
  found = search(10, skipped_end.judge());
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().message, "the bad end (candidate 10) is skip, expected bad: does not build");
}

TEST(BisectSearch, TooFewCandidatesAndAJudgesErrorEndIt) {
  EXPECT_FALSE(search(1, [](size_t) -> Result<Judged> { return Judged{}; }));
  auto found = search(5, [](size_t) -> Result<Judged> { return fail(ErrorKind::Environment, "no lavapipe"); });
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error().kind, ErrorKind::Environment);
}

TEST(BisectSearch, JudgementNamesRoundTrip) {
  for (auto judgement : {Judgement::Good, Judgement::Bad, Judgement::Skip, Judgement::Nondeterministic})
    EXPECT_EQ(judgement_from_name(judgement_name(judgement)), judgement);
  EXPECT_FALSE(judgement_from_name("maybe"));
}

}  // namespace
}  // namespace tidemark::bisect
