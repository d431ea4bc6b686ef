#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "core/gauge_names.h"
#include "scenario/scenario.h"

namespace tidemark::scenario {

namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxRepeatCount = 10'000'000;
constexpr int64_t kMaxTargetSide = 4096;
constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

// The lanes a control may skip, as `--lane` names them.
const std::vector<std::string_view> kLanes = {"monolith", "split", "spawn", "tcp"};

const std::vector<std::string_view> kStepNames = {
    "buffer_data", "buffer_sub_data", "draw",    "fence",  "client_wait",
    "flush",       "finish",          "present", "repeat",
};

std::string join(const auto& names, std::string_view when_empty = "none") {
  if (std::empty(names)) return std::string(when_empty);
  std::string joined;
  for (const auto& name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

bool contains(const auto& names, std::string_view name) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Quotes a value for a message, kept to one short line.
std::string quote(std::string_view text) {
  constexpr size_t kMaxShown = 60;
  std::string shown;
  for (char c : text.substr(0, kMaxShown))
    shown += c == '\n' ? std::string("\\n") : std::string(1, c);
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

bool is_kebab_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

// Index of the first character breaking the pattern, or nullopt when `text` matches.
std::optional<size_t> kebab_mismatch(std::string_view text) {
  if (text.empty()) return 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (!is_kebab_char(text[i])) return i;
  return std::nullopt;
}

std::optional<size_t> identifier_mismatch(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9')) return 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (!is_identifier_char(text[i])) return i;
  return std::nullopt;
}

// Index of the first character breaking component.name ([a-z0-9_]+(\.[a-z0-9_]+)+); 0 when
// there is no dot at all.
std::optional<size_t> mutant_name_mismatch(std::string_view text) {
  if (text.find('.') == std::string_view::npos) return 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (is_identifier_char(text[i])) continue;
    bool joins_two_parts = text[i] == '.' && i > 0 && text[i - 1] != '.' && i + 1 < text.size();
    if (!joins_two_parts) return i;
  }
  return std::nullopt;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

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

std::vector<std::string_view> knob_names() {
  std::vector<std::string_view> names;
  for (const auto& knob : known_knobs()) names.push_back(knob.name);
  return names;
}

// A control as a message names it: its mutant and knob overrides.
std::string describe_control(const Control& control) {
  std::vector<std::string> settings;
  for (const auto& [name, value] : control.knobs)
    settings.push_back(fmt::format("{}: {}", name, value));
  std::string knobs = fmt::format("knobs {{{}}}", join(settings));
  if (control.knobs.empty()) return fmt::format("mutant {}", quote(control.mutant));
  if (control.mutant.empty()) return knobs;
  return fmt::format("mutant {} with {}", quote(control.mutant), knobs);
}

// Offset of `name` as a whole word in expression text.
size_t word_offset(std::string_view text, std::string_view name) {
  auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !is_word(text[at - 1]);
    bool ends = at + name.size() == text.size() || !is_word(text[at + name.size()]);
    if (starts && ends) return at;
  }
  return 0;
}

std::optional<int64_t> parse_integer(std::string_view text) {
  if (text.starts_with('+')) return std::nullopt;
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::unexpected<Error> error_at(const SourceLocation& where, std::string_view expected,
                                std::string_view found) {
  return fail(ErrorKind::BadInput,
              fmt::format("{}: expected {}, found {}", format_location(where), expected, found));
}

// A node together with where to point at it. Empty values point at their key: yaml-cpp
// marks them at whatever token follows.
struct Value {
  YAML::Node node;
  SourceLocation where;
};

// The file being loaded: turns yaml-cpp marks and offsets within scalars into locations.
class Source {
 public:
  Source(std::string file, std::string_view text) : file_(std::move(file)) {
    std::istringstream stream{std::string(text)};
    for (std::string line; std::getline(stream, line);) lines_.push_back(line);
  }

  const std::string& file() const { return file_; }

  SourceLocation at(const YAML::Mark& mark) const {
    return {file_, std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1};
  }

  Value value(const YAML::Node& node, const SourceLocation& fallback) const {
    return {node, node.IsNull() ? fallback : at(node.Mark())};
  }

  // Location of character `offset` of a scalar's text; exact when the file shows the
  // scalar verbatim on one line (plain or quoted), else the scalar's own location.
  SourceLocation inside(const Value& value, size_t offset) const {
    const SourceLocation& where = value.where;
    if (!value.node.IsScalar() || where.line < 1 || where.line > static_cast<int>(lines_.size()))
      return where;
    std::string_view line = lines_[where.line - 1];
    size_t start = static_cast<size_t>(where.column - 1);
    if (start >= line.size()) return where;
    std::string_view rest = line.substr(start);
    size_t quote_width = rest[0] == '"' || rest[0] == '\'' ? 1 : 0;
    if (rest.substr(quote_width, value.node.Scalar().size()) != value.node.Scalar()) return where;
    return {where.file, where.line, where.column + static_cast<int>(quote_width + offset)};
  }

  // Character at a mark, for syntax errors.
  std::string character_at(const YAML::Mark& mark) const {
    if (mark.line < 0 || mark.line >= static_cast<int>(lines_.size())) return "the end of the file";
    std::string_view line = lines_[mark.line];
    if (mark.column < 0 || mark.column >= static_cast<int>(line.size()))
      return "the end of the line";
    return quote(line.substr(mark.column, 1));
  }

  // A tab in the indentation of a line up to `last_line`: the usual cause of yaml-cpp's
  // more puzzling syntax errors.
  std::optional<SourceLocation> tab_indent(int last_line) const {
    for (int line = 0; line <= last_line && line < static_cast<int>(lines_.size()); ++line) {
      std::string_view text = lines_[line];
      size_t indent_end = text.find_first_not_of(" \t");
      size_t tab = text.substr(0, indent_end).find('\t');
      if (tab != std::string_view::npos)
        return SourceLocation{file_, line + 1, static_cast<int>(tab) + 1};
    }
    return std::nullopt;
  }

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

// Relays an Expression::parse error ("column N: expected ..., found ...") at the file position.
std::unexpected<Error> expression_error_at(const Source& source, const Value& value,
                                           const Error& error) {
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
  return fail(ErrorKind::BadInput,
              fmt::format("{}: {}", format_location(source.inside(value, column - 1)), message));
}

std::unexpected<Error> syntax_error(const Source& source, const YAML::Exception& exception) {
  const YAML::Mark& mark = exception.mark;
  if (auto tab = source.tab_indent(mark.line))
    return error_at(*tab, "spaces for indentation", "a tab");
  SourceLocation where = source.at(mark);
  std::string found = source.character_at(mark);
  const std::string& problem = exception.msg;
  if (problem == "illegal map value")
    return error_at(where, "no ':' inside a plain value (quote the value or fix the indentation)",
                    found);
  if (problem == "end of map not found")
    return error_at(where, "another key at the map's indentation", found);
  if (problem == "end of sequence not found")
    return error_at(where, "another '- ' item at the list's indentation", found);
  if (problem == "end of map flow not found")
    return error_at(where, "',' or '}' in a {...} map", found);
  if (problem == "end of sequence flow not found")
    return error_at(where, "',' or ']' in a [...] list", found);
  if (problem == "illegal EOF in scalar")
    return error_at(where, "a closing quote", "the end of the file");
  return error_at(where, "valid YAML", problem);
}

// The entries of a YAML map, checked for unknown and repeated keys.
class Fields {
 public:
  struct Entry {
    std::string key;
    SourceLocation key_where;
    Value value;
  };

  Fields(std::string context, Value self, std::vector<Entry> entries)
      : context_(std::move(context)), self_(std::move(self)), entries_(std::move(entries)) {}

  const std::vector<Entry>& entries() const { return entries_; }

  const Entry* find(std::string_view key) const {
    for (const auto& entry : entries_)
      if (entry.key == key) return &entry;
    return nullptr;
  }

  std::optional<Value> optional(std::string_view key) const {
    if (const Entry* entry = find(key)) return entry->value;
    return std::nullopt;
  }

  Result<Value> required(std::string_view key) const {
    if (const Entry* entry = find(key)) return entry->value;
    return error_at(self_.where, fmt::format("field '{}' in {}", key, context_), "none");
  }

 private:
  std::string context_;
  Value self_;
  std::vector<Entry> entries_;
};

struct IntRule {
  std::string_view what;   // the accepted forms, e.g. "an integer or a size such as 4KiB"
  std::string_view bound;  // e.g. "a size >= 0"
  int64_t min = 0;
  int64_t max = kNoMax;
};

constexpr IntRule kSizeRule{"an integer or a size such as 4KiB", "a size >= 0"};
constexpr IntRule kOffsetRule{"an integer or a size such as 4KiB", "an offset >= 0"};
constexpr IntRule kPaletteRule{"an integer", "a palette index >= 0"};
constexpr IntRule kBandIndexRule{"an integer", "a band index >= 0"};
constexpr IntRule kBandCountRule{"an integer", "a band count >= 1", 1};
constexpr IntRule kRepeatRule{"an integer", "a repeat count from 1 to 10000000", 1,
                              kMaxRepeatCount};

class Loader {
 public:
  Loader(const Source& source, fs::path file) : source_(source), file_(std::move(file)) {}

  Result<Scenario> scenario(const Value& root) {
    if (root.node.IsNull())
      return error_at(root.where, "a scenario map (name, group, workload, expect, ...)",
                      "an empty document");
    TIDEMARK_TRY(top, fields(root, "the scenario",
                             {"name", "group", "description", "knobs", "target", "buffers",
                              "workload", "expect", "controls"}));
    Scenario scenario;
    scenario.file = file_;
    TIDEMARK_TRY(name_value, top.required("name"));
    TIDEMARK_TRY(name, kebab_name(name_value));
    scenario.name = name;
    TIDEMARK_TRY(group_value, top.required("group"));
    TIDEMARK_TRY(group, kebab_name(group_value));
    scenario.group = group;
    if (auto value = top.optional("description")) {
      TIDEMARK_TRY(description, text(*value, "a description"));
      scenario.description = description;
    }
    if (auto value = top.optional("knobs")) {
      TIDEMARK_TRY(knob_values, knobs(*value));
      scenario.knobs = knob_values;
    }
    if (auto value = top.optional("target")) {
      TIDEMARK_TRY(size, target(*value));
      target_ = size;
    }
    scenario.target = target_;
    if (auto value = top.optional("buffers")) {
      TIDEMARK_TRY(names, buffers(*value));
      buffers_ = names;
    }
    scenario.buffers = buffers_;
    TIDEMARK_TRY(workload_value, top.required("workload"));
    TIDEMARK_TRY(workload, steps(workload_value, "workload"));
    scenario.workload = std::move(workload);
    scenario.fences = fences_;
    TIDEMARK_TRY(expect_value, top.required("expect"));
    TIDEMARK_TRY(checks, expect(expect_value));
    scenario.gauge_checks = std::move(checks.first);
    scenario.pixel_checks = std::move(checks.second);
    // After expect wherever it sits in the file: a control names checks of this scenario.
    if (auto value = top.optional("controls")) {
      TIDEMARK_TRY(parsed, controls(*value, scenario));
      scenario.controls = std::move(parsed);
    }
    return scenario;
  }

 private:
  using Checks = std::pair<std::vector<GaugeCheck>, std::vector<PixelCheck>>;

  // ---- generic readers -------------------------------------------------------------

  Result<Fields> fields(const Value& value, std::string_view context,
                        const std::vector<std::string_view>& allowed) const {
    if (!value.node.IsMap())
      return error_at(value.where, fmt::format("a map ({})", join(allowed)), describe(value.node));
    std::vector<Fields::Entry> entries;
    for (const auto& pair : value.node) {
      SourceLocation key_where = source_.at(pair.first.Mark());
      if (!pair.first.IsScalar()) return error_at(key_where, "a plain key", describe(pair.first));
      const std::string& key = pair.first.Scalar();
      if (!contains(allowed, key))
        return error_at(key_where, fmt::format("one of {}", join(allowed)),
                        fmt::format("unknown key {}", quote(key)));
      for (const auto& earlier : entries)
        if (earlier.key == key)
          return error_at(
              key_where, "each key once",
              fmt::format("{} again (first on line {})", quote(key), earlier.key_where.line));
      entries.push_back({key, key_where, source_.value(pair.second, key_where)});
    }
    return Fields(std::string(context), value, std::move(entries));
  }

  Result<std::vector<Value>> list(const Value& value, std::string_view what) const {
    if (!value.node.IsSequence()) return error_at(value.where, what, describe(value.node));
    std::vector<Value> items;
    for (const auto& item : value.node) items.push_back(source_.value(item, value.where));
    return items;
  }

  Result<std::string> text(const Value& value, std::string_view what) const {
    if (!value.node.IsScalar()) return error_at(value.where, what, describe(value.node));
    return value.node.Scalar();
  }

  Result<std::string> kebab_name(const Value& value) const {
    constexpr std::string_view kWhat = "a kebab-case name ([a-z0-9-]+)";
    TIDEMARK_TRY(name, text(value, kWhat));
    if (auto bad = kebab_mismatch(name))
      return error_at(source_.inside(value, *bad), kWhat, quote(name));
    return name;
  }

  Result<std::string> identifier(const Value& value, std::string_view what) const {
    std::string expected = fmt::format("{} ([a-z_][a-z0-9_]*)", what);
    TIDEMARK_TRY(name, text(value, expected));
    if (auto bad = identifier_mismatch(name))
      return error_at(source_.inside(value, *bad), expected, quote(name));
    return name;
  }

  Result<int64_t> integer(const Value& value, int64_t min, int64_t max,
                          std::string_view purpose = {}) const {
    std::string expected = max == kNoMax ? fmt::format("an integer >= {}", min)
                                         : fmt::format("an integer from {} to {}", min, max);
    if (!purpose.empty()) expected += fmt::format(" for {}", purpose);
    if (!value.node.IsScalar()) return error_at(value.where, expected, describe(value.node));
    auto number = parse_integer(value.node.Scalar());
    if (!number || *number < min || *number > max)
      return error_at(value.where, expected, quote(value.node.Scalar()));
    return *number;
  }

  Result<int> small_integer(const Value& value, int64_t min, int64_t max) const {
    TIDEMARK_TRY(number, integer(value, min, max));
    return static_cast<int>(number);
  }

  Result<bool> boolean(const Value& value) const {
    if (value.node.IsScalar()) {
      const std::string& word = value.node.Scalar();
      if (word == "true" || word == "True" || word == "TRUE") return true;
      if (word == "false" || word == "False" || word == "FALSE") return false;
    }
    return error_at(value.where, "true or false", describe(value.node));
  }

  Result<std::array<uint8_t, 4>> rgba(const Value& value) const {
    constexpr std::string_view kWhat = "a colour [r, g, b, a] of 4 bytes";
    TIDEMARK_TRY(items, list(value, kWhat));
    if (items.size() != 4)
      return error_at(value.where, kWhat, fmt::format("a list of {}", items.size()));
    std::array<uint8_t, 4> colour{};
    for (size_t i = 0; i < 4; ++i) {
      TIDEMARK_TRY(channel, integer(items[i], 0, 255));
      colour[i] = static_cast<uint8_t>(channel);
    }
    return colour;
  }

  // A literal, a size or an expression over loop variables in scope; constant values
  // are range-checked now, the rest when the step runs.
  Result<IntField> int_field(const Value& value, const IntRule& rule) const {
    if (!value.node.IsScalar()) return error_at(value.where, rule.what, describe(value.node));
    const std::string& written = value.node.Scalar();
    auto expression = Expression::parse(written);
    if (!expression) return expression_error_at(source_, value, expression.error());
    for (const auto& name : expression->identifiers()) {
      if (contains(loop_variables_, name)) continue;
      if (loop_variables_.empty() && name == expression->text())
        return error_at(value.where, rule.what, quote(written));
      return error_at(source_.inside(value, word_offset(written, name)),
                      fmt::format("a loop variable in scope ({})", join(loop_variables_)),
                      quote(name));
    }
    if (expression->identifiers().empty()) {
      auto constant = expression->evaluate([](std::string_view) { return std::nullopt; });
      if (!constant) return error_at(value.where, "a computable value", constant.error().message);
      if (*constant < rule.min || *constant > rule.max) {
        std::string found = quote(written);
        if (written != std::to_string(*constant)) found += fmt::format(" = {}", *constant);
        return error_at(value.where, rule.bound, found);
      }
    }
    return IntField{std::move(*expression), value.where};
  }

  // ---- top-level sections ----------------------------------------------------------

  Result<std::map<std::string, int64_t>> knobs(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "knobs", knob_names()));
    std::map<std::string, int64_t> knobs;
    for (const auto& entry : entries.entries()) {
      const auto& spec =
          *std::find_if(known_knobs().begin(), known_knobs().end(),
                        [&](const KnobSpec& knob) { return knob.name == entry.key; });
      TIDEMARK_TRY(number, integer(entry.value, spec.min, spec.max, spec.name));
      knobs[entry.key] = number;
    }
    return knobs;
  }

  Result<Target> target(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "target", {"width", "height"}));
    Target size;
    if (auto width = entries.optional("width")) {
      TIDEMARK_TRY(number, small_integer(*width, 1, kMaxTargetSide));
      size.width = number;
    }
    if (auto height = entries.optional("height")) {
      TIDEMARK_TRY(number, small_integer(*height, 1, kMaxTargetSide));
      size.height = number;
    }
    return size;
  }

  Result<std::vector<std::string>> buffers(const Value& value) const {
    TIDEMARK_TRY(items, list(value, "a list of buffer names"));
    std::vector<std::string> names;
    for (const auto& item : items) {
      TIDEMARK_TRY(name, identifier(item, "a buffer name"));
      if (contains(names, name))
        return error_at(item.where, "unique buffer names", fmt::format("{} again", quote(name)));
      names.push_back(name);
    }
    return names;
  }

  // ---- workload ----------------------------------------------------------------------

  Result<std::vector<Step>> steps(const Value& value, std::string_view context) {
    std::string what = fmt::format("a non-empty list of steps in {}", context);
    TIDEMARK_TRY(items, list(value, what));
    if (items.empty()) return error_at(value.where, what, "an empty list");
    std::vector<Step> steps;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, step(item));
      steps.push_back(std::move(parsed));
    }
    return steps;
  }

  Result<Step> step(const Value& item) {
    constexpr std::string_view kWhat = "a step such as '- draw: {uniform: color}'";
    if (!item.node.IsMap() || item.node.size() == 0)
      return error_at(item.where, kWhat, describe(item.node));
    bool is_repeat = false;
    for (const auto& pair : item.node)
      is_repeat = is_repeat || (pair.first.IsScalar() && pair.first.Scalar() == "repeat");
    if (is_repeat) return repeat(item);
    if (item.node.size() > 1) {
      auto second = std::next(item.node.begin());
      return error_at(source_.at(second->first.Mark()), "one key per step",
                      fmt::format("a second key {} (indent a step's fields under it)",
                                  describe(second->first)));
    }
    TIDEMARK_TRY(entries, fields(item, "step", kStepNames));
    const auto& entry = entries.entries().front();
    TIDEMARK_TRY(kind, step_kind(entry.key, entry.value));
    return Step{std::make_shared<StepKind>(std::move(kind)), entry.key_where, entry.key};
  }

  Result<StepKind> step_kind(const std::string& label, const Value& value) {
    if (label == "buffer_data") return buffer_data(value);
    if (label == "buffer_sub_data") return buffer_sub_data(value);
    if (label == "draw") return draw(value);
    if (label == "fence") return fence(value);
    if (label == "client_wait") return client_wait(value);
    if (label == "flush") return no_fields<Flush>(label, value);
    if (label == "finish") return no_fields<Finish>(label, value);
    return no_fields<Present>(label, value);
  }

  Result<Step> repeat(const Value& item) {
    TIDEMARK_TRY(entries, fields(item, "repeat", {"repeat", "as", "steps"}));
    Repeat loop;
    TIDEMARK_TRY(count, int_field(*entries.optional("repeat"), kRepeatRule));
    loop.count = std::move(count);
    if (auto as = entries.optional("as")) {
      TIDEMARK_TRY(variable, identifier(*as, "a loop variable name"));
      if (contains(loop_variables_, variable))
        return error_at(as->where,
                        fmt::format("a name not already in scope ({})", join(loop_variables_)),
                        quote(variable));
      loop.variable = variable;
    }
    TIDEMARK_TRY(body_value, entries.required("steps"));
    if (!loop.variable.empty()) loop_variables_.push_back(loop.variable);
    auto body = steps(body_value, "repeat");
    if (!loop.variable.empty()) loop_variables_.pop_back();
    if (!body) return std::unexpected(std::move(body.error()));
    loop.steps = std::move(*body);
    return Step{std::make_shared<StepKind>(std::move(loop)), entries.find("repeat")->key_where,
                "repeat"};
  }

  Result<std::string> buffer_name(const Value& value) const {
    std::string expected = fmt::format("a declared buffer ({})", join(buffers_));
    TIDEMARK_TRY(name, text(value, expected));
    if (!contains(buffers_, name)) return error_at(value.where, expected, quote(name));
    return name;
  }

  Result<Fill> fill(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "fill", {"palette", "rgba", "zero"}));
    constexpr std::string_view kOneKind = "exactly one of palette, rgba, zero";
    if (entries.entries().empty()) return error_at(value.where, kOneKind, "an empty map");
    if (entries.entries().size() > 1)
      return error_at(entries.entries()[1].key_where, kOneKind,
                      fmt::format("a second key {}", quote(entries.entries()[1].key)));
    const auto& entry = entries.entries().front();
    Fill fill;
    if (entry.key == "palette") {
      TIDEMARK_TRY(index, int_field(entry.value, kPaletteRule));
      fill.kind = Fill::Kind::Palette;
      fill.palette_index = std::move(index);
    } else if (entry.key == "rgba") {
      TIDEMARK_TRY(colour, rgba(entry.value));
      fill.kind = Fill::Kind::Rgba;
      fill.rgba = colour;
    } else {
      TIDEMARK_TRY(zero, boolean(entry.value));
      if (!zero)
        return error_at(entry.value.where, "true (zero: true)", describe(entry.value.node));
      fill.kind = Fill::Kind::Zero;
    }
    return fill;
  }

  Result<Fill> optional_fill(const Fields& entries) const {
    if (auto value = entries.optional("fill")) return fill(*value);
    return Fill{};
  }

  Result<StepKind> buffer_data(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "buffer_data", {"buffer", "size", "fill"}));
    TIDEMARK_TRY(buffer_value, entries.required("buffer"));
    TIDEMARK_TRY(buffer, buffer_name(buffer_value));
    TIDEMARK_TRY(size_value, entries.required("size"));
    TIDEMARK_TRY(size, int_field(size_value, kSizeRule));
    TIDEMARK_TRY(contents, optional_fill(entries));
    return BufferData{buffer, std::move(size), std::move(contents)};
  }

  Result<StepKind> buffer_sub_data(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "buffer_sub_data", {"buffer", "offset", "size", "fill"}));
    TIDEMARK_TRY(buffer_value, entries.required("buffer"));
    TIDEMARK_TRY(buffer, buffer_name(buffer_value));
    TIDEMARK_TRY(offset_value, entries.required("offset"));
    TIDEMARK_TRY(offset, int_field(offset_value, kOffsetRule));
    TIDEMARK_TRY(size_value, entries.required("size"));
    TIDEMARK_TRY(size, int_field(size_value, kSizeRule));
    TIDEMARK_TRY(contents, optional_fill(entries));
    return BufferSubData{buffer, std::move(offset), std::move(size), std::move(contents)};
  }

  Result<StepKind> draw(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "draw", {"uniform", "vertices", "band"}));
    Draw draw;
    TIDEMARK_TRY(uniform_value, entries.required("uniform"));
    TIDEMARK_TRY(uniform, buffer_name(uniform_value));
    draw.uniform = uniform;
    if (auto vertices_value = entries.optional("vertices")) {
      TIDEMARK_TRY(vertices, buffer_name(*vertices_value));
      draw.vertices = vertices;
    }
    if (auto band_value = entries.optional("band")) {
      TIDEMARK_TRY(band, this->band(*band_value));
      draw.band = std::move(band);
    }
    return draw;
  }

  Result<Band> band(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "band", {"index", "of"}));
    TIDEMARK_TRY(index_value, entries.required("index"));
    TIDEMARK_TRY(index, int_field(index_value, kBandIndexRule));
    TIDEMARK_TRY(of_value, entries.required("of"));
    TIDEMARK_TRY(of, int_field(of_value, kBandCountRule));
    auto constant_index = index.expr.literal_value();
    auto constant_of = of.expr.literal_value();
    if (constant_index && constant_of && *constant_index >= *constant_of)
      return error_at(index.where, fmt::format("a band index below 'of' ({})", *constant_of),
                      quote(index_value.node.Scalar()));
    return Band{std::move(index), std::move(of)};
  }

  Result<StepKind> fence(const Value& value) {
    TIDEMARK_TRY(name, identifier(value, "a fence name"));
    if (!contains(fences_, name)) fences_.push_back(name);
    return FenceSync{name};
  }

  Result<StepKind> client_wait(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "client_wait", {"fence", "flush", "timeout", "expect"}));
    ClientWait wait;
    TIDEMARK_TRY(fence_value, entries.required("fence"));
    std::string expected =
        fmt::format("a fence defined by an earlier fence step ({})", join(fences_));
    TIDEMARK_TRY(fence, text(fence_value, expected));
    if (!contains(fences_, fence)) return error_at(fence_value.where, expected, quote(fence));
    wait.fence = fence;
    if (auto flush_value = entries.optional("flush")) {
      TIDEMARK_TRY(flush, boolean(*flush_value));
      wait.flush = flush;
    }
    if (auto timeout_value = entries.optional("timeout")) {
      TIDEMARK_TRY(timeout, timeout_ns(*timeout_value));
      wait.timeout_ns = timeout;
    }
    if (auto expect_value = entries.optional("expect")) {
      TIDEMARK_TRY(status, wait_status(*expect_value));
      wait.expect = status;
    }
    return wait;
  }

  Result<uint64_t> timeout_ns(const Value& value) const {
    constexpr std::string_view kWhat = "a timeout in ns, or with a unit such as 500ms or 2s";
    TIDEMARK_TRY(written, text(value, kWhat));
    std::string_view rest = written;
    uint64_t amount = 0;
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), amount);
    if (error != std::errc() || end == rest.data())
      return error_at(value.where, kWhat, quote(written));
    rest.remove_prefix(static_cast<size_t>(end - rest.data()));
    while (rest.starts_with(' ')) rest.remove_prefix(1);
    uint64_t scale = 0;
    if (rest.empty() || rest == "ns") scale = 1;
    if (rest == "us") scale = 1'000;
    if (rest == "ms") scale = 1'000'000;
    if (rest == "s") scale = 1'000'000'000;
    uint64_t nanoseconds = 0;
    if (scale == 0 || __builtin_mul_overflow(amount, scale, &nanoseconds))
      return error_at(value.where, kWhat, quote(written));
    return nanoseconds;
  }

  Result<WaitStatus> wait_status(const Value& value) const {
    constexpr std::string_view kWhat =
        "one of already_signaled, condition_satisfied, timeout_expired";
    TIDEMARK_TRY(word, text(value, kWhat));
    if (word == "already_signaled") return WaitStatus::AlreadySignaled;
    if (word == "condition_satisfied") return WaitStatus::ConditionSatisfied;
    if (word == "timeout_expired") return WaitStatus::TimeoutExpired;
    return error_at(value.where, kWhat, quote(word));
  }

  template <class Kind>
  Result<StepKind> no_fields(const std::string& label, const Value& value) const {
    if (value.node.IsNull() || (value.node.IsMap() && value.node.size() == 0)) return Kind{};
    return error_at(value.where, fmt::format("nothing or {{}} after {}", label),
                    describe(value.node));
  }

  // ---- expectations ------------------------------------------------------------------

  Result<Checks> expect(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "expect", {"gauges", "pixels"}));
    Checks checks;
    if (auto gauges = entries.optional("gauges")) {
      TIDEMARK_TRY(items, list(*gauges, "a list of gauge comparisons"));
      for (const auto& item : items) {
        TIDEMARK_TRY(check, gauge(item));
        checks.first.push_back(std::move(check));
      }
    }
    if (auto pixels = entries.optional("pixels")) {
      TIDEMARK_TRY(items, list(*pixels, "a list of pixel checks (bands, probe, golden)"));
      for (const auto& item : items) {
        TIDEMARK_TRY(check, pixel_check(item));
        checks.second.push_back(std::move(check));
      }
    }
    if (checks.first.empty() && checks.second.empty())
      return error_at(value.where, "at least one check under gauges or pixels", "none");
    return checks;
  }

  Result<GaugeCheck> gauge(const Value& value) const {
    constexpr std::string_view kWhat = "a comparison such as 'wlivepk <= 4'";
    TIDEMARK_TRY(written, text(value, kWhat));
    auto expression = Expression::parse(written);
    if (!expression) return expression_error_at(source_, value, expression.error());
    if (!expression->is_comparison()) return error_at(value.where, kWhat, quote(written));
    for (const auto& name : expression->identifiers()) {
      bool is_knob = std::any_of(known_knobs().begin(), known_knobs().end(),
                                 [&](const KnobSpec& knob) { return knob.name == name; });
      if (contains(kGaugeNames, name) || is_knob) continue;
      std::vector<std::string_view> readable(kGaugeNames.begin(), kGaugeNames.end());
      for (const auto& knob : known_knobs()) readable.push_back(knob.name);
      return error_at(source_.inside(value, word_offset(written, name)),
                      fmt::format("a gauge or knob name ({})", join(readable)), quote(name));
    }
    return GaugeCheck{std::move(*expression), value.where};
  }

  Result<PixelCheck> pixel_check(const Value& item) const {
    constexpr std::string_view kWhat =
        "a pixel check such as '- probe: {x: 0, y: 0, rgba: [0, 0, 0, 255]}'";
    if (!item.node.IsMap() || item.node.size() == 0)
      return error_at(item.where, kWhat, describe(item.node));
    if (item.node.size() > 1) {
      auto second = std::next(item.node.begin());
      return error_at(source_.at(second->first.Mark()), "one key per pixel check",
                      fmt::format("a second key {}", describe(second->first)));
    }
    TIDEMARK_TRY(entries, fields(item, "pixel check", {"bands", "probe", "golden"}));
    const auto& entry = entries.entries().front();
    if (entry.key == "bands") return bands(entry.value, entry.key_where);
    if (entry.key == "probe") return probe(entry.value, entry.key_where);
    return golden(entry.value, entry.key_where);
  }

  Result<int> tolerance(const Fields& entries) const {
    if (auto value = entries.optional("tolerance")) return small_integer(*value, 0, 255);
    return 0;
  }

  Result<PixelCheck> bands(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, fields(value, "bands", {"count", "palette", "colors", "tolerance"}));
    BandsCheck check;
    check.where = where;
    TIDEMARK_TRY(count_value, entries.required("count"));
    TIDEMARK_TRY(count, small_integer(count_value, 1, target_.width));
    check.count = count;
    if (auto palette_value = entries.optional("palette")) {
      TIDEMARK_TRY(palette, boolean(*palette_value));
      check.palette = palette;
    }
    auto colors_value = entries.optional("colors");
    if (check.palette && colors_value)
      return error_at(colors_value->where, "either palette: true or colors", "both");
    if (!check.palette && !colors_value)
      return error_at(value.where, "palette: true or colors in bands", "neither");
    if (colors_value) {
      std::string what = fmt::format("a list of {} colours, one per band", check.count);
      TIDEMARK_TRY(items, list(*colors_value, what));
      if (items.size() != static_cast<size_t>(check.count))
        return error_at(colors_value->where, what, fmt::format("a list of {}", items.size()));
      for (const auto& colour_value : items) {
        TIDEMARK_TRY(colour, rgba(colour_value));
        check.colors.push_back(colour);
      }
    }
    TIDEMARK_TRY(allowed_delta, tolerance(entries));
    check.tolerance = allowed_delta;
    return check;
  }

  Result<PixelCheck> probe(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, fields(value, "probe", {"x", "y", "rgba", "tolerance"}));
    ProbeCheck check;
    check.where = where;
    TIDEMARK_TRY(x_value, entries.required("x"));
    TIDEMARK_TRY(x, small_integer(x_value, 0, target_.width - 1));
    check.x = x;
    TIDEMARK_TRY(y_value, entries.required("y"));
    TIDEMARK_TRY(y, small_integer(y_value, 0, target_.height - 1));
    check.y = y;
    TIDEMARK_TRY(rgba_value, entries.required("rgba"));
    TIDEMARK_TRY(colour, rgba(rgba_value));
    check.rgba = colour;
    TIDEMARK_TRY(allowed_delta, tolerance(entries));
    check.tolerance = allowed_delta;
    return check;
  }

  Result<PixelCheck> golden(const Value& value, const SourceLocation& where) const {
    TIDEMARK_TRY(entries, fields(value, "golden", {"file", "tolerance", "max_mismatch"}));
    GoldenCheck check;
    check.where = where;
    TIDEMARK_TRY(file_value, entries.required("file"));
    TIDEMARK_TRY(name, text(file_value, "an image file name"));
    check.file = (file_.parent_path() / name).lexically_normal();
    std::error_code error;
    if (name.empty() || !fs::is_regular_file(check.file, error))
      return error_at(file_value.where,
                      fmt::format("an existing file (looked for {})", check.file.string()),
                      quote(name));
    TIDEMARK_TRY(allowed_delta, tolerance(entries));
    check.tolerance = allowed_delta;
    if (auto mismatch_value = entries.optional("max_mismatch")) {
      TIDEMARK_TRY(mismatch,
                   small_integer(*mismatch_value, 0, int64_t{target_.width} * target_.height));
      check.max_mismatch = mismatch;
    }
    return check;
  }

  // ---- negative controls -------------------------------------------------------------

  Result<std::vector<Control>> controls(const Value& value, const Scenario& scenario) const {
    constexpr std::string_view kWhat = "a non-empty list of controls";
    TIDEMARK_TRY(items, list(value, kWhat));
    if (items.empty()) return error_at(value.where, kWhat, "an empty list");
    std::vector<Control> controls;
    for (const auto& item : items) {
      TIDEMARK_TRY(parsed, control(item, scenario));
      for (const auto& earlier : controls)
        if (earlier.mutant == parsed.mutant && earlier.knobs == parsed.knobs)
          return error_at(parsed.where, "each control once",
                          fmt::format("{} again (first on line {})", describe_control(parsed),
                                      earlier.where.line));
      controls.push_back(std::move(parsed));
    }
    return controls;
  }

  Result<Control> control(const Value& value, const Scenario& scenario) const {
    TIDEMARK_TRY(entries, fields(value, "control", {"mutant", "knobs", "fails", "skip_lanes"}));
    Control control;
    control.where =
        entries.entries().empty() ? value.where : entries.entries().front().key_where;
    auto mutant_value = entries.optional("mutant");
    auto knobs_value = entries.optional("knobs");
    if (!mutant_value && !knobs_value)
      return error_at(value.where, "a mutant or knobs in a control", "neither");
    if (mutant_value) {
      TIDEMARK_TRY(name, mutant_name(*mutant_value));
      control.mutant = name;
    }
    if (knobs_value) {
      TIDEMARK_TRY(overrides, knobs(*knobs_value));
      if (overrides.empty())
        return error_at(knobs_value->where,
                        fmt::format("at least one knob in a control's knobs ({})",
                                    join(knob_names())),
                        "an empty map");
      control.knobs = overrides;
    }
    TIDEMARK_TRY(fails_value, entries.required("fails"));
    TIDEMARK_TRY(fails, check_references(fails_value, scenario));
    control.fails = fails;
    if (auto skip_value = entries.optional("skip_lanes")) {
      TIDEMARK_TRY(skipped, skip_lanes(*skip_value));
      control.skip_lanes = skipped;
    }
    return control;
  }

  Result<std::string> mutant_name(const Value& value) const {
    constexpr std::string_view kWhat =
        "a mutant name component.name ([a-z0-9_]+(\\.[a-z0-9_]+)+)";
    TIDEMARK_TRY(name, text(value, kWhat));
    if (auto bad = mutant_name_mismatch(name))
      return error_at(source_.inside(value, *bad), kWhat, quote(name));
    return name;
  }

  static bool has_wait_expectation(const std::vector<Step>& steps) {
    for (const auto& step : steps) {
      if (const auto* wait = std::get_if<ClientWait>(step.kind.get()); wait && wait->expect) return true;
      if (const auto* repeat = std::get_if<Repeat>(step.kind.get()); repeat && has_wait_expectation(repeat->steps))
        return true;
    }
    return false;
  }

  // The checks a control must turn red: `pixels[k]`, `waits` (every client_wait's expected
  // status), or a gauge check's expression with whitespace ignored. Kept as written, trimmed.
  Result<std::vector<std::string>> check_references(const Value& value,
                                                    const Scenario& scenario) const {
    std::vector<std::string> known;
    for (const auto& check : scenario.gauge_checks) known.push_back(check.expr.text());
    size_t gauge_count = known.size();
    for (size_t k = 0; k < scenario.pixel_checks.size(); ++k)
      known.push_back(fmt::format("pixels[{}]", k));
    if (has_wait_expectation(scenario.workload)) known.push_back("waits");
    std::string expected = fmt::format("a check of this scenario ({})", join(known));

    constexpr std::string_view kWhat = "a non-empty list of checks the control makes fail";
    TIDEMARK_TRY(items, list(value, kWhat));
    if (items.empty()) return error_at(value.where, kWhat, "an empty list");
    std::vector<std::string> references;
    std::vector<size_t> resolved;  // indices into `known`
    for (const auto& item : items) {
      TIDEMARK_TRY(written, text(item, expected));
      std::string reference(trim(written));
      std::string spaceless = without_spaces(reference);
      size_t index = 0;
      while (index < known.size() &&
             (index < gauge_count ? without_spaces(known[index]) != spaceless
                                  : known[index] != reference))
        ++index;
      if (index == known.size()) return error_at(item.where, expected, quote(reference));
      if (std::find(resolved.begin(), resolved.end(), index) != resolved.end())
        return error_at(item.where, "each check once in a control",
                        fmt::format("{} again", quote(reference)));
      resolved.push_back(index);
      references.push_back(std::move(reference));
    }
    return references;
  }

  Result<std::map<std::string, std::string>> skip_lanes(const Value& value) const {
    TIDEMARK_TRY(entries, fields(value, "skip_lanes", kLanes));
    std::map<std::string, std::string> reasons;
    for (const auto& entry : entries.entries()) {
      constexpr std::string_view kWhat = "a reason the control cannot apply in this lane";
      TIDEMARK_TRY(reason, text(entry.value, kWhat));
      if (trim(reason).empty())
        return error_at(entry.value.where, kWhat, describe(entry.value.node));
      reasons[entry.key] = reason;
    }
    if (reasons.size() == kLanes.size())
      return error_at(value.where,
                      "a lane left for the control to run in (a control must apply somewhere)",
                      fmt::format("all of {} skipped", join(kLanes)));
    return reasons;
  }

  const Source& source_;
  fs::path file_;
  Target target_;
  std::vector<std::string> buffers_;
  std::vector<std::string> fences_;          // defined so far, in document order
  std::vector<std::string> loop_variables_;  // of the enclosing repeats, outermost first
};

Result<std::string> read_text(const fs::path& file) {
  auto cannot_read = [&](int error) {
    return fail(ErrorKind::Io,
                fmt::format("cannot read {}: {}", file.string(), std::strerror(error)));
  };
  std::error_code ignored;
  if (fs::is_directory(file, ignored)) return cannot_read(EISDIR);
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) return cannot_read(errno != 0 ? errno : ENOENT);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return cannot_read(errno != 0 ? errno : EIO);
  return text.str();
}

bool is_scenario_file(const fs::path& path) {
  return path.extension() == ".yaml" || path.extension() == ".yml";
}

}  // namespace

Result<Scenario> load(const fs::path& file) {
  TIDEMARK_TRY(text, read_text(file));
  Source source(file.string(), text);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& exception) {
    return syntax_error(source, exception);
  }
  SourceLocation start{source.file(), 1, 1};
  if (documents.size() > 1)
    return error_at(source.value(documents[1], start).where, "one YAML document", "a second one");
  Value root =
      documents.empty() ? Value{YAML::Node(), start} : source.value(documents.front(), start);
  return Loader(source, file).scenario(root);
}

Result<std::vector<fs::path>> collect_files(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  std::set<fs::path> seen;
  auto add = [&](const fs::path& path) {
    std::error_code ignored;
    fs::path identity = fs::weakly_canonical(path, ignored);
    if (seen.insert(identity.empty() ? path : identity).second) files.push_back(path);
  };
  for (const auto& input : inputs) {
    std::error_code error;
    auto status = fs::status(input, error);
    if (fs::is_directory(status)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(input, error), end; !error && it != end;
           it.increment(error))
        if (std::error_code ignored;
            it->is_regular_file(ignored) && it->path().extension() == ".yaml")
          found.push_back(it->path());
      if (error)
        return fail(ErrorKind::Io,
                    fmt::format("cannot read {}: {}", input.string(), error.message()));
      if (found.empty())
        return fail(ErrorKind::BadInput,
                    fmt::format("{}: expected a directory holding *.yaml scenarios, found none",
                                input.string()));
      std::sort(found.begin(), found.end());
      for (const auto& path : found) add(path);
    } else if (fs::is_regular_file(status)) {
      if (!is_scenario_file(input))
        return fail(
            ErrorKind::BadInput,
            fmt::format(
                "{}: expected a scenario file ending in .yaml or .yml, found {}", input.string(),
                input.has_extension() ? quote(input.extension().string()) : "no extension"));
      add(input);
    } else {
      return fail(
          ErrorKind::BadInput,
          fmt::format("{}: expected a scenario file or a directory, found {}", input.string(),
                      fs::exists(status) ? "another kind of file" : "nothing at that path"));
    }
  }
  return files;
}

}  // namespace tidemark::scenario
