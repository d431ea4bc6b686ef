#include "core/option_values.h"

#include <gtest/gtest.h>

namespace tidemark {
namespace {

std::string error_of(const Result<int64_t>& result) { return result ? "" : result.error().message; }
std::string error_of(const Result<double>& result) { return result ? "" : result.error().message; }

// Check that a whole number is read whole and in its range: never wrapped, clamped or read in
// another base.
TEST(OptionValues, AWholeNumberIsInItsRangeOrBadInput) {
  EXPECT_EQ(parse_whole_number("5", 0, 10), 5);
  EXPECT_EQ(parse_whole_number("-3"), -3);
  EXPECT_EQ(parse_whole_number("010", 0, 100), 10);
  EXPECT_EQ(error_of(parse_whole_number("-1", 0, 100)), "expected an integer from 0 to 100, found '-1'");
  EXPECT_EQ(error_of(parse_whole_number("99999999999999999999")),
            "expected an integer from -9223372036854775808 to 9223372036854775807, found '99999999999999999999'");
  for (const char* text : {"", "+5", " 5", "5 ", "0x10", "5.0", "1e3", "five", "nan"})
    EXPECT_FALSE(parse_whole_number(text)) << text;
  EXPECT_EQ(parse_whole_number("9223372036854775807"), INT64_MAX);
}

// Check that seconds are finite and above 0, 0 only where it means no limit: nan once meant
// "no limit" in run, replay and observe.
TEST(OptionValues, SecondsAreFiniteAndPositive) {
  EXPECT_EQ(parse_seconds("2.5", ZeroSeconds::Refused), 2.5);
  EXPECT_EQ(parse_seconds("0", ZeroSeconds::MeansNoLimit), 0.0);
  EXPECT_EQ(error_of(parse_seconds("0", ZeroSeconds::Refused)), "expected seconds, a finite number above 0, found '0'");
  EXPECT_EQ(error_of(parse_seconds("nan", ZeroSeconds::MeansNoLimit)),
            "expected seconds, a finite number above 0 (0: no limit), found 'nan'");
  for (const char* text : {"inf", "-inf", "infinity", "NAN", "-1", "-0.5", "1e999", "", "2s", "0x10"})
    EXPECT_FALSE(parse_seconds(text, ZeroSeconds::MeansNoLimit)) << text;
}

// Check that a bound is a finite number from 0.
TEST(OptionValues, ABoundIsFiniteFromZero) {
  EXPECT_EQ(parse_finite_bound("22.5"), 22.5);
  EXPECT_EQ(parse_finite_bound("0"), 0.0);
  EXPECT_EQ(error_of(parse_finite_bound("nan")), "expected a finite number from 0, found 'nan'");
  EXPECT_FALSE(parse_finite_bound("-1"));
  EXPECT_FALSE(parse_finite_bound("inf"));
}

}  // namespace
}  // namespace tidemark
