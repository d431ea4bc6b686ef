#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "runner/schedule.h"
#include "runner/selection.h"

namespace tidemark::runner {
namespace {

namespace fs = std::filesystem;

std::string patterns_file(const std::string& name, const std::string& text) {
  const fs::path file = fs::path(::testing::TempDir()) / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(file) << text;
  return file.string();
}

// Check that a seed's order is a permutation of the subjects, the same each time, another for another seed.
TEST(Shuffle, ASeedGivesOnePermutationAndAnotherSeedAnother) {
  const std::vector<size_t> first = shuffled_order(40, 7);
  EXPECT_EQ(first, shuffled_order(40, 7));
  EXPECT_NE(first, shuffled_order(40, 8));
  std::vector<size_t> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], k);
  EXPECT_NE(first, sorted);
}

// Check that the order is pinned: a seed written in a report reproduces it with any standard library.
TEST(Shuffle, TheOrderOfASeedIsTheSameEverywhere) {
  EXPECT_EQ(shuffled_order(6, 1), (std::vector<size_t>{0, 1, 3, 2, 4, 5}));
}

// Check that a --skip line skips the tests it finds, naming its place, and comments and blank lines are no patterns.
TEST(TestFilter, ASkipLineSkipsWhatItMatchesAndSaysWhere) {
  const std::string file = patterns_file("skips.txt", "# flaky on llvmpipe\n\n  Kmd\\.a-full-ring  \nPortable.*@gl$\n");
  auto filter = load_test_filter({file}, {});
  ASSERT_TRUE(filter) << filter.error().message;
  ASSERT_EQ(filter->skips.size(), 2u);
  EXPECT_EQ(filter->skip_reason("Magma.Monolith.Kmd.a-full-ring-makes-the-submitter-wait-for-the-head"),
            "--skip " + file + ":3:3: `Kmd\\.a-full-ring`");
  EXPECT_TRUE(filter->skip_reason("Magma.Spawn.Portable.each-band@gl"));
  EXPECT_FALSE(filter->skip_reason("Magma.Spawn.Portable.each-band@gl-llvmpipe"));
  EXPECT_FALSE(filter->skip_reason("Magma.Monolith.Kmd.fences-never-go-back"));
}

// Check that with --include files a test runs only when a line matches it, and a skip still wins.
TEST(TestFilter, IncludeLinesRunOnlyWhatTheyMatchAndASkipStillWins) {
  const std::string include = patterns_file("include.txt", "\\.Kmd\\.\n\\.Counters\\.\n");
  const std::string skip = patterns_file("skip-fences.txt", "fences\n");
  auto filter = load_test_filter({skip}, {include});
  ASSERT_TRUE(filter) << filter.error().message;
  EXPECT_FALSE(filter->skip_reason("Magma.Monolith.Kmd.a-full-ring"));
  EXPECT_FALSE(filter->skip_reason("Magma.Split.Counters.two-gpus"));
  EXPECT_EQ(filter->skip_reason("Magma.Monolith.Gpumem.an-empty-map"), "matches no --include line (" + include + ")");
  EXPECT_TRUE(filter->skip_reason("Magma.Monolith.Kmd.fences-never-go-back")->starts_with("--skip " + skip + ":1:1"));
}

// Check that a line that is no regular expression is bad input at its line and column.
TEST(TestFilter, ALineThatIsNoRegexIsBadInputAtItsPlace) {
  const std::string file = patterns_file("bad.txt", "Kmd\n# fine\n  Portable.(each\n");
  auto filter = load_test_filter({file}, {});
  ASSERT_FALSE(filter);
  EXPECT_EQ(filter.error().kind, ErrorKind::BadInput);
  EXPECT_TRUE(filter.error().message.starts_with(file + ":3:3: expected a regular expression (ECMAScript), found "
                                                        "'Portable.(each'"))
      << filter.error().message;
}

// Check that a patterns file that is not there is an error naming it.
TEST(TestFilter, AMissingFileIsAnErrorNamingIt) {
  auto filter = load_test_filter({}, {"/nonexistent/include.txt"});
  ASSERT_FALSE(filter);
  EXPECT_NE(filter.error().message.find("/nonexistent/include.txt"), std::string::npos) << filter.error().message;
}

}  // namespace
}  // namespace tidemark::runner
