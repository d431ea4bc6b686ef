// The wire's codec: length-prefixed binary frames with a versioned header, and the encoding of
// the messages they carry (wire/messages.h), field by field in declaration order.
//
// Header (16 bytes, little-endian): magic "TDMK", version u16, opcode u16, payload length
// u32, sequence u32. Payload fields are little-endian integers in declaration order; bytes
// and strings are a u32 length then the bytes; lists and maps a u32 count then the entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "api/device.h"
#include "api/model.h"
#include "core/error.h"
#include "core/limits.h"
#include "wire/messages.h"

namespace tidemark::wire {

inline constexpr uint32_t kMagic = 0x4B4D4454;  // "TDMK" in memory order
// kProtocolVersion and kProtocolLayoutHash come from the table of calls (api/calls.yaml), beside
// what each version changed.
inline constexpr size_t kHeaderBytes = 16;
inline constexpr uint32_t kMaxPayloadBytes = 256u << 20;
static_assert(kMaxStoreBytes + 64 <= kMaxPayloadBytes, "every store a scenario may ask for fits in one frame");
inline constexpr uint32_t kMaxHelloPayloadBytes = 4096;  // before the session is greeted
inline constexpr uint32_t kMaxStringBytes = 4096;
inline constexpr uint32_t kMaxKnobs = 64;
inline constexpr uint32_t kMaxListEntries = 1 << 16;

struct Frame {
  Opcode op = Opcode::Ok;
  uint32_t sequence = 0;
  std::vector<uint8_t> payload;
};

// A frame whose payload lies elsewhere (a recording reader's buffer, a read buffer): what a request
// needs to be sent, served or recorded, with no copy of its bytes.
struct FrameView {
  Opcode op = Opcode::Ok;
  uint32_t sequence = 0;
  std::span<const uint8_t> payload;
  FrameView() = default;
  FrameView(Opcode op, uint32_t sequence, std::span<const uint8_t> payload)
      : op(op), sequence(sequence), payload(payload) {}
  FrameView(const Frame& frame)
      : op(frame.op), sequence(frame.sequence), payload(frame.payload) {}  // NOLINT: implicit by design
};

struct Header {
  Opcode op;
  uint32_t length;
  uint32_t sequence;
};

std::vector<uint8_t> encode(FrameView frame);
void append_encoded(std::vector<uint8_t>& out, FrameView frame);
// Checks magic, version, opcode and that the payload is at most `max_payload` bytes.
Result<Header> decode_header(std::span<const uint8_t, kHeaderBytes> bytes, uint32_t max_payload = kMaxPayloadBytes);

// --- Field codecs: a message's fields in order, each as put() writes and get() reads it ------

class Writer {
 public:
  Writer& u8(uint8_t value);
  Writer& u32(uint32_t value);
  Writer& i32(int32_t value) { return u32(static_cast<uint32_t>(value)); }
  Writer& u64(uint64_t value);
  Writer& i64(int64_t value) { return u64(static_cast<uint64_t>(value)); }
  Writer& bytes(std::span<const uint8_t> data);
  // Longer strings are cut to kMaxStringBytes: whatever is encoded can be decoded.
  Writer& string(std::string_view text);
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

// The little-endian number in the first `bytes` bytes of `in` (the wire's byte order).
inline uint64_t get_le(std::span<const uint8_t> in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t{in[static_cast<size_t>(i)]} << (8 * i);
  return value;
}

// Bounds-checked reads; any read past the end, or an over-long string, is an error.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}
  // The fixed-width reads are inline: a replay decodes a few of them per command.
  Result<uint8_t> u8() { return little_endian<uint8_t>(); }
  Result<uint32_t> u32() { return little_endian<uint32_t>(); }
  Result<int32_t> i32() { return little_endian<int32_t>(); }
  Result<uint64_t> u64() { return little_endian<uint64_t>(); }
  Result<int64_t> i64() { return little_endian<int64_t>(); }
  Result<std::span<const uint8_t>> bytes();
  Result<std::string> string();
  // Every field read and nothing left over.
  Status finish() const;

 private:
  Result<std::span<const uint8_t>> take(size_t count);
  template <class Integer>
  Result<Integer> little_endian() {
    if (data_.size() - at_ < sizeof(Integer)) [[unlikely]]
      return std::unexpected(truncated(sizeof(Integer)));
    const uint64_t value = get_le(data_.subspan(at_, sizeof(Integer)), sizeof(Integer));
    at_ += sizeof(Integer);
    return static_cast<Integer>(value);
  }
  [[gnu::cold]] Error truncated(size_t count) const;
  std::span<const uint8_t> data_;
  size_t at_ = 0;
};

void put(Writer& writer, bool value);
void put(Writer& writer, uint32_t value);
void put(Writer& writer, int32_t value);
void put(Writer& writer, uint64_t value);
void put(Writer& writer, int64_t value);
void put(Writer& writer, const std::string& value);
void put(Writer& writer, Bytes value);
void put(Writer& writer, const std::vector<uint8_t>& value);
void put(Writer& writer, const KnobMap& value);
void put(Writer& writer, const NamedValues& value);
void put(Writer& writer, const std::vector<std::string>& value);
void put(Writer& writer, WaitStatus value);
void put(Writer& writer, const Error& value);
void put(Writer& writer, const WalkUpdates& value);

Status get(Reader& reader, bool& value);
// A read's value into `value`, or its error.
template <class T>
Status assign(Result<T> read, T& value) {
  if (!read) [[unlikely]]
    return std::unexpected(std::move(read.error()));
  value = std::move(*read);
  return {};
}
inline Status get(Reader& reader, uint32_t& value) { return assign(reader.u32(), value); }
inline Status get(Reader& reader, int32_t& value) { return assign(reader.i32(), value); }
inline Status get(Reader& reader, uint64_t& value) { return assign(reader.u64(), value); }
inline Status get(Reader& reader, int64_t& value) { return assign(reader.i64(), value); }
Status get(Reader& reader, std::string& value);
Status get(Reader& reader, Bytes& value);
Status get(Reader& reader, std::vector<uint8_t>& value);
Status get(Reader& reader, KnobMap& value);
Status get(Reader& reader, NamedValues& value);
Status get(Reader& reader, std::vector<std::string>& value);
Status get(Reader& reader, WaitStatus& value);
Status get(Reader& reader, Error& value);
Status get(Reader& reader, WalkUpdates& value);
void put(Writer& writer, kernel::CommandKind value);
void put(Writer& writer, kernel::DoorbellFault value);
void put(Writer& writer, kernel::PowerPolicy value);
void put(Writer& writer, kernel::KgslNode value);
void put(Writer& writer, kernel::Queue value);
void put(Writer& writer, tracer::MemorySource value);
void put(Writer& writer, tracer::ValueDirection value);
void put(Writer& writer, Completion value);
void put(Writer& writer, double value);
void put(Writer& writer, MemoryType value);
Status get(Reader& reader, kernel::CommandKind& value);
Status get(Reader& reader, kernel::DoorbellFault& value);
Status get(Reader& reader, kernel::PowerPolicy& value);
Status get(Reader& reader, kernel::KgslNode& value);
Status get(Reader& reader, kernel::Queue& value);
Status get(Reader& reader, tracer::MemorySource& value);
Status get(Reader& reader, tracer::ValueDirection& value);
Status get(Reader& reader, Completion& value);
Status get(Reader& reader, double& value);
Status get(Reader& reader, MemoryType& value);
// A list's length, at most `limit`.
Result<uint32_t> read_count(Reader& reader, uint32_t limit, const char* what);
// A decoding error (the wire's protocol error), and the message of a bad variant index.
std::unexpected<Error> read_error(std::string message);
std::string fmt_variant_index(uint8_t index, size_t alternatives);

// Structs that list their fields (kernel configs, operations, diagnoses) and lists of them
// travel field by field; a list is cut to kMaxListEntries on encode.
template <class T>
concept FieldStruct = requires(T& value) { T::fields(value); };
template <FieldStruct T>
void put(Writer& writer, const T& value);
template <FieldStruct T>
Status get(Reader& reader, T& value);
template <class T>
void put(Writer& writer, const std::vector<T>& values);
template <class T>
Status get(Reader& reader, std::vector<T>& values);
// optional: a 0/1 flag, then the value; variant: the alternative's index, then its value.
template <class T>
void put(Writer& writer, const std::optional<T>& value);
template <class T>
Status get(Reader& reader, std::optional<T>& value);
template <class... T>
void put(Writer& writer, const std::variant<T...>& value);
template <class... T>
Status get(Reader& reader, std::variant<T...>& value);
inline void put(Writer&, std::monostate) {}
inline Status get(Reader&, std::monostate&) { return {}; }

template <class T>
void put(Writer& writer, const std::optional<T>& value) {
  writer.u8(value ? 1 : 0);
  if (value) put(writer, *value);
}
template <class T>
Status get(Reader& reader, std::optional<T>& value) {
  bool present = false;
  if (auto ok = get(reader, present); !ok) return ok;
  if (!present) {
    value.reset();
    return {};
  }
  T inner{};
  if (auto ok = get(reader, inner); !ok) return ok;
  value = std::move(inner);
  return {};
}
template <class... T>
void put(Writer& writer, const std::variant<T...>& value) {
  writer.u8(static_cast<uint8_t>(value.index()));
  std::visit([&](const auto& inner) { put(writer, inner); }, value);
}
template <size_t I, class... T>
Status get_alternative(Reader& reader, std::variant<T...>& value, size_t index) {
  if constexpr (I < sizeof...(T)) {
    if (index != I) return get_alternative<I + 1>(reader, value, index);
    std::variant_alternative_t<I, std::variant<T...>> inner{};
    if (auto ok = get(reader, inner); !ok) return ok;
    value = std::move(inner);
    return {};
  } else {
    return read_error(fmt_variant_index(static_cast<uint8_t>(index), sizeof...(T)));
  }
}
template <class... T>
Status get(Reader& reader, std::variant<T...>& value) {
  TIDEMARK_TRY(index, reader.u8());
  return get_alternative<0>(reader, value, index);
}

template <FieldStruct T>
void put(Writer& writer, const T& value) {
  std::apply([&](const auto&... field) { (put(writer, field), ...); }, T::fields(value));
}
template <FieldStruct T>
Status get(Reader& reader, T& value) {
  Status status;
  std::apply([&](auto&... field) { ((status = status ? get(reader, field) : status), ...); }, T::fields(value));
  return status;
}
template <class T>
void put(Writer& writer, const std::vector<T>& values) {
  size_t count = std::min<size_t>(values.size(), kMaxListEntries);
  writer.u32(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) put(writer, values[i]);
}
template <class T>
Status get(Reader& reader, std::vector<T>& values) {
  TIDEMARK_TRY(count, read_count(reader, kMaxListEntries, "list entries"));
  values.clear();
  for (uint32_t i = 0; i < count; ++i) {
    T value{};
    if (auto ok = get(reader, value); !ok) return ok;
    values.push_back(std::move(value));
  }
  return {};
}

// A message's payload.
template <class M>
std::vector<uint8_t> encode_payload(const M& message) {
  Writer writer;
  std::apply([&](const auto&... field) { (put(writer, field), ...); }, M::fields(message));
  return writer.take();
}

template <class M>
Frame make_frame(uint32_t sequence, const M& message) {
  return Frame{M::kOpcode, sequence, encode_payload(message)};
}

// Reads every field, nothing more, then the message's own check. Views (Bytes) point into
// `payload`.
template <class M>
Result<M> decode(std::span<const uint8_t> payload) {
  Reader reader(payload);
  M message;
  Status status;
  std::apply([&](auto&... field) { ((status = status ? get(reader, field) : status), ...); }, M::fields(message));
  if (!status) return std::unexpected(status.error());
  if (auto done = reader.finish(); !done) return std::unexpected(done.error());
  if constexpr (requires { message.check(); }) {
    if (auto valid = message.check(); !valid) return std::unexpected(valid.error());
  }
  return message;
}

// Decodes `frame` as M, after checking that its opcode is M's.
template <class M>
Result<M> decode(FrameView frame) {
  if (frame.op != M::kOpcode)
    return fail(ErrorKind::Fatal,
                std::string("protocol: expected ") + to_string(M::kOpcode) + ", found " + to_string(frame.op));
  return decode<M>(frame.payload);
}

// Whether the payload decodes as the message its opcode names.
Status check_payload(FrameView frame);

}  // namespace tidemark::wire
