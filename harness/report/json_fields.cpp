#include "report/json_fields.h"

#include <charconv>
#include <limits>

#include "core/files.h"
#include "core/limits.h"
#include "core/version.h"

namespace tidemark::report {

namespace {

// The deepest nesting of arrays and objects in `text`, counted before parsing: a document
// 100 000 deep crashed merge, and nlohmann's parser has no depth limit of its own. A byte scan
// (strings skipped, escapes honoured) costs less than the parse it guards. Past `limit` it stops
// and says where: the line and column of the bracket that went too deep.
std::optional<std::pair<int, int>> deeper_than(std::string_view text, int limit) {
  int depth = 0, line = 1, column = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      continue;
    }
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return std::pair{line, column};
    } else if (c == ']' || c == '}')
      --depth;
  }
  return std::nullopt;
}

struct ParseErrorPlace {
  size_t line = 0, column = 0;
  std::string_view rest;
};
// The place in "... at line L, column C: REST" (read by hand: the message quotes the input's last
// token, as long as the input made it).
std::optional<ParseErrorPlace> parse_error_place(std::string_view message) {
  constexpr std::string_view kLine = "at line ", kColumn = ", column ";
  const size_t at = message.find(kLine);
  if (at == std::string_view::npos) return std::nullopt;
  ParseErrorPlace place;
  const char* end = message.data() + message.size();
  auto [after_line, line_error] = std::from_chars(message.data() + at + kLine.size(), end, place.line);
  std::string_view rest(after_line, end - after_line);
  if (line_error != std::errc() || !rest.starts_with(kColumn)) return std::nullopt;
  auto [after_column, column_error] = std::from_chars(rest.data() + kColumn.size(), end, place.column);
  rest = std::string_view(after_column, end - after_column);
  if (column_error != std::errc() || !rest.starts_with(": ")) return std::nullopt;
  place.rest = rest.substr(2);
  return place;
}

}  // namespace

bool too_deep(std::string_view text) { return deeper_than(text, kMaxJsonDepth).has_value(); }

Result<nlohmann::json> parse_json(std::string_view text, const std::string& file, std::string_view what) {
  if (auto place = deeper_than(text, kMaxJsonDepth))
    return fail(ErrorKind::BadInput, fmt::format("{}:{}:{}: expected {} nested at most {} deep, found deeper", file,
                                                 place->first, place->second, what, kMaxJsonDepth));
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // nlohmann says "parse error at line 3, column 5: ..."; we say "FILE:3:5: ...".
    const std::string_view message = error.what();
    if (auto place = parse_error_place(message))
      return fail(ErrorKind::BadInput,
                  fmt::format("{}:{}:{}: expected {}, found {}", file, place->line, place->column, what, place->rest));
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found {}", file, what, message));
  } catch (const nlohmann::json::exception& error) {
    // A number past a double's range (1e380) is out_of_range, not a parse_error: no place is given.
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found {}", file, what, error.what()));
  }
}

Status check_format(const nlohmann::json& json, const std::string& where, std::string_view format, int64_t version,
                    std::string_view description) {
  // Compared as JSON values: value() would throw on a format that is not a string, and convert a
  // version of 1e300 to an integer (undefined behaviour).
  if (json.is_object() && json.contains("format") && json["format"] == nlohmann::json(format) &&
      json.contains("version") && json["version"].is_number_integer() && json["version"] == nlohmann::json(version))
    return {};
  return fail(ErrorKind::BadInput,
              fmt::format("{}: expected {} of version {}, found {}", where, description, version,
                          json.is_object() && json.contains("version") ? "version " + json["version"].dump()
                                                                       : std::string("another JSON document")));
}

nlohmann::json with_kind(nlohmann::json json, const DocumentKind& kind) {
  json["format"] = kind.format;
  json["version"] = kind.version;
  json["tidemark"] = tidemark_version();
  return json;
}

namespace {

// Removes the "tidemark" field a document's writer named itself with (absent in older documents);
// one that is not a string is bad input.
Status take_maker(nlohmann::json& json, const std::string& where) {
  if (!json.is_object()) return {};
  if (auto found = json.find("tidemark"); found != json.end()) {
    if (!found->is_string())
      return fail(ErrorKind::BadInput, fmt::format("{}: tidemark: expected the version of the Tidemark that wrote it "
                                                   "(a string), found {}",
                                                   where, found->dump()));
    json.erase(found);
  }
  return {};
}

}  // namespace

Result<nlohmann::json> without_kind(nlohmann::json json, const std::string& where, const DocumentKind& kind) {
  TIDEMARK_CHECK(check_format(json, where, kind.format, kind.version, kind.description));
  TIDEMARK_CHECK(take_maker(json, where));
  json.erase("format");
  json.erase("version");
  return json;
}

Status write_document(const std::filesystem::path& file, nlohmann::json json, const DocumentKind& kind) {
  return write_file_atomically(file, with_kind(std::move(json), kind).dump(2) + '\n');
}

Result<nlohmann::json> read_document(const std::filesystem::path& file, const DocumentKind& kind) {
  TIDEMARK_TRY(text, read_given_file(file, kind.description));
  TIDEMARK_TRY(json, parse_json(text, file.string(), kind.description));
  return without_kind(std::move(json), file.string(), kind);
}

JsonFields::JsonFields(const nlohmann::json& json, std::string where, std::string path)
    : JsonFields(json, std::move(where), std::move(path), std::make_shared<std::optional<Error>>()) {
  if (!json_.is_object()) fail_with(fmt::format("{}: expected a JSON object, found {}", where_, json_.type_name()));
}

JsonFields::JsonFields(const nlohmann::json& json, std::string where, std::string path,
                       std::shared_ptr<std::optional<Error>> error)
    : json_(json), where_(std::move(where)), path_(std::move(path)), error_(std::move(error)) {}

std::string JsonFields::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonFields::fail_with(std::string message) {
  if (!*error_) *error_ = Error{ErrorKind::BadInput, std::move(message)};
}

uint64_t JsonFields::take_bounded(std::string_view key, uint64_t low, uint64_t high) {
  const nlohmann::json* value = find(key, /*required=*/true);
  if (!value) return low;
  if (!value->is_number_unsigned() || value->get<uint64_t>() < low || value->get<uint64_t>() > high) {
    wrong(key, fmt::format("an integer from {} to {}", low, high), *value);
    return low;
  }
  return value->get<uint64_t>();
}

void JsonFields::wrong(std::string_view key, std::string_view expected, const nlohmann::json& found) {
  std::string shown = found.dump();
  if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
  fail_with(fmt::format("{}: {}: expected {}, found {}", where_, child(key), expected, shown));
}

const nlohmann::json* JsonFields::find(std::string_view key, bool required) {
  taken_.emplace(key);
  if (!json_.is_object()) return nullptr;
  auto found = json_.find(key);
  if (found == json_.end()) {
    if (required) fail_with(fmt::format("{}: expected '{}', found none", where_, child(key)));
    return nullptr;
  }
  return &*found;
}

void JsonFields::skip(std::string_view key) { taken_.emplace(key); }

void JsonFields::check_untaken() {
  if (!json_.is_object()) return;
  for (const auto& [key, value] : json_.items())
    if (!taken_.contains(key)) {
      fail_with(
          fmt::format("{}: {}: expected none of this version's fields, found an unknown one", where_, child(key)));
      return;
    }
}

Status JsonFields::finish() {
  check_untaken();
  if (*error_) return std::unexpected(**error_);
  return {};
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, std::string& out) {
  if (!value.is_string()) return wrong(key, "a string", value);
  out = value.get<std::string>();
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, bool& out) {
  if (!value.is_boolean()) return wrong(key, "true or false", value);
  out = value.get<bool>();
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, double& out) {
  if (!value.is_number()) return wrong(key, "a number", value);
  out = value.get<double>();
}

namespace {

// nlohmann keeps an integer over INT64_MAX as unsigned, and get<int64_t>() wraps it: 2^63 read
// as a gauge became INT64_MIN and a baseline said "+100%". Such a number is out of range.
bool fits_int64(const nlohmann::json& value) {
  return value.is_number_integer() &&
         (!value.is_number_unsigned() || value.get<uint64_t>() <= uint64_t{std::numeric_limits<int64_t>::max()});
}

constexpr std::string_view kInt64 = "an integer from -9223372036854775808 to 9223372036854775807";

}  // namespace

void JsonFields::convert(const nlohmann::json& value, std::string_view key, int64_t& out) {
  if (!fits_int64(value)) return wrong(key, kInt64, value);
  out = value.get<int64_t>();
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, uint64_t& out) {
  if (!value.is_number_unsigned()) return wrong(key, "an unsigned integer", value);
  out = value.get<uint64_t>();
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, std::vector<std::string>& out) {
  if (!value.is_array()) return wrong(key, "an array of strings", value);
  for (const auto& element : value) {
    if (!element.is_string()) return wrong(key, "an array of strings", value);
    out.push_back(element.get<std::string>());
  }
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, std::vector<double>& out) {
  if (!value.is_array()) return wrong(key, "an array of numbers", value);
  for (const auto& element : value) {
    if (!element.is_number()) return wrong(key, "an array of numbers", value);
    out.push_back(element.get<double>());
  }
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, std::vector<std::vector<double>>& out) {
  if (!value.is_array()) return wrong(key, "an array of arrays of numbers", value);
  for (const auto& row : value) {
    if (!row.is_array()) return wrong(key, "an array of arrays of numbers", value);
    auto& numbers = out.emplace_back();
    for (const auto& element : row) {
      if (!element.is_number()) return wrong(key, "an array of arrays of numbers", value);
      numbers.push_back(element.get<double>());
    }
  }
}

void JsonFields::convert(const nlohmann::json& value, std::string_view key, std::map<std::string, int64_t>& out) {
  if (!value.is_object()) return wrong(key, "an object of integers", value);
  for (const auto& [name, number] : value.items()) {
    if (!number.is_number_integer()) return wrong(key, "an object of integers", value);
    if (!fits_int64(number)) return wrong(fmt::format("{}.{}", key, name), kInt64, number);
    out[name] = number.get<int64_t>();
  }
}

}  // namespace tidemark::report
