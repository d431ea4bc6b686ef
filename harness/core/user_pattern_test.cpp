#include "core/user_pattern.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace tidemark {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Check that a pattern is searched for anywhere in the text, as a --skip line always was.
TEST(UserPattern, IsFoundAnywhereInTheTextUnlessAnchored) {
  auto reclaim = UserPattern::compile("reclaim", "--only", "a build name pattern");
  ASSERT_TRUE(reclaim);
  EXPECT_TRUE(reclaim->found_in("Magma.Monolith.reclaim.four-frames"));
  EXPECT_FALSE(reclaim->found_in("Magma.Monolith.gpumem.four-frames"));
  auto anchored = UserPattern::compile("^Magma\\.Spawn\\.", "--only", "a build name pattern");
  ASSERT_TRUE(anchored);
  EXPECT_TRUE(anchored->found_in("Magma.Spawn.reclaim.x"));
  EXPECT_FALSE(anchored->found_in("Capture.Magma.Spawn.reclaim.x"));
  EXPECT_EQ(anchored->text(), "^Magma\\.Spawn\\.");
}

// Check that the patterns std::regex backtracked on for 40-60 s, and the one whose 30 000 nested
// groups overflowed its stack, end at once with the right answer or a clear refusal.
TEST(UserPattern, HostilePatternsEndAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  auto any_z = UserPattern::compile("^(.|.)*Z$", "skips.txt:1:1", "a test name pattern");
  ASSERT_TRUE(any_z);
  EXPECT_FALSE(any_z->found_in(std::string(35, 'x')));
  EXPECT_TRUE(any_z->found_in(std::string(35, 'x') + "Z"));
  auto nested = UserPattern::compile("^(a+)+$", "--only", "a build name pattern");
  ASSERT_TRUE(nested);
  EXPECT_FALSE(nested->found_in(std::string(41, 'a') + "b"));
  EXPECT_TRUE(nested->found_in(std::string(41, 'a')));
  EXPECT_LT(seconds_since(start), 1.0);

  const std::string deep = std::string(30000, '(') + "x" + std::string(30000, ')');
  auto refused = UserPattern::compile(deep, "skips.txt:3:1", "a test name pattern");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(refused.error().message,
            "skips.txt:3:1: expected a test name pattern (an RE2 regular expression) of at most 1024 characters, "
            "found 60001 characters");
  const std::string deepest_allowed = std::string(511, '(') + "x" + std::string(511, ')');
  EXPECT_TRUE(UserPattern::compile(deepest_allowed, "skips.txt:4:1", "a test name pattern"));
}

// Check that a pattern whose program is past the memory bound, and one that is no RE2 pattern,
// are bad input at the place given, naming what was found.
TEST(UserPattern, AnUncompilablePatternIsBadInputAtItsPlace) {
  std::string huge_text;
  for (int k = 0; k < 20; ++k) huge_text += "[^a]{1000}";
  auto huge = UserPattern::compile(huge_text, "--only", "a build name pattern");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message, "--only: expected a build name pattern (an RE2 regular expression), found '" +
                                      huge_text.substr(0, 80) +
                                      "'... (200 characters) (pattern too large - compile "
                                      "failed)");
  auto lookahead = UserPattern::compile("a(?=b)", "skips.txt:2:5", "a test name pattern");
  ASSERT_FALSE(lookahead);
  EXPECT_EQ(lookahead.error().message,
            "skips.txt:2:5: expected a test name pattern (an RE2 regular expression), found 'a(?=b)' (invalid perl "
            "operator: (?=)");
}

// Check that a list is bounded as a whole: in patterns, and in the program they make together.
TEST(PatternList, IsBoundedInPatternsAndInProgram) {
  PatternList many("a test name pattern");
  for (size_t k = 0; k < kMaxListedPatterns; ++k) ASSERT_TRUE(many.add("a", {"skips.txt", int(k) + 1, 1}));
  auto one_more = many.add("a", {"skips.txt", int(kMaxListedPatterns) + 1, 1});
  ASSERT_FALSE(one_more);
  EXPECT_EQ(one_more.error().message, "skips.txt:10001:1: expected at most 10000 patterns in all, found more");

  PatternList big("a test name pattern");
  Status added;
  int line = 0;
  while (added && line < 1000) added = big.add("[^a]{1000}[^b]{1000}", {"skips.txt", ++line, 1});
  ASSERT_FALSE(added);
  EXPECT_LT(line, 100);
  EXPECT_NE(added.error().message.find(fmt::format("skips.txt:{}:1: expected patterns of at most", line)),
            std::string::npos)
      << added.error().message;
}

// Check that a list answers with the first of its patterns found in a text, and its place.
TEST(PatternList, AnswersTheFirstPatternFoundWithItsPlace) {
  PatternList list("a test name pattern");
  ASSERT_TRUE(list.add("gpumem", {"skips.txt", 1, 1}));
  ASSERT_TRUE(list.add("Spawn", {"skips.txt", 2, 3}));
  ASSERT_TRUE(list.add("reclaim", {"skips.txt", 3, 1}));
  const PlacedPattern* found = list.first_found_in("Magma.Spawn.reclaim.x");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->pattern.text(), "Spawn");
  EXPECT_EQ(format_location(found->where), "skips.txt:2:3");
  EXPECT_EQ(list.first_found_in("Magma.Tcp.kgsl.x"), nullptr);
}

}  // namespace
}  // namespace tidemark
