#include "core/expr.h"

#include <gtest/gtest.h>

#include <map>

namespace tidemark {
namespace {

Lookup from(std::map<std::string, int64_t> values) {
  return [values = std::move(values)](std::string_view name) -> std::optional<int64_t> {
    auto it = values.find(std::string(name));
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

int64_t value_of(std::string_view text, std::map<std::string, int64_t> values = {}) {
  auto expression = Expression::parse(text);
  EXPECT_TRUE(expression.has_value()) << text << ": " << expression.error().message;
  auto value = expression->evaluate(from(std::move(values)));
  EXPECT_TRUE(value.has_value()) << text << ": " << value.error().message;
  return value.value_or(-999);
}

// Check that arithmetic follows the usual precedence and sizes scale by powers of 1024.
TEST(Expression, ArithmeticHonoursPrecedenceAndSizes) {
  EXPECT_EQ(value_of("1 + 2 * 3"), 7);
  EXPECT_EQ(value_of("(1 + 2) * 3"), 9);
  EXPECT_EQ(value_of("10 - 4 - 3"), 3);
  EXPECT_EQ(value_of("17 / 4 % 3"), 1);
  EXPECT_EQ(value_of("-3 + 5"), 2);
  EXPECT_EQ(value_of("4KiB"), 4096);
  EXPECT_EQ(value_of("1 MiB"), 1048576);
  EXPECT_EQ(value_of("2GiB"), int64_t{2} << 30);
  EXPECT_EQ(value_of("8 * 1MiB + 1MiB"), 9437184);
}

// Check that names resolve through the lookup, including dotted knob names.
TEST(Expression, NamesResolveThroughTheLookup) {
  EXPECT_EQ(value_of("wbufs + wire_deferred_mb + 2", {{"wbufs", 1}, {"wire_deferred_mb", 8}}), 11);
  EXPECT_EQ(value_of("knob.x * 2", {{"knob.x", 21}}), 42);
}

// Check that a comparison reports both sides with their source text, for red messages.
TEST(Expression, ComparisonReportsBothSides) {
  auto expression = Expression::parse("wlivepk <= 4 * wbufs");
  ASSERT_TRUE(expression);
  EXPECT_TRUE(expression->is_comparison());
  auto result = expression->compare(from({{"wlivepk", 1025}, {"wbufs", 1}}));
  ASSERT_TRUE(result);
  EXPECT_FALSE(result->holds);
  EXPECT_EQ(result->left, 1025);
  EXPECT_EQ(result->right, 4);
  EXPECT_EQ(result->op, "<=");
  EXPECT_EQ(result->left_text, "wlivepk");
  EXPECT_EQ(result->right_text, "4 * wbufs");
}

TEST(Expression, EveryComparisonOperatorEvaluates) {
  EXPECT_EQ(value_of("3 <= 3"), 1);
  EXPECT_EQ(value_of("3 < 3"), 0);
  EXPECT_EQ(value_of("3 == 3"), 1);
  EXPECT_EQ(value_of("3 != 3"), 0);
  EXPECT_EQ(value_of("4 >= 3"), 1);
  EXPECT_EQ(value_of("3 > 4"), 0);
}

TEST(Expression, IdentifiersAreListedOnceInFirstUseOrder) {
  auto expression = Expression::parse("b + a * b <= c");
  ASSERT_TRUE(expression);
  EXPECT_EQ(expression->identifiers(), (std::vector<std::string>{"b", "a", "c"}));
}

// Check that syntax errors name the column and what was expected.
TEST(Expression, SyntaxErrorsNameColumnAndExpectation) {
  auto missing_operand = Expression::parse("wlivepk <= ");
  ASSERT_FALSE(missing_operand);
  EXPECT_EQ(missing_operand.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(missing_operand.error().message, "column 12: expected a number, a name or '(', found the end");

  auto bad_unit = Expression::parse("4 KB");
  ASSERT_FALSE(bad_unit);
  EXPECT_EQ(bad_unit.error().message, "column 3: expected an operator or the end, found 'K'");

  auto glued_unit = Expression::parse("4KB");
  ASSERT_FALSE(glued_unit);
  EXPECT_EQ(glued_unit.error().message, "column 2: expected a size unit (B, KiB, MiB, GiB), found 'KB'");

  auto unclosed = Expression::parse("(1 + 2");
  ASSERT_FALSE(unclosed);
  EXPECT_EQ(unclosed.error().message, "column 7: expected ')', found the end");
}

TEST(Expression, EvaluationErrorsAreValues) {
  auto unknown = Expression::parse("nope + 1")->evaluate(from({}));
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "unknown name 'nope'");

  auto divide = Expression::parse("1 / (2 - 2)")->evaluate(from({}));
  ASSERT_FALSE(divide);
  EXPECT_EQ(divide.error().message, "division by zero in '1 / (2 - 2)'");

  auto overflow = Expression::parse("8GiB * 8GiB * 8GiB")->evaluate(from({}));
  ASSERT_FALSE(overflow);
  EXPECT_NE(overflow.error().message.find("overflow"), std::string::npos);
}

TEST(Expression, CompareRejectsANonComparison) {
  auto result = Expression::parse("wlivepk + 1")->compare(from({{"wlivepk", 1}}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::BadInput);
}

TEST(ParseSize, AcceptsLiteralSizesOnly) {
  EXPECT_EQ(parse_size("256"), 256);
  EXPECT_EQ(parse_size("64 KiB"), 65536);
  EXPECT_EQ(parse_size("1MiB"), 1048576);
  EXPECT_EQ(parse_size("1 + 1"), std::nullopt);
  EXPECT_EQ(parse_size("1 MB"), std::nullopt);
  EXPECT_EQ(parse_size("lots"), std::nullopt);
}

}  // namespace
}  // namespace tidemark

namespace tidemark {
namespace {

// Check that hostile nesting and length end in a parse error, never a deep recursion.
TEST(Expression, NestingAndLengthAreBounded) {
  std::string parentheses = std::string(10000, '(') + "1" + std::string(10000, ')');
  auto nested = Expression::parse(parentheses);
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("at most 512 characters"), std::string::npos) << nested.error().message;

  std::string minuses = std::string(40, '-') + "1";
  auto negated = Expression::parse(minuses);
  ASSERT_FALSE(negated);
  EXPECT_EQ(negated.error().message, "column 33: expected at most 32 nested parentheses or minus signs, found more");

  std::string deep = std::string(33, '(') + "1" + std::string(33, ')');
  EXPECT_FALSE(Expression::parse(deep));
  std::string fine = std::string(32, '(') + "1" + std::string(32, ')');
  EXPECT_TRUE(Expression::parse(fine));

  std::string sum = "1";
  while (sum.size() + 2 <= kMaxExpressionLength) sum += "+1";
  auto long_sum = Expression::parse(sum);
  ASSERT_TRUE(long_sum) << long_sum.error().message;
  EXPECT_EQ(long_sum->evaluate([](std::string_view) { return std::nullopt; }).value(),
            static_cast<int64_t>(sum.size() / 2 + 1));
}

}  // namespace
}  // namespace tidemark
