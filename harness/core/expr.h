// Small integer expressions shared by gauge checks and workload fields:
//   wdefpk <= wire_deferred_mb * 1MiB + 1MiB      wlivepk == 1      i + 1
// Grammar: comparison := sum (('<=' | '<' | '==' | '!=' | '>=' | '>') sum)?
//          sum := product (('+' | '-') product)*
//          product := unary (('*' | '/' | '%') unary)*
//          unary := '-' unary | primary
//          primary := integer [KiB|MiB|GiB] | identifier | '(' sum ')'
// Values are signed 64-bit; a size suffix multiplies by 1024^k.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark {

// Resolves an identifier to a value, or nullopt when it is unknown.
using Lookup = std::function<std::optional<int64_t>(std::string_view name)>;

struct ExprNode;

// Bounds that keep parsing and evaluation (both recursive) small: real checks and sizes are a
// few dozen characters and two or three levels deep.
inline constexpr size_t kMaxExpressionLength = 512;
inline constexpr int kMaxExpressionDepth = 32;  // nested parentheses and unary minuses

class Expression {
 public:
  // Parses `text`; errors name the 1-based column within `text` and what was expected.
  static Result<Expression> parse(std::string_view text);

  bool is_comparison() const;
  // Identifiers the expression reads, in first-use order.
  const std::vector<std::string>& identifiers() const { return identifiers_; }
  const std::string& text() const { return text_; }

  // Value of the expression (a comparison yields 1 or 0). Errors: unknown identifier,
  // division by zero, overflow.
  Result<int64_t> evaluate(const Lookup& lookup) const;

  // For a comparison: both sides' values, for messages such as `wlivepk = 1025, bound 4`.
  struct Comparison {
    bool holds = false;
    int64_t left = 0;
    int64_t right = 0;
    std::string op;
    std::string left_text;
    std::string right_text;
  };
  Result<Comparison> compare(const Lookup& lookup) const;

  // The value when the expression is a lone literal such as `4KiB`.
  std::optional<int64_t> literal_value() const;

 private:
  std::string text_;
  std::shared_ptr<const ExprNode> root_;
  std::vector<std::string> identifiers_;
};

// Parses "4096", "4KiB", "1 MiB", "2GiB" into bytes.
std::optional<int64_t> parse_size(std::string_view text);

}  // namespace tidemark
