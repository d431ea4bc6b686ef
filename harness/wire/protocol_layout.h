// The wire layout's fingerprint: every message's fields as text, and its hash, which a test
// holds against kProtocolLayoutHash so that no layout changes without a new protocol version.
#pragma once

#include <string>

#include "wire/codec.h"

namespace tidemark::wire {

// Every field type as text, in order, nested field structs in braces: what a decoder on the
// other side must agree with. A type with no entry here fails to compile.
template <class T>
struct LayoutOf;
template <class T>
void describe_layout(std::string& out) {
  using Type = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<Type, bool>)
    out += "b";
  else if constexpr (std::is_same_v<Type, MemoryType>)
    out += "u32";  // wider than the other enums (codec.h)
  else if constexpr (std::is_enum_v<Type>)
    out += "e8";
  else if constexpr (std::is_same_v<Type, uint32_t>)
    out += "u32";
  else if constexpr (std::is_same_v<Type, int32_t>)
    out += "i32";
  else if constexpr (std::is_same_v<Type, uint64_t>)
    out += "u64";
  else if constexpr (std::is_same_v<Type, int64_t>)
    out += "i64";
  else if constexpr (std::is_same_v<Type, double>)
    out += "f64";
  else if constexpr (std::is_same_v<Type, std::string>)
    out += "s";
  else if constexpr (std::is_same_v<Type, Bytes> || std::is_same_v<Type, std::vector<uint8_t>>)
    out += "y";
  else if constexpr (std::is_same_v<Type, KnobMap>)
    out += "map<s,i64>";
  else if constexpr (std::is_same_v<Type, NamedValues>)
    out += "[s,i64]";
  else if constexpr (std::is_same_v<Type, WalkUpdates>)
    out += "[u32,u32,u32,u64]";
  else if constexpr (std::is_same_v<Type, Error>)
    out += "error{e8,s}";
  else if constexpr (std::is_same_v<Type, std::monostate>)
    out += "()";
  else if constexpr (FieldStruct<Type>) {
    using Fields = decltype(Type::fields(std::declval<Type&>()));
    out += "{";
    [&]<size_t... I>(std::index_sequence<I...>) {
      ((out += I == 0 ? "" : ",", describe_layout<std::tuple_element_t<I, Fields>>(out)), ...);
    }(std::make_index_sequence<std::tuple_size_v<Fields>>{});
    out += "}";
  } else {
    LayoutOf<Type>::describe(out);  // lists, optionals, variants
  }
}
template <class T>
struct LayoutOf<std::vector<T>> {
  static void describe(std::string& out) {
    out += "[";
    describe_layout<T>(out);
    out += "]";
  }
};
template <class T>
struct LayoutOf<std::optional<T>> {
  static void describe(std::string& out) {
    out += "?";
    describe_layout<T>(out);
  }
};
template <class... T>
struct LayoutOf<std::variant<T...>> {
  static void describe(std::string& out) {
    out += "<";
    size_t index = 0;
    ((out += index++ == 0 ? "" : "|", describe_layout<T>(out)), ...);
    out += ">";
  }
};
// Every message as `name opcode {fields}`, one per line, in the order they are declared.
std::string protocol_layout();
uint64_t protocol_layout_hash();

}  // namespace tidemark::wire
