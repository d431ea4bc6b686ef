#include "core/option_values.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

namespace tidemark {

namespace {

// All of `text` as a T, or nothing (a sign '+', spaces, another base, a value past T's range).
template <class T>
std::optional<T> all_of_text(std::string_view text) {
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Result<int64_t> parse_whole_number(std::string_view text, int64_t min, int64_t max) {
  const auto value = all_of_text<int64_t>(text);
  if (!value || *value < min || *value > max)
    return fail(ErrorKind::BadInput, fmt::format("expected an integer from {} to {}, found '{}'", min, max, text));
  return *value;
}

Result<double> parse_seconds(std::string_view text, ZeroSeconds zero) {
  const auto value = all_of_text<double>(text);
  const bool zero_allowed = zero == ZeroSeconds::MeansNoLimit;
  if (!value || !std::isfinite(*value) || *value < 0 || (*value == 0 && !zero_allowed))
    return fail(ErrorKind::BadInput, fmt::format("expected seconds, a finite number above 0{}, found '{}'",
                                                 zero_allowed ? " (0: no limit)" : "", text));
  return *value;
}

Result<double> parse_finite_bound(std::string_view text) {
  const auto value = all_of_text<double>(text);
  if (!value || !std::isfinite(*value) || *value < 0)
    return fail(ErrorKind::BadInput, fmt::format("expected a finite number from 0, found '{}'", text));
  return *value;
}

}  // namespace tidemark
