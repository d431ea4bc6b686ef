#include "scenario/yaml_reader.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "core/limits.h"

namespace tidemark::scenario::yaml {

namespace {

// A message lists at most this many names, then says how many there are.
constexpr size_t kMaxNamesShown = 40;

template <class Names>
std::string join_names(const Names& names, std::string_view when_empty) {
  if (names.empty()) return std::string(when_empty);
  std::string joined;
  for (size_t i = 0; i < names.size() && i < kMaxNamesShown; ++i) {
    if (!joined.empty()) joined += ", ";
    joined += names[i];
  }
  if (names.size() > kMaxNamesShown) joined += fmt::format(", ... ({} in all)", names.size());
  return joined;
}

bool is_identifier_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Index of the first character breaking each pattern, or nullopt when `text` matches.
std::optional<size_t> kebab_mismatch(std::string_view text) {
  if (text.empty()) return 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (!((text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') || text[i] == '-')) return i;
  return std::nullopt;
}

std::optional<size_t> identifier_mismatch(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (!is_identifier_char(text[i])) return i;
  return std::nullopt;
}

// 0 when there is no dot at all.
std::optional<size_t> dotted_mismatch(std::string_view text) {
  if (text.find('.') == std::string_view::npos) return 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (is_identifier_char(text[i])) continue;
    bool joins_two_parts = text[i] == '.' && i > 0 && text[i - 1] != '.' && i + 1 < text.size();
    if (!joins_two_parts) return i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> parse_integer(std::string_view text) {
  if (text.starts_with('+')) return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string join(const std::vector<std::string_view>& names, std::string_view when_empty) {
  return join_names(names, when_empty);
}
std::string join(const std::vector<std::string>& names, std::string_view when_empty) {
  return join_names(names, when_empty);
}
bool contains(const std::vector<std::string_view>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}
bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string quote(std::string_view text) {
  constexpr size_t kMaxShown = 60;
  std::string shown;
  for (char c : text.substr(0, kMaxShown)) shown += c == '\n' ? std::string("\\n") : std::string(1, c);
  if (text.size() > kMaxShown) shown += "...";
  return fmt::format("'{}'", shown);
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return quote(node.Scalar());
    case YAML::NodeType::Sequence:
      return node.size() == 0 ? "an empty list" : "a list";
    case YAML::NodeType::Map:
      return node.size() == 0 ? "an empty map" : "a map";
    default:
      return "nothing";
  }
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string without_spaces(std::string_view text) {
  std::string kept;
  for (char c : text)
    if (!is_space(c)) kept += c;
  return kept;
}

size_t word_offset(std::string_view text, std::string_view name) {
  auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !is_word(text[at - 1]);
    bool ends = at + name.size() == text.size() || !is_word(text[at + name.size()]);
    if (starts && ends) return at;
  }
  return 0;
}

std::unexpected<Error> error_at(const SourceLocation& where, std::string_view expected, std::string_view found) {
  return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found {}", format_location(where), expected, found));
}

// ---- Source ------------------------------------------------------------------------------

Source::Source(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {
  std::istringstream stream{std::string(text)};
  for (std::string line; std::getline(stream, line);) lines_.push_back(line);
}

SourceLocation Source::at(const YAML::Mark& mark) const {
  return {file_, std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1};
}

Value Source::value(const YAML::Node& node, const SourceLocation& fallback) const {
  return {node, node.IsNull() ? fallback : at(node.Mark())};
}

SourceLocation Source::inside(const Value& value, size_t offset) const {
  const SourceLocation& where = value.where;
  if (!value.node.IsScalar() || where.line < 1 || where.line > static_cast<int>(lines_.size())) return where;
  std::string_view line = lines_[where.line - 1];
  size_t start = static_cast<size_t>(where.column - 1);
  if (start >= line.size()) return where;
  std::string_view rest = line.substr(start);
  size_t quote_width = rest[0] == '"' || rest[0] == '\'' ? 1 : 0;
  if (rest.substr(quote_width, value.node.Scalar().size()) != value.node.Scalar()) return where;
  return {where.file, where.line, where.column + static_cast<int>(quote_width + offset)};
}

std::string Source::character_at(const YAML::Mark& mark) const {
  if (mark.line < 0 || mark.line >= static_cast<int>(lines_.size())) return "the end of the file";
  std::string_view line = lines_[mark.line];
  if (mark.column < 0 || mark.column >= static_cast<int>(line.size())) return "the end of the line";
  return quote(line.substr(mark.column, 1));
}

// A tab in the indentation of a line up to `last_line`: the usual cause of yaml-cpp's more
// puzzling syntax errors.
std::optional<SourceLocation> Source::tab_indent(int last_line) const {
  for (int line = 0; line <= last_line && line < static_cast<int>(lines_.size()); ++line) {
    std::string_view text = lines_[line];
    size_t indent_end = text.find_first_not_of(" \t");
    size_t tab = text.substr(0, indent_end).find('\t');
    if (tab != std::string_view::npos) return SourceLocation{file_, line + 1, static_cast<int>(tab) + 1};
  }
  return std::nullopt;
}

namespace {

// Where each document's root node starts, for the first two documents only. yaml-cpp 0.7's
// LoadAll can loop for ever on malformed input (it keeps taking empty documents after an
// error: jbeder/yaml-cpp#1319, found here by the loader's fuzz target), so the documents are
// counted with a bounded loop of our own and only the first is built.
class DocumentRoots final : public YAML::EventHandler {
 public:
  std::vector<std::optional<YAML::Mark>> roots;  // nullopt: an empty (null) document
  void OnDocumentStart(const YAML::Mark&) override { at_root_ = true; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { root(std::nullopt); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { root(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { root(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    root(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    root(mark);
  }
  void OnMapEnd() override {}

 private:
  void root(std::optional<YAML::Mark> mark) {
    if (std::exchange(at_root_, false)) roots.push_back(mark);
  }
  bool at_root_ = false;
};

}  // namespace

Result<YAML::Node> Source::one_document() const {
  const SourceLocation start{file_, 1, 1};
  try {
    std::istringstream in{text_};
    YAML::Parser parser(in);
    DocumentRoots documents;
    for (int k = 0; k < 2 && parser.HandleNextDocument(documents); ++k) {
    }
    if (documents.roots.size() > 1)
      return error_at(documents.roots[1] ? at(*documents.roots[1]) : start, "one YAML document", "a second one");
    if (documents.roots.empty()) return YAML::Node();
    return YAML::Load(text_);
  } catch (const YAML::Exception& exception) {
    return syntax_error(exception);
  }
}

std::unexpected<Error> Source::syntax_error(const YAML::Exception& exception) const {
  const YAML::Mark& mark = exception.mark;
  if (auto tab = tab_indent(mark.line)) return error_at(*tab, "spaces for indentation", "a tab");
  SourceLocation where = at(mark);
  std::string found = character_at(mark);
  const std::string& problem = exception.msg;
  if (problem == "illegal map value")
    return error_at(where, "no ':' inside a plain value (quote the value or fix the indentation)", found);
  if (problem == "end of map not found") return error_at(where, "another key at the map's indentation", found);
  if (problem == "end of sequence not found")
    return error_at(where, "another '- ' item at the list's indentation", found);
  if (problem == "end of map flow not found") return error_at(where, "',' or '}' in a {...} map", found);
  if (problem == "end of sequence flow not found") return error_at(where, "',' or ']' in a [...] list", found);
  if (problem == "illegal EOF in scalar") return error_at(where, "a closing quote", "the end of the file");
  return error_at(where, "valid YAML", problem);
}

std::unexpected<Error> Source::expression_error(const Value& value, const Error& error) const {
  std::string_view message = error.message;
  constexpr std::string_view kPrefix = "column ";
  size_t column = 1;
  if (message.starts_with(kPrefix)) {
    size_t colon = message.find(": ");
    if (auto parsed = parse_integer(message.substr(kPrefix.size(), colon - kPrefix.size()))) {
      column = static_cast<size_t>(std::max<int64_t>(*parsed, 1));
      message.remove_prefix(colon + 2);
    }
  }
  return fail(ErrorKind::BadInput, fmt::format("{}: {}", format_location(inside(value, column - 1)), message));
}

// ---- Fields ------------------------------------------------------------------------------

const Fields::Entry* Fields::find(std::string_view key) const {
  for (const auto& entry : entries_)
    if (entry.key == key) return &entry;
  return nullptr;
}

std::optional<Value> Fields::optional(std::string_view key) const {
  if (const Entry* entry = find(key)) return entry->value;
  return std::nullopt;
}

Result<Value> Fields::required(std::string_view key) const {
  if (const Entry* entry = find(key)) return entry->value;
  return error_at(self_.where, fmt::format("field '{}' in {}", key, context_), "none");
}

// ---- Reader ------------------------------------------------------------------------------

Result<Fields> Reader::fields(const Value& value, std::string_view context,
                              const std::vector<std::string_view>& allowed) const {
  if (!value.node.IsMap()) return error_at(value.where, fmt::format("a map ({})", join(allowed)), describe(value.node));
  std::vector<Fields::Entry> entries;
  for (const auto& pair : value.node) {
    SourceLocation key_where = source_.at(pair.first.Mark());
    if (!pair.first.IsScalar()) return error_at(key_where, "a plain key", describe(pair.first));
    const std::string& key = pair.first.Scalar();
    if (!contains(allowed, key))
      return error_at(key_where, fmt::format("one of {}", join(allowed)), fmt::format("unknown key {}", quote(key)));
    for (const auto& earlier : entries)
      if (earlier.key == key)
        return error_at(key_where, "each key once",
                        fmt::format("{} again (first on line {})", quote(key), earlier.key_where.line));
    entries.push_back({key, key_where, source_.value(pair.second, key_where)});
  }
  return Fields(std::string(context), value, std::move(entries));
}

Result<std::vector<Value>> Reader::list(const Value& value, std::string_view what) const {
  if (!value.node.IsSequence()) return error_at(value.where, what, describe(value.node));
  std::vector<Value> items;
  for (const auto& item : value.node) items.push_back(source_.value(item, value.where));
  return items;
}

Result<std::vector<Value>> Reader::non_empty_list(const Value& value, std::string_view what) const {
  TIDEMARK_TRY(items, list(value, what));
  if (items.empty()) return error_at(value.where, what, "an empty list");
  return std::move(items);
}

Result<std::string> Reader::text(const Value& value, std::string_view what) const {
  if (!value.node.IsScalar()) return error_at(value.where, what, describe(value.node));
  return value.node.Scalar();
}

Result<std::string> Reader::kebab_name(const Value& value) const {
  constexpr std::string_view kWhat = "a kebab-case name ([a-z0-9-]+)";
  TIDEMARK_TRY(name, text(value, kWhat));
  if (auto bad = kebab_mismatch(name)) return error_at(source_.inside(value, *bad), kWhat, quote(name));
  if (name.size() > kMaxNameLength)
    return error_at(value.where, fmt::format("a name of at most {} characters", kMaxNameLength),
                    fmt::format("{} characters", name.size()));
  return name;
}

Result<std::string> Reader::identifier(const Value& value, std::string_view what) const {
  std::string expected = fmt::format("{} ([a-z_][a-z0-9_]*)", what);
  TIDEMARK_TRY(name, text(value, expected));
  if (auto bad = identifier_mismatch(name)) return error_at(source_.inside(value, *bad), expected, quote(name));
  if (name.size() > kMaxIdentifierLength)
    return error_at(value.where, fmt::format("{} of at most {} characters", what, kMaxIdentifierLength),
                    fmt::format("{} characters", name.size()));
  return name;
}

Result<std::string> Reader::dotted_name(const Value& value, std::string_view what) const {
  std::string expected = fmt::format("{} component.name ([a-z0-9_]+(\\.[a-z0-9_]+)+)", what);
  TIDEMARK_TRY(name, text(value, expected));
  if (auto bad = dotted_mismatch(name)) return error_at(source_.inside(value, *bad), expected, quote(name));
  return name;
}

Result<int64_t> Reader::integer(const Value& value, int64_t min, int64_t max, std::string_view purpose) const {
  std::string expected =
      max == kNoMax ? fmt::format("an integer >= {}", min) : fmt::format("an integer from {} to {}", min, max);
  if (!purpose.empty()) expected += fmt::format(" for {}", purpose);
  if (!value.node.IsScalar()) return error_at(value.where, expected, describe(value.node));
  auto number = parse_integer(value.node.Scalar());
  if (!number || *number < min || *number > max) return error_at(value.where, expected, quote(value.node.Scalar()));
  return *number;
}

Result<int> Reader::small_integer(const Value& value, int64_t min, int64_t max) const {
  TIDEMARK_TRY(number, integer(value, min, max));
  return static_cast<int>(number);
}

Result<bool> Reader::boolean(const Value& value) const {
  if (value.node.IsScalar()) {
    const std::string& word = value.node.Scalar();
    if (word == "true" || word == "True" || word == "TRUE") return true;
    if (word == "false" || word == "False" || word == "FALSE") return false;
  }
  return error_at(value.where, "true or false", describe(value.node));
}

Result<std::array<uint8_t, 4>> Reader::rgba(const Value& value) const {
  constexpr std::string_view kWhat = "a colour [r, g, b, a] of 4 bytes";
  TIDEMARK_TRY(items, list(value, kWhat));
  if (items.size() != 4) return error_at(value.where, kWhat, fmt::format("a list of {}", items.size()));
  std::array<uint8_t, 4> colour{};
  for (size_t i = 0; i < 4; ++i) {
    TIDEMARK_TRY(channel, integer(items[i], 0, 255));
    colour[i] = static_cast<uint8_t>(channel);
  }
  return colour;
}

Result<Expression> Reader::expression(const Value& value, std::string_view what) const {
  if (!value.node.IsScalar()) return error_at(value.where, what, describe(value.node));
  auto expression = Expression::parse(value.node.Scalar());
  if (!expression) return source_.expression_error(value, expression.error());
  return std::move(*expression);
}

Result<Fields::Entry> Reader::single_key(const Value& value, std::string_view what, std::string_view one_key,
                                         const std::vector<std::string_view>& allowed, std::string_view hint) const {
  if (!value.node.IsMap() || value.node.size() == 0) return error_at(value.where, what, describe(value.node));
  if (value.node.size() > 1) {
    auto second = std::next(value.node.begin());
    return error_at(source_.at(second->first.Mark()), one_key,
                    fmt::format("a second key {}{}", describe(second->first), hint));
  }
  TIDEMARK_TRY(entries, fields(value, what, allowed));
  return entries.entries().front();
}

Result<TimeBoundsOverride> time_bounds(const Reader& read, const Fields& fields) {
  constexpr int64_t kDay = 86400;
  TimeBoundsOverride out;
  auto seconds = [&](std::string_view purpose) {
    return [&read, purpose](const Value& v) -> Result<std::optional<double>> {
      TIDEMARK_TRY(number, read.integer(v, 1, kDay, purpose));
      return std::optional<double>(static_cast<double>(number));
    };
  };
  TIDEMARK_CHECK(optional(fields, "timeout", out.wall, seconds("the seconds its whole run may take")));
  TIDEMARK_CHECK(optional(fields, "inactivity_timeout", out.inactivity,
                          seconds("the seconds it may go without a call crossing the layer or the wire")));
  return out;
}

}  // namespace tidemark::scenario::yaml
