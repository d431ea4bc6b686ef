// The schema's readers of single values: integer fields over loop variables, buffer names,
// fills, times, frequencies, numbers and the enums a scenario names by word.
#include <fmt/format.h>

#include <charconv>
#include <span>

#include "core/knobs.h"
#include "core/lane.h"
#include "scenario/schema_reader.h"

namespace tidemark::scenario::schema {

using yaml::error_at;
using yaml::join;
using yaml::quote;

std::vector<std::string_view> knob_names() {
  std::vector<std::string_view> names;
  for (const auto& knob : known_knobs()) names.push_back(knob.name);
  return names;
}

std::vector<std::string_view> lane_names() {
  std::vector<std::string_view> names;
  for (Lane lane : kAllLanes) names.push_back(lane_name(lane));
  return names;
}

Result<IntField> ValueReader::IntFieldParser::operator()(const Value& value) const {
  const auto& read = values.read();
  const auto& loop_variables = values.declared().loop_variables;
  TIDEMARK_TRY(expression, read.expression(value, rule.what));
  const std::string& written = value.node.Scalar();
  for (const auto& name : expression.identifiers()) {
    if (yaml::contains(loop_variables, name)) continue;
    if (loop_variables.empty() && name == expression.text()) return error_at(value.where, rule.what, quote(written));
    return error_at(read.source().inside(value, yaml::word_offset(written, name)),
                    fmt::format("a loop variable in scope ({})", join(loop_variables)), quote(name));
  }
  if (expression.identifiers().empty()) {
    auto constant = expression.evaluate([](std::string_view) { return std::nullopt; });
    if (!constant) return error_at(value.where, "a computable value", constant.error().message);
    if (*constant < rule.min || *constant > rule.max) {
      std::string found = quote(written);
      if (written != std::to_string(*constant)) found += fmt::format(" = {}", *constant);
      return error_at(value.where, rule.bound, found);
    }
  }
  return IntField{std::move(expression), value.where};
}

Result<std::string> ValueReader::buffer_name(const Value& value) const {
  std::string expected = fmt::format("a declared buffer ({})", join(declared_.buffers));
  TIDEMARK_TRY(name, read_.text(value, expected));
  if (!declared_.buffer_set.contains(name)) return error_at(value.where, expected, quote(name));
  return name;
}

Result<Fill> ValueReader::fill(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "fill", {"palette", "rgba", "zero"}));
  constexpr std::string_view kOneKind = "exactly one of palette, rgba, zero";
  if (entries.entries().empty()) return error_at(value.where, kOneKind, "an empty map");
  if (entries.entries().size() > 1)
    return error_at(entries.entries()[1].key_where, kOneKind,
                    fmt::format("a second key {}", quote(entries.entries()[1].key)));
  const auto& entry = entries.entries().front();
  Fill fill;
  if (entry.key == "palette") {
    fill.kind = Fill::Kind::Palette;
    TIDEMARK_CHECK(yaml::required(entries, "palette", fill.palette_index, int_field(kPaletteRule)));
  } else if (entry.key == "rgba") {
    fill.kind = Fill::Kind::Rgba;
    TIDEMARK_CHECK(yaml::required(entries, "rgba", fill.rgba, [&](const Value& v) { return read_.rgba(v); }));
  } else {
    TIDEMARK_TRY(zero, read_.boolean(entry.value));
    if (!zero) return error_at(entry.value.where, "true (zero: true)", yaml::describe(entry.value.node));
  }
  return fill;
}

namespace {

struct Unit {
  std::string_view name;  // "" for a bare amount
  uint64_t scale;
};
constexpr Unit kHertz[] = {{"", 1}, {"Hz", 1}, {"kHz", 1'000}, {"MHz", 1'000'000}, {"GHz", 1'000'000'000}};
constexpr Unit kNanoseconds[] = {{"", 1}, {"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};

// A whole amount of at least `min_amount` and one of `units` (after spaces, if `spaced`), as
// amount * scale; anything else, or an overflow, is an error that names `what`.
Result<uint64_t> scaled(const yaml::Reader& read, const Value& value, std::string_view what,
                        std::span<const Unit> units, bool spaced, uint64_t min_amount) {
  TIDEMARK_TRY(written, read.text(value, what));
  std::string_view rest = written;
  uint64_t amount = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), amount);
  if (error != std::errc() || end == rest.data()) return error_at(value.where, what, quote(written));
  rest.remove_prefix(static_cast<size_t>(end - rest.data()));
  while (spaced && rest.starts_with(' ')) rest.remove_prefix(1);
  uint64_t scale = 0;
  for (const auto& unit : units)
    if (rest == unit.name) scale = unit.scale;
  uint64_t out = 0;
  if (scale == 0 || amount < min_amount || __builtin_mul_overflow(amount, scale, &out))
    return error_at(value.where, what, quote(written));
  return out;
}

}  // namespace

Result<uint64_t> ValueReader::frequency(const Value& value) const {
  return scaled(read_, value, "a frequency such as 585MHz (Hz, kHz, MHz, GHz), above 0", kHertz, false, 1);
}

Result<uint64_t> ValueReader::timeout_ns(const Value& value) const {
  return scaled(read_, value, "a timeout in ns, or with a unit such as 500ms or 2s", kNanoseconds, true, 0);
}

Result<double> ValueReader::number(const Value& v) const {
  constexpr std::string_view kWhat = "a number such as 4096 or 15.5";
  if (!v.node.IsScalar()) return error_at(v.where, kWhat, yaml::describe(v.node));
  const std::string& text = v.node.Scalar();
  double out = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return error_at(v.where, kWhat, quote(text));
  return out;
}

Result<WaitStatus> ValueReader::wait_status(const Value& value) const {
  std::string expected =
      fmt::format("one of {}", join(std::vector<std::string_view>(kWaitStatusNames.begin(), kWaitStatusNames.end())));
  TIDEMARK_TRY(word, read_.text(value, expected));
  if (auto status = parse_wait_status(word)) return *status;
  return error_at(value.where, expected, quote(word));
}

Result<kernel::MemoryType> ValueReader::memory_type(const Value& v) const {
  std::vector<std::string_view> names(kernel::kMemoryTypeNames.begin(), kernel::kMemoryTypeNames.end());
  std::string expected = fmt::format("a memory type ({})", join(names));
  TIDEMARK_TRY(name, read_.text(v, expected));
  if (auto type = kernel::parse_memory_type(name)) return *type;
  return error_at(v.where, expected, quote(name));
}

Result<kernel::Queue> ValueReader::queue(const Value& v) const {
  return named_value(v, "a queue", kernel::kQueueNames, kernel::Queue::Scene);
}

Result<uint32_t> ValueReader::id32(const Value& v) const {
  TIDEMARK_TRY(number, read_.integer(v, 0, 0xffffffff));
  return static_cast<uint32_t>(number);
}

}  // namespace tidemark::scenario::schema
