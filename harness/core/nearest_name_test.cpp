#include "core/nearest_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tidemark {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwapsAsOneEditEach) {
  EXPECT_EQ(edit_distance("bisect", "bisect"), 0u);
  EXPECT_EQ(edit_distance("bisekt", "bisect"), 1u);   // substitution
  EXPECT_EQ(edit_distance("bisec", "bisect"), 1u);    // insertion
  EXPECT_EQ(edit_distance("bissect", "bisect"), 1u);  // deletion
  EXPECT_EQ(edit_distance("rnu", "run"), 1u);         // neighbours swapped
  EXPECT_EQ(edit_distance("", "run"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(NearestName, AnswersTheClosestNameWithinAThirdOfTheWord) {
  const std::vector<std::string> commands = {"run", "replay", "reduce", "rebase", "red-once", "bisect"};
  EXPECT_EQ(nearest_name("bisekt", commands), "bisect");
  EXPECT_EQ(nearest_name("replya", commands), "replay");
  EXPECT_EQ(nearest_name("rn", commands), "run");
  EXPECT_EQ(nearest_name("frobnicate", commands), std::nullopt);
  EXPECT_EQ(nearest_name("rebuild", commands), std::nullopt);  // three edits from rebase: not close
}

TEST(NearestName, TakesTheFirstOfEquallyCloseNames) {
  const std::vector<std::string> names = {"run", "rub"};
  EXPECT_EQ(nearest_name("ruc", names), "run");
}

}  // namespace
}  // namespace tidemark
