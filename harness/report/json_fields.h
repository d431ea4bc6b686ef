// Strict reading of a JSON document Tidemark wrote. A reader names every field it takes; a field
// missing, of another type, or left untaken (one this version does not know) is an error naming
// the document and the field's path ("FILE: results[2].lane.frames_sent: expected an unsigned
// integer, found "x"") — never a silent default. The first error wins: a reader takes all its
// fields, then asks finish() once.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark::report {

// Whether a JSON text nests deeper than kMaxJsonDepth (parse_json refuses it; a reader of JSON
// lines asks first).
bool too_deep(std::string_view text);
// Parses `text` as JSON; a syntax error, or nesting deeper than kMaxJsonDepth, says FILE:LINE:COLUMN.
Result<nlohmann::json> parse_json(std::string_view text, const std::string& file, std::string_view what);

// A document's own "format" and "version" fields: anything else is refused as "FILE: expected
// <description> of version V, found version W" (or "another JSON document").
Status check_format(const nlohmann::json& json, const std::string& where, std::string_view format, int64_t version,
                    std::string_view description);

// A kind of document Tidemark writes: its "format" and "version" fields, and what it is for errors.
struct DocumentKind {
  std::string_view format;  // "tidemark-soak"
  int64_t version = 1;
  std::string_view description;  // "a tidemark soak report"
};
// `json` with its format and version fields, and the version of the Tidemark that writes it
// ("tidemark": "1.0.0") (a history line, or a document's body before writing).
nlohmann::json with_kind(nlohmann::json json, const DocumentKind& kind);
// `json` checked to be of `kind` (`where` names it in errors), its format, version and maker removed.
Result<nlohmann::json> without_kind(nlohmann::json json, const std::string& where, const DocumentKind& kind);
// The document with its format and version, written atomically.
Status write_document(const std::filesystem::path& file, nlohmann::json json, const DocumentKind& kind);
// The document read, parsed and checked to be of `kind`; its format and version fields removed.
Result<nlohmann::json> read_document(const std::filesystem::path& file, const DocumentKind& kind);

class JsonFields {
 public:
  // `where` names the document ("out/summary.json"); `path` the object's place in it ("results[2]").
  JsonFields(const nlohmann::json& json, std::string where, std::string path = {});
  JsonFields(const JsonFields&) = delete;
  JsonFields& operator=(const JsonFields&) = delete;

  template <class T>
  T take(std::string_view key) {
    T out{};
    if (const nlohmann::json* value = find(key, /*required=*/true)) convert(*value, key, out);
    return out;
  }
  template <class T>
  std::optional<T> take_optional(std::string_view key) {
    const nlohmann::json* value = find(key, /*required=*/false);
    if (!value) return std::nullopt;
    T out{};
    convert(*value, key, out);
    return out;
  }
  // Whether the object has `key` (not taking it).
  bool has(std::string_view key) const { return json_.is_object() && json_.contains(key); }
  // An unsigned integer from `low` to `high`: a count or an index with a documented bound.
  uint64_t take_bounded(std::string_view key, uint64_t low, uint64_t high);
  // A nested object; calls `read(fields)` on it, whose untaken keys are errors too.
  template <class Read>
  void object(std::string_view key, Read&& read, bool required = true) {
    const nlohmann::json* value = find(key, required);
    if (!value) return;
    if (!value->is_object()) return wrong(key, "an object", *value);
    JsonFields inner(*value, where_, child(key), error_);
    read(inner);
    inner.check_untaken();
  }
  // An array of objects; calls `read(fields)` on each.
  template <class Read>
  void objects(std::string_view key, Read&& read, bool required = true) {
    const nlohmann::json* value = find(key, required);
    if (!value) return;
    if (!value->is_array()) return wrong(key, "an array", *value);
    for (size_t k = 0; k < value->size(); ++k) {
      const nlohmann::json& element = (*value)[k];
      const std::string path = fmt::format("{}[{}]", child(key), k);
      if (!element.is_object()) {
        fail_with(fmt::format("{}: {}: expected an object, found {}", where_, path, element.dump()));
        return;
      }
      JsonFields inner(element, where_, path, error_);
      read(inner);
      inner.check_untaken();
    }
  }
  // A value that was read but is not one of those allowed (a name out of a list): an error naming the field.
  void refuse(std::string_view key, std::string_view expected, const std::string& found) {
    wrong(key, expected, nlohmann::json(found));
  }
  // Marks a key as known without reading it (a field derived from others, checked elsewhere).
  void skip(std::string_view key);
  // The error here or in any object read inside, else what the untaken keys make one.
  Status finish();

 private:
  JsonFields(const nlohmann::json& json, std::string where, std::string path,
             std::shared_ptr<std::optional<Error>> error);
  const nlohmann::json* find(std::string_view key, bool required);
  std::string child(std::string_view key) const;
  void wrong(std::string_view key, std::string_view expected, const nlohmann::json& found);
  void fail_with(std::string message);
  void check_untaken();

  void convert(const nlohmann::json& value, std::string_view key, std::string& out);
  void convert(const nlohmann::json& value, std::string_view key, bool& out);
  void convert(const nlohmann::json& value, std::string_view key, double& out);
  void convert(const nlohmann::json& value, std::string_view key, int64_t& out);
  void convert(const nlohmann::json& value, std::string_view key, uint64_t& out);
  void convert(const nlohmann::json& value, std::string_view key, std::vector<std::string>& out);
  void convert(const nlohmann::json& value, std::string_view key, std::vector<double>& out);
  void convert(const nlohmann::json& value, std::string_view key, std::vector<std::vector<double>>& out);
  void convert(const nlohmann::json& value, std::string_view key, std::map<std::string, int64_t>& out);

  const nlohmann::json& json_;
  std::string where_;
  std::string path_;
  std::set<std::string, std::less<>> taken_;
  std::shared_ptr<std::optional<Error>> error_;
};

}  // namespace tidemark::report
