// Private to the scenario loader: YAML with positions. Every value knows where it sits in
// the file, every error is `file:line:column: expected X, found Y`, and a field is read in
// one line (required/optional). Knows nothing of the scenario schema.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/expr.h"
#include "core/time_bounds.h"

namespace tidemark::scenario::yaml {

inline constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kNoMin = std::numeric_limits<int64_t>::min();

std::string join(const std::vector<std::string_view>& names, std::string_view when_empty = "none");
std::string join(const std::vector<std::string>& names, std::string_view when_empty = "none");
bool contains(const std::vector<std::string_view>& names, std::string_view name);
bool contains(const std::vector<std::string>& names, std::string_view name);
std::string quote(std::string_view text);  // 'text', kept to one short line
std::string describe(const YAML::Node& node);
std::string_view trim(std::string_view text);
std::string without_spaces(std::string_view text);
// A plain decimal integer (no '+', no suffix), or nullopt.
std::optional<int64_t> parse_integer(std::string_view text);
// Offset of `name` as a whole word in expression text (0 when absent).
size_t word_offset(std::string_view text, std::string_view name);

std::unexpected<Error> error_at(const SourceLocation& where, std::string_view expected, std::string_view found);

// A node together with where to point at it. Empty values point at their key: yaml-cpp
// marks them at whatever token follows.
struct Value {
  YAML::Node node;
  SourceLocation where;
};

// The file being loaded: turns yaml-cpp marks and offsets within scalars into locations.
class Source {
 public:
  Source(std::string file, std::string_view text);
  const std::string& file() const { return file_; }
  SourceLocation at(const YAML::Mark& mark) const;
  Value value(const YAML::Node& node, const SourceLocation& fallback) const;
  // Location of character `offset` of a scalar's text; exact when the file shows the scalar
  // verbatim on one line (plain or quoted), else the scalar's own location.
  SourceLocation inside(const Value& value, size_t offset) const;
  // A parse error of yaml-cpp, explained at its position.
  std::unexpected<Error> syntax_error(const YAML::Exception& exception) const;
  // The file's one document (an undefined node for an empty file): a second document is an
  // error at its start, never silently left unread; a syntax error is explained at its place.
  Result<YAML::Node> one_document() const;
  // An Expression::parse error ("column N: expected ..., found ...") at its file position.
  std::unexpected<Error> expression_error(const Value& value, const Error& error) const;

 private:
  std::string character_at(const YAML::Mark& mark) const;
  std::optional<SourceLocation> tab_indent(int last_line) const;

  std::string file_;
  std::string text_;
  std::vector<std::string> lines_;
};

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
  const Value& self() const { return self_; }
  const Entry* find(std::string_view key) const;
  std::optional<Value> optional(std::string_view key) const;
  Result<Value> required(std::string_view key) const;

 private:
  std::string context_;
  Value self_;
  std::vector<Entry> entries_;
};

// Readers of plain values; each names what it expected and what it found.
class Reader {
 public:
  explicit Reader(const Source& source) : source_(source) {}
  const Source& source() const { return source_; }

  Result<Fields> fields(const Value& value, std::string_view context,
                        const std::vector<std::string_view>& allowed) const;
  Result<std::vector<Value>> list(const Value& value, std::string_view what) const;
  Result<std::vector<Value>> non_empty_list(const Value& value, std::string_view what) const;
  Result<std::string> text(const Value& value, std::string_view what) const;
  Result<std::string> kebab_name(const Value& value) const;
  Result<std::string> identifier(const Value& value, std::string_view what) const;
  // component.name ([a-z0-9_]+(\.[a-z0-9_]+)+)
  Result<std::string> dotted_name(const Value& value, std::string_view what) const;
  Result<int64_t> integer(const Value& value, int64_t min, int64_t max, std::string_view purpose = {}) const;
  Result<int> small_integer(const Value& value, int64_t min, int64_t max) const;
  Result<bool> boolean(const Value& value) const;
  Result<std::array<uint8_t, 4>> rgba(const Value& value) const;
  Result<Expression> expression(const Value& value, std::string_view what) const;
  // A map with exactly one key, such as a step (`- draw: {...}`): that key's entry. `hint`
  // follows the message about a second key.
  Result<Fields::Entry> single_key(const Value& value, std::string_view what, std::string_view one_key,
                                   const std::vector<std::string_view>& allowed, std::string_view hint = {}) const;

 private:
  const Source& source_;
};

// One line per field: reads `key` with `parse` (Value -> Result<X>) into `out`; an absent
// optional field leaves `out` as it was.
template <class T, class Parse>
Status required(const Fields& fields, std::string_view key, T& out, Parse&& parse) {
  TIDEMARK_TRY(value, fields.required(key));
  TIDEMARK_TRY(parsed, parse(value));
  out = std::move(parsed);
  return {};
}

template <class T, class Parse>
Status optional(const Fields& fields, std::string_view key, T& out, Parse&& parse) {
  auto value = fields.optional(key);
  if (!value) return {};
  TIDEMARK_TRY(parsed, parse(*value));
  out = std::move(parsed);
  return {};
}

// A subject's own time limits, as a scenario and a capture fixture write them: `timeout:` (its
// whole run) and `inactivity_timeout:` (no call for that long), whole seconds from 1 to 86400.
Result<TimeBoundsOverride> time_bounds(const Reader& read, const Fields& fields);

}  // namespace tidemark::scenario::yaml
