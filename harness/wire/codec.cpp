#include "wire/codec.h"

#include <fmt/format.h>

#include <bit>

namespace tidemark::wire {

namespace {

std::unexpected<Error> protocol_error(std::string message) {
  return fail(ErrorKind::Fatal, "protocol: " + std::move(message));
}

void put_le(std::vector<uint8_t>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

// Reads a u32 count and checks it against `limit`, naming `what`.
Result<uint32_t> count_of(Reader& reader, uint32_t limit, const char* what) {
  TIDEMARK_TRY(count, reader.u32());
  if (count > limit) return protocol_error(fmt::format("{} {}, at most {}", count, what, limit));
  return count;
}

// (name, value) pairs: a u32 count, then each name and its i64.
void put_named(Writer& writer, const auto& pairs) {
  writer.u32(static_cast<uint32_t>(pairs.size()));
  for (const auto& [name, number] : pairs) writer.string(name).i64(number);
}

template <class Add>
Status get_named(Reader& reader, uint32_t limit, const char* what, Add add) {
  TIDEMARK_TRY(count, count_of(reader, limit, what));
  for (uint32_t i = 0; i < count; ++i) {
    TIDEMARK_TRY(name, reader.string());
    TIDEMARK_TRY(number, reader.i64());
    add(std::move(name), number);
  }
  return {};
}

}  // namespace

void append_encoded(std::vector<uint8_t>& out, FrameView frame) {
  put_le(out, kMagic, 4);
  put_le(out, kProtocolVersion, 2);
  put_le(out, static_cast<uint16_t>(frame.op), 2);
  put_le(out, frame.payload.size(), 4);
  put_le(out, frame.sequence, 4);
  out.insert(out.end(), frame.payload.begin(), frame.payload.end());
}

std::vector<uint8_t> encode(FrameView frame) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderBytes + frame.payload.size());
  append_encoded(out, frame);
  return out;
}

Result<Header> decode_header(std::span<const uint8_t, kHeaderBytes> bytes, uint32_t max_payload) {
  std::span<const uint8_t> in(bytes);
  auto magic = static_cast<uint32_t>(get_le(in.subspan(0, 4), 4));
  if (magic != kMagic) return protocol_error(fmt::format("bad magic {:#010x}, expected {:#010x}", magic, kMagic));
  auto version = static_cast<uint16_t>(get_le(in.subspan(4, 2), 2));
  if (version != kProtocolVersion)
    return protocol_error(fmt::format("version {}, this side speaks {}", version, kProtocolVersion));
  auto op = static_cast<Opcode>(get_le(in.subspan(6, 2), 2));
  if (!is_known(op)) return protocol_error(fmt::format("unknown opcode {}", static_cast<uint16_t>(op)));
  auto length = static_cast<uint32_t>(get_le(in.subspan(8, 4), 4));
  if (length > max_payload)
    return protocol_error(fmt::format("{} payload of {} bytes, at most {}", to_string(op), length, max_payload));
  return Header{op, length, static_cast<uint32_t>(get_le(in.subspan(12, 4), 4))};
}

Writer& Writer::u8(uint8_t value) {
  out_.push_back(value);
  return *this;
}
Writer& Writer::u32(uint32_t value) {
  put_le(out_, value, 4);
  return *this;
}
Writer& Writer::u64(uint64_t value) {
  put_le(out_, value, 8);
  return *this;
}
Writer& Writer::bytes(std::span<const uint8_t> data) {
  u32(static_cast<uint32_t>(data.size()));
  out_.insert(out_.end(), data.begin(), data.end());
  return *this;
}
Writer& Writer::string(std::string_view text) {
  text = text.substr(0, kMaxStringBytes);
  return bytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Error Reader::truncated(size_t count) const {
  return protocol_error(
             fmt::format("truncated payload: {} bytes wanted at offset {}, {} left", count, at_, data_.size() - at_))
      .error();
}

Result<std::span<const uint8_t>> Reader::take(size_t count) {
  if (count > data_.size() - at_) return std::unexpected(truncated(count));
  auto out = data_.subspan(at_, count);
  at_ += count;
  return out;
}

Result<std::span<const uint8_t>> Reader::bytes() {
  TIDEMARK_TRY(length, u32());
  return take(length);
}
Result<std::string> Reader::string() {
  TIDEMARK_TRY(length, u32());
  if (length > kMaxStringBytes)
    return protocol_error(fmt::format("string of {} bytes, at most {}", length, kMaxStringBytes));
  TIDEMARK_TRY(in, take(length));
  return std::string(in.begin(), in.end());
}
Status Reader::finish() const {
  if (at_ != data_.size()) return protocol_error(fmt::format("{} unread payload bytes", data_.size() - at_));
  return {};
}

void put(Writer& writer, bool value) { writer.u8(value ? 1 : 0); }
void put(Writer& writer, uint32_t value) { writer.u32(value); }
void put(Writer& writer, int32_t value) { writer.i32(value); }
void put(Writer& writer, uint64_t value) { writer.u64(value); }
void put(Writer& writer, int64_t value) { writer.i64(value); }
void put(Writer& writer, const std::string& value) { writer.string(value); }
void put(Writer& writer, Bytes value) { writer.bytes(value); }
void put(Writer& writer, const std::vector<uint8_t>& value) { writer.bytes(value); }
void put(Writer& writer, const KnobMap& value) { put_named(writer, value); }
void put(Writer& writer, const NamedValues& value) { put_named(writer, value); }
void put(Writer& writer, const std::vector<std::string>& value) {
  size_t count = std::min<size_t>(value.size(), kMaxListEntries);
  writer.u32(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) writer.string(value[i]);
}
void put(Writer& writer, WaitStatus value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, const WalkUpdates& value) {
  size_t count = std::min<size_t>(value.size(), kMaxListEntries);
  writer.u32(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i)
    writer.u32(value[i].first).u32(value[i].second.gpu_id).u32(value[i].second.pid).u64(value[i].second.size);
}

void put(Writer& writer, const Error& value) { writer.u8(static_cast<uint8_t>(value.kind)).string(value.message); }

Status get(Reader& reader, bool& value) {
  TIDEMARK_TRY(byte, reader.u8());
  if (byte > 1) return protocol_error(fmt::format("flag {}, expected 0 or 1", byte));
  value = byte == 1;
  return {};
}
Status get(Reader& reader, std::string& value) { return assign(reader.string(), value); }
Status get(Reader& reader, Bytes& value) { return assign(reader.bytes(), value); }
Status get(Reader& reader, std::vector<uint8_t>& value) {
  TIDEMARK_TRY(bytes, reader.bytes());
  value.assign(bytes.begin(), bytes.end());
  return {};
}
Status get(Reader& reader, KnobMap& value) {
  value.clear();
  return get_named(reader, kMaxKnobs, "knobs", [&](std::string name, int64_t number) { value[name] = number; });
}
Status get(Reader& reader, NamedValues& value) {
  value.clear();
  return get_named(reader, kMaxListEntries, "named values",
                   [&](std::string name, int64_t number) { value.emplace_back(std::move(name), number); });
}
Status get(Reader& reader, std::vector<std::string>& value) {
  TIDEMARK_TRY(count, count_of(reader, kMaxListEntries, "strings"));
  value.clear();
  for (uint32_t i = 0; i < count; ++i) {
    TIDEMARK_TRY(text, reader.string());
    value.push_back(std::move(text));
  }
  return {};
}
Status get(Reader& reader, WalkUpdates& value) {
  TIDEMARK_TRY(count, count_of(reader, kMaxListEntries, "walk updates"));
  value.clear();
  for (uint32_t i = 0; i < count; ++i) {
    TIDEMARK_TRY(at, reader.u32());
    TIDEMARK_TRY(gpu, reader.u32());
    TIDEMARK_TRY(pid, reader.u32());
    TIDEMARK_TRY(size, reader.u64());
    value.push_back({at, {gpu, pid, size}});
  }
  return {};
}

Status get(Reader& reader, WaitStatus& value) {
  TIDEMARK_TRY(status, reader.u8());
  if (status > static_cast<uint8_t>(WaitStatus::TimeoutExpired))
    return protocol_error(fmt::format("wait status {}", status));
  value = static_cast<WaitStatus>(status);
  return {};
}
Status get(Reader& reader, Error& value) {
  TIDEMARK_TRY(kind, reader.u8());
  if (kind > static_cast<uint8_t>(ErrorKind::Io)) return protocol_error(fmt::format("error kind {}", kind));
  TIDEMARK_TRY(message, reader.string());
  value = Error{static_cast<ErrorKind>(kind), std::move(message)};
  return {};
}

namespace {

template <class Enum, size_t N>
Status get_enum(Reader& reader, Enum& value, const std::string_view (&)[N], const char* what) {
  TIDEMARK_TRY(byte, reader.u8());
  if (byte >= N) return protocol_error(fmt::format("{} {}, expected 0..{}", what, byte, N - 1));
  value = static_cast<Enum>(byte);
  return {};
}

}  // namespace

void put(Writer& writer, kernel::CommandKind value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, kernel::DoorbellFault value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, kernel::PowerPolicy value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, kernel::KgslNode value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, kernel::Queue value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, tracer::MemorySource value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, tracer::ValueDirection value) { writer.u8(static_cast<uint8_t>(value)); }
void put(Writer& writer, Completion value) { writer.u8(static_cast<uint8_t>(value)); }
Status get(Reader& reader, tracer::ValueDirection& value) {
  TIDEMARK_TRY(byte, reader.u8());
  if (byte > 2) return protocol_error(fmt::format("value direction {}, expected 0..2", byte));
  value = static_cast<tracer::ValueDirection>(byte);
  return {};
}
// A memory type is a u32 on the wire (protocol 8 sent it as one), checked when read.
void put(Writer& writer, MemoryType value) { writer.u32(static_cast<uint32_t>(value)); }
Status get(Reader& reader, MemoryType& value) {
  TIDEMARK_TRY(type, reader.u32());
  if (type >= kMemoryTypeNames.size()) return read_error(fmt::format("memory type {}", type));
  value = static_cast<MemoryType>(type);
  return {};
}
void put(Writer& writer, double value) { writer.u64(std::bit_cast<uint64_t>(value)); }
Status get(Reader& reader, double& value) {
  TIDEMARK_TRY(bits, reader.u64());
  value = std::bit_cast<double>(bits);
  return {};
}
std::unexpected<Error> read_error(std::string message) { return protocol_error(std::move(message)); }
std::string fmt_variant_index(uint8_t index, size_t alternatives) {
  return fmt::format("alternative {}, expected 0..{}", index, alternatives - 1);
}
Status get(Reader& reader, tracer::MemorySource& value) {
  return get_enum(reader, value, tracer::kMemorySourceNames, "memory source");
}
Status get(Reader& reader, Completion& value) { return get_enum(reader, value, kCompletionNames, "completion rule"); }
Status get(Reader& reader, kernel::Queue& value) { return get_enum(reader, value, kernel::kQueueNames, "queue"); }
Status get(Reader& reader, kernel::CommandKind& value) {
  return get_enum(reader, value, kernel::kCommandKindNames, "command kind");
}
Status get(Reader& reader, kernel::DoorbellFault& value) {
  return get_enum(reader, value, kernel::kDoorbellFaultNames, "doorbell fault");
}
Status get(Reader& reader, kernel::PowerPolicy& value) {
  return get_enum(reader, value, kernel::kPowerPolicyNames, "power policy");
}
Status get(Reader& reader, kernel::KgslNode& value) {
  return get_enum(reader, value, kernel::kKgslNodeNames, "kgsl node");
}
Result<uint32_t> read_count(Reader& reader, uint32_t limit, const char* what) { return count_of(reader, limit, what); }

Status check_payload(FrameView frame) {
  switch (frame.op) {
#define TIDEMARK_CHECK_PAYLOAD(name, code, text)           \
  case Opcode::name: {                                     \
    auto decoded = decode<name>(frame);                    \
    if (!decoded) return std::unexpected(decoded.error()); \
    return {};                                             \
  }
    TIDEMARK_WIRE_MESSAGES(TIDEMARK_CHECK_PAYLOAD)
#undef TIDEMARK_CHECK_PAYLOAD
  }
  return protocol_error(fmt::format("unknown opcode {}", static_cast<uint16_t>(frame.op)));
}

}  // namespace tidemark::wire
