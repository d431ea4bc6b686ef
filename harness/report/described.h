// A document's fields described once, in its codec's file (a JsonDescription<T> with `fields()`):
// the key, the member, and whether it is written always or only when it holds something. One
// writer and one reader walk the description, so every described document reads with JsonFields'
// errors (the field's path, what was expected, what was found).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "report/json_fields.h"

namespace tidemark::report {

// WhenSet: left out when empty (an empty string or list, no value); read back as empty.
enum class Presence : uint8_t { Always, WhenSet };

template <class Owner, class Member>
struct Field {
  std::string_view key;
  Member Owner::*member;
  Presence presence;
};
template <class Owner, class Member>
constexpr Field<Owner, Member> always(std::string_view key, Member Owner::*member) {
  return {key, member, Presence::Always};
}
template <class Owner, class Member>
constexpr Field<Owner, Member> when_set(std::string_view key, Member Owner::*member) {
  return {key, member, Presence::WhenSet};
}

// An object of its own under `key`, holding some of the owner's fields (observation.json's
// `whole`): the owner's struct need not nest as its document does.
template <class... Fields>
struct Group {
  std::string_view key;
  std::tuple<Fields...> fields;
};
template <class... Fields>
constexpr Group<Fields...> group(std::string_view key, Fields... fields) {
  return {key, {fields...}};
}
// An optional part written into its owner's object, its fields beside the owner's, when set; read
// when `marker` (one of its keys) is there. A process's Vulkan figures are such a part.
template <class Owner, class Part>
struct Inlined {
  std::optional<Part> Owner::*member;
  std::string_view marker;
};
template <class Owner, class Part>
constexpr Inlined<Owner, Part> inlined(std::optional<Part> Owner::*member, std::string_view marker) {
  return {member, marker};
}

// A value written as one word (an enumeration's name, a column's text): specialise with
//   static std::string word(const T&); static std::optional<T> from_word(std::string_view);
//   static constexpr std::string_view expected = "one of same, worse";
template <class T>
struct JsonWord;

template <class T>
struct JsonDescription;

template <class T>
concept Described = requires { JsonDescription<T>::fields(); };
template <class T>
concept Worded = requires(const T& value) { JsonWord<T>::word(value); };

namespace described_detail {
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsObjects : std::false_type {};
template <Described T>
struct IsObjects<std::vector<T>> : std::true_type {};

template <class T>
bool holds(const T& value) {
  if constexpr (IsOptional<T>::value)
    return value.has_value();
  else if constexpr (requires { value.empty(); })
    return !value.empty();
  else
    return value != T{};
}
}  // namespace described_detail

template <Described T>
nlohmann::json described_json(const T& value);

template <class T>
nlohmann::json value_json(const T& value) {
  if constexpr (described_detail::IsOptional<T>::value) {
    return value_json(*value);
  } else if constexpr (Described<T>) {
    return described_json(value);
  } else if constexpr (described_detail::IsObjects<T>::value) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& each : value) out.push_back(described_json(each));
    return out;
  } else if constexpr (Worded<T>) {
    return JsonWord<T>::word(value);
  } else {
    return nlohmann::json(value);
  }
}

template <class Owner, class Member>
void write_field(nlohmann::json& out, const Owner& value, const Field<Owner, Member>& field) {
  if (field.presence == Presence::Always || described_detail::holds(value.*field.member))
    out[std::string(field.key)] = value_json(value.*field.member);
}
template <class Owner, class... Fields>
void write_field(nlohmann::json& out, const Owner& value, const Group<Fields...>& group) {
  nlohmann::json inner = nlohmann::json::object();
  std::apply([&](const auto&... field) { (write_field(inner, value, field), ...); }, group.fields);
  out[std::string(group.key)] = std::move(inner);
}
template <class Owner, class Part>
void write_field(nlohmann::json& out, const Owner& value, const Inlined<Owner, Part>& part) {
  if (const auto& held = value.*part.member) out.update(described_json(*held));
}

template <Described T>
nlohmann::json described_json(const T& value) {
  nlohmann::json out = nlohmann::json::object();
  std::apply([&](const auto&... field) { (write_field(out, value, field), ...); }, JsonDescription<T>::fields());
  return out;
}

template <Described T>
void read_described(JsonFields& in, T& value);

// One field read into `out` (left as it is when a WhenSet field is absent).
template <class T>
void read_value(JsonFields& in, std::string_view key, Presence presence, T& out) {
  const bool required = presence == Presence::Always;
  if constexpr (described_detail::IsOptional<T>::value) {
    using Value = typename T::value_type;
    if constexpr (Described<Value>)
      in.object(
          key, [&](JsonFields& inner) { read_described(inner, out.emplace()); }, false);
    else if constexpr (Worded<Value> || std::is_same_v<Value, int>) {
      if (in.has(key)) read_value(in, key, Presence::Always, out.emplace());
    } else
      out = in.take_optional<Value>(key);
  } else if constexpr (Described<T>) {
    in.object(
        key, [&](JsonFields& inner) { read_described(inner, out); }, required);
  } else if constexpr (described_detail::IsObjects<T>::value) {
    in.objects(
        key, [&](JsonFields& inner) { read_described(inner, out.emplace_back()); }, required);
  } else if constexpr (Worded<T>) {
    std::optional<std::string> word = required ? in.take<std::string>(key) : in.take_optional<std::string>(key);
    if (!word) return;
    if (auto known = JsonWord<T>::from_word(*word))
      out = *known;
    else
      in.refuse(key, JsonWord<T>::expected, *word);
  } else if constexpr (std::is_same_v<T, int>) {
    out = static_cast<int>(in.take<int64_t>(key));
  } else if (required) {
    out = in.take<T>(key);
  } else if (auto taken = in.take_optional<T>(key)) {
    out = std::move(*taken);
  }
}

template <class Owner, class Member>
void read_field(JsonFields& in, Owner& value, const Field<Owner, Member>& field) {
  read_value(in, field.key, field.presence, value.*field.member);
}
template <class Owner, class... Fields>
void read_field(JsonFields& in, Owner& value, const Group<Fields...>& group) {
  in.object(group.key, [&](JsonFields& inner) {
    std::apply([&](const auto&... field) { (read_field(inner, value, field), ...); }, group.fields);
  });
}
template <class Owner, class Part>
void read_field(JsonFields& in, Owner& value, const Inlined<Owner, Part>& part) {
  if (in.has(part.marker)) read_described(in, (value.*part.member).emplace());
}

template <Described T>
void read_described(JsonFields& in, T& value) {
  std::apply([&](const auto&... field) { (read_field(in, value, field), ...); }, JsonDescription<T>::fields());
}

// A whole document of `kind` whose body is a described struct, written and read.
template <Described T>
Status write_described_document(const std::filesystem::path& file, const T& document, const DocumentKind& kind) {
  return write_document(file, described_json(document), kind);
}
template <Described T>
Result<T> read_described_document(const std::filesystem::path& file, const DocumentKind& kind) {
  TIDEMARK_TRY(json, read_document(file, kind));
  JsonFields fields(json, file.string());
  T document;
  read_described(fields, document);
  TIDEMARK_CHECK(fields.finish());
  return document;
}

}  // namespace tidemark::report
