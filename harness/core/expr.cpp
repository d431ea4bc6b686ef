#include "core/expr.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>

namespace tidemark {

struct ExprNode {
  enum class Kind { Literal, Identifier, Negate, Binary };
  Kind kind = Kind::Literal;
  int64_t value = 0;
  std::string name;  // identifier, or the operator of a binary node
  std::string text;  // the source text this node was parsed from, trimmed
  std::shared_ptr<const ExprNode> left;
  std::shared_ptr<const ExprNode> right;
};

namespace {

using NodePtr = std::shared_ptr<const ExprNode>;

bool is_comparison_op(std::string_view op) {
  return op == "<=" || op == "<" || op == "==" || op == "!=" || op == ">=" || op == ">";
}

std::optional<int64_t> size_unit(std::string_view unit) {
  if (unit.empty() || unit == "B") return 1;
  if (unit == "KiB") return int64_t{1} << 10;
  if (unit == "MiB") return int64_t{1} << 20;
  if (unit == "GiB") return int64_t{1} << 30;
  return std::nullopt;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// Recursive descent over the grammar in expr.h.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<NodePtr> parse_all(std::vector<std::string>& identifiers) {
    identifiers_ = &identifiers;
    if (text_.size() > kMaxExpressionLength) {
      pos_ = kMaxExpressionLength;
      return error(fmt::format("an expression of at most {} characters", kMaxExpressionLength),
                   fmt::format("{} characters", text_.size()));
    }
    auto root = parse_comparison();
    if (!root) return root;
    skip_space();
    if (pos_ != text_.size()) return error("an operator or the end", describe_here());
    return root;
  }

 private:
  Result<NodePtr> parse_comparison() {
    size_t start = position_after_space();
    auto left = parse_sum();
    if (!left) return left;
    skip_space();
    for (std::string_view op : {"<=", ">=", "==", "!=", "<", ">"}) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        auto right = parse_sum();
        if (!right) return right;
        return binary(std::string(op), *left, *right, start);
      }
    }
    return left;
  }

  Result<NodePtr> parse_sum() {
    size_t start = position_after_space();
    auto left = parse_product();
    if (!left) return left;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-')) return left;
      std::string op(1, text_[pos_++]);
      auto right = parse_product();
      if (!right) return right;
      left = binary(op, *left, *right, start);
    }
  }

  Result<NodePtr> parse_product() {
    size_t start = position_after_space();
    auto left = parse_unary();
    if (!left) return left;
    for (;;) {
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/' && text_[pos_] != '%')) return left;
      std::string op(1, text_[pos_++]);
      auto right = parse_unary();
      if (!right) return right;
      left = binary(op, *left, *right, start);
    }
  }

  // Guards a nesting level: parentheses and unary minuses recurse.
  struct Nesting {
    explicit Nesting(int& depth) : depth_(depth) { ++depth_; }
    ~Nesting() { --depth_; }
    int& depth_;
  };
  std::optional<std::unexpected<Error>> too_deep() const {
    if (depth_ <= kMaxExpressionDepth) return std::nullopt;
    return error(fmt::format("at most {} nested parentheses or minus signs", kMaxExpressionDepth), "more");
  }

  Result<NodePtr> parse_unary() {
    size_t start = position_after_space();
    if (pos_ < text_.size() && text_[pos_] == '-') {
      Nesting nesting(depth_);
      if (auto deep = too_deep()) return *deep;
      ++pos_;
      auto operand = parse_unary();
      if (!operand) return operand;
      auto node = std::make_shared<ExprNode>();
      node->kind = ExprNode::Kind::Negate;
      node->left = *operand;
      node->text = std::string(trim(text_.substr(start, pos_ - start)));
      return NodePtr(node);
    }
    return parse_primary();
  }

  Result<NodePtr> parse_primary() {
    size_t start = position_after_space();
    if (pos_ >= text_.size()) return error("a number, a name or '('", "the end");
    char c = text_[pos_];
    if (c == '(') {
      Nesting nesting(depth_);
      if (auto deep = too_deep()) return *deep;
      ++pos_;
      auto inner = parse_sum();
      if (!inner) return inner;
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != ')') return error("')'", describe_here());
      ++pos_;
      auto node = std::make_shared<ExprNode>(**inner);
      node->text = std::string(text_.substr(start, pos_ - start));
      return NodePtr(node);
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return parse_number(start);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' || text_[pos_] == '.'))
        ++pos_;
      auto node = std::make_shared<ExprNode>();
      node->kind = ExprNode::Kind::Identifier;
      node->name = std::string(text_.substr(start, pos_ - start));
      node->text = node->name;
      bool seen = false;
      for (const auto& known : *identifiers_) seen = seen || known == node->name;
      if (!seen) identifiers_->push_back(node->name);
      return NodePtr(node);
    }
    return error("a number, a name or '('", describe_here());
  }

  Result<NodePtr> parse_number(size_t start) {
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      int digit = text_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        pos_ = start;
        return error("a number that fits in 64 bits", "a longer one");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    size_t unit_start = pos_;
    // "1 MiB" as well as "1MiB": step over spaces only when a unit follows.
    size_t after_space = pos_;
    while (after_space < text_.size() && text_[after_space] == ' ') ++after_space;
    if (after_space != pos_ && size_unit(word_at(after_space)).value_or(0) > 1) {
      pos_ = after_space;
      unit_start = pos_;
    }
    while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    std::string_view unit = text_.substr(unit_start, pos_ - unit_start);
    auto scale = size_unit(unit);
    if (!scale) {
      pos_ = unit_start;
      return error("a size unit (B, KiB, MiB, GiB)", fmt::format("'{}'", unit));
    }
    if (value > std::numeric_limits<int64_t>::max() / *scale) {
      pos_ = start;
      return error("a size that fits in 64 bits", "a larger one");
    }
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::Literal;
    node->value = value * *scale;
    node->text = std::string(text_.substr(start, pos_ - start));
    return NodePtr(node);
  }

  NodePtr binary(std::string op, NodePtr left, NodePtr right, size_t start) {
    auto node = std::make_shared<ExprNode>();
    node->kind = ExprNode::Kind::Binary;
    node->name = std::move(op);
    node->left = std::move(left);
    node->right = std::move(right);
    node->text = std::string(trim(text_.substr(start, pos_ - start)));
    return node;
  }

  std::string_view word_at(size_t at) const {
    size_t end = at;
    while (end < text_.size() && std::isalpha(static_cast<unsigned char>(text_[end]))) ++end;
    return text_.substr(at, end - at);
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  size_t position_after_space() {
    skip_space();
    return pos_;
  }
  std::string describe_here() const {
    if (pos_ >= text_.size()) return "the end";
    return fmt::format("'{}'", text_.substr(pos_, 1));
  }
  std::unexpected<Error> error(std::string_view expected, std::string_view found) const {
    return fail(ErrorKind::BadInput, fmt::format("column {}: expected {}, found {}", pos_ + 1, expected, found));
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::vector<std::string>* identifiers_ = nullptr;
};

Result<int64_t> eval(const ExprNode& node, const Lookup& lookup) {
  switch (node.kind) {
    case ExprNode::Kind::Literal:
      return node.value;
    case ExprNode::Kind::Identifier: {
      auto value = lookup(node.name);
      if (!value) return fail(ErrorKind::BadInput, fmt::format("unknown name '{}'", node.name));
      return *value;
    }
    case ExprNode::Kind::Negate: {
      auto value = eval(*node.left, lookup);
      if (!value) return value;
      if (*value == std::numeric_limits<int64_t>::min())
        return fail(ErrorKind::BadInput, fmt::format("overflow in '{}'", node.text));
      return -*value;
    }
    case ExprNode::Kind::Binary:
      break;
  }
  auto left = eval(*node.left, lookup);
  if (!left) return left;
  auto right = eval(*node.right, lookup);
  if (!right) return right;
  const std::string& op = node.name;
  int64_t a = *left, b = *right;
  if (op == "<=") return int64_t{a <= b};
  if (op == "<") return int64_t{a < b};
  if (op == "==") return int64_t{a == b};
  if (op == "!=") return int64_t{a != b};
  if (op == ">=") return int64_t{a >= b};
  if (op == ">") return int64_t{a > b};
  if ((op == "/" || op == "%") && b == 0)
    return fail(ErrorKind::BadInput, fmt::format("division by zero in '{}'", node.text));
  int64_t result = 0;
  bool overflow = false;
  if (op == "+") overflow = __builtin_add_overflow(a, b, &result);
  if (op == "-") overflow = __builtin_sub_overflow(a, b, &result);
  if (op == "*") overflow = __builtin_mul_overflow(a, b, &result);
  if (op == "/" || op == "%") {
    overflow = a == std::numeric_limits<int64_t>::min() && b == -1;
    if (!overflow) result = op == "/" ? a / b : a % b;
  }
  if (overflow) return fail(ErrorKind::BadInput, fmt::format("overflow in '{}'", node.text));
  return result;
}

}  // namespace

Result<Expression> Expression::parse(std::string_view text) {
  Expression expression;
  expression.text_ = std::string(trim(text));
  Parser parser(text);
  auto root = parser.parse_all(expression.identifiers_);
  if (!root) return std::unexpected(root.error());
  expression.root_ = *root;
  return expression;
}

bool Expression::is_comparison() const {
  return root_ && root_->kind == ExprNode::Kind::Binary && is_comparison_op(root_->name);
}

Result<int64_t> Expression::evaluate(const Lookup& lookup) const { return eval(*root_, lookup); }

Result<Expression::Comparison> Expression::compare(const Lookup& lookup) const {
  if (!is_comparison())
    return fail(ErrorKind::BadInput, fmt::format("expected a comparison (<=, <, ==, !=, >=, >), found '{}'", text_));
  auto left = eval(*root_->left, lookup);
  if (!left) return std::unexpected(left.error());
  auto right = eval(*root_->right, lookup);
  if (!right) return std::unexpected(right.error());
  auto holds = eval(*root_, lookup);
  if (!holds) return std::unexpected(holds.error());
  return Comparison{*holds != 0, *left, *right, root_->name, root_->left->text, root_->right->text};
}

std::optional<int64_t> Expression::literal_value() const {
  if (!root_ || root_->kind != ExprNode::Kind::Literal) return std::nullopt;
  return root_->value;
}

std::optional<int64_t> parse_size(std::string_view text) {
  auto expression = Expression::parse(text);
  if (!expression) return std::nullopt;
  return expression->literal_value();
}

}  // namespace tidemark
