#include "wire/protocol.h"

#include <fmt/format.h>

namespace tidemark::wire {

namespace {

std::unexpected<Error> protocol_error(std::string message) {
  return fail(ErrorKind::Fatal, "protocol: " + std::move(message));
}

void put_le(std::vector<uint8_t>& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

uint64_t get_le(std::span<const uint8_t> in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t{in[static_cast<size_t>(i)]} << (8 * i);
  return value;
}

}  // namespace

const char* to_string(Opcode op) {
  switch (op) {
    case Opcode::Hello: return "hello";
    case Opcode::CreateBuffer: return "create_buffer";
    case Opcode::BufferData: return "buffer_data";
    case Opcode::BufferSubData: return "buffer_sub_data";
    case Opcode::Draw: return "draw";
    case Opcode::FenceSync: return "fence";
    case Opcode::ClientWait: return "client_wait";
    case Opcode::Flush: return "flush";
    case Opcode::Finish: return "finish";
    case Opcode::Present: return "present";
    case Opcode::ReadPixels: return "read_pixels";
    case Opcode::ReadGauges: return "read_gauges";
    case Opcode::ReadValidation: return "read_validation";
    case Opcode::Goodbye: return "goodbye";
    case Opcode::Welcome: return "welcome";
    case Opcode::Ok: return "ok";
    case Opcode::BufferCreated: return "buffer_created";
    case Opcode::FenceCreated: return "fence_created";
    case Opcode::WaitResult: return "wait_result";
    case Opcode::Pixels: return "pixels";
    case Opcode::GaugeValues: return "gauge_values";
    case Opcode::ValidationMessages: return "validation_messages";
    case Opcode::Failure: return "failure";
    case Opcode::ProtocolError: return "protocol_error";
  }
  return nullptr;
}

bool is_request(Opcode op) { return static_cast<uint16_t>(op) < 100; }

std::vector<uint8_t> encode(const Frame& frame) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderBytes + frame.payload.size());
  put_le(out, kMagic, 4);
  put_le(out, kProtocolVersion, 2);
  put_le(out, static_cast<uint16_t>(frame.op), 2);
  put_le(out, frame.payload.size(), 4);
  put_le(out, frame.sequence, 4);
  out.insert(out.end(), frame.payload.begin(), frame.payload.end());
  return out;
}

Result<Header> decode_header(std::span<const uint8_t, kHeaderBytes> bytes) {
  std::span<const uint8_t> in(bytes);
  uint32_t magic = static_cast<uint32_t>(get_le(in.subspan(0, 4), 4));
  if (magic != kMagic) return protocol_error(fmt::format("bad magic {:#010x}, expected {:#010x}", magic, kMagic));
  auto version = static_cast<uint16_t>(get_le(in.subspan(4, 2), 2));
  if (version != kProtocolVersion)
    return protocol_error(fmt::format("version {}, this side speaks {}", version, kProtocolVersion));
  auto op = static_cast<Opcode>(get_le(in.subspan(6, 2), 2));
  if (to_string(op) == nullptr)
    return protocol_error(fmt::format("unknown opcode {}", static_cast<uint16_t>(op)));
  auto length = static_cast<uint32_t>(get_le(in.subspan(8, 4), 4));
  if (length > kMaxPayloadBytes)
    return protocol_error(fmt::format("payload of {} bytes, at most {}", length, kMaxPayloadBytes));
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
  return bytes(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

Result<std::span<const uint8_t>> Reader::take(size_t count) {
  if (count > data_.size() - at_)
    return protocol_error(fmt::format("truncated payload: {} bytes wanted at offset {}, {} left", count, at_,
                                      data_.size() - at_));
  auto out = data_.subspan(at_, count);
  at_ += count;
  return out;
}

Result<uint8_t> Reader::u8() {
  auto in = take(1);
  if (!in) return std::unexpected(in.error());
  return (*in)[0];
}
Result<uint32_t> Reader::u32() {
  auto in = take(4);
  if (!in) return std::unexpected(in.error());
  return static_cast<uint32_t>(get_le(*in, 4));
}
Result<int32_t> Reader::i32() {
  auto value = u32();
  if (!value) return std::unexpected(value.error());
  return static_cast<int32_t>(*value);
}
Result<uint64_t> Reader::u64() {
  auto in = take(8);
  if (!in) return std::unexpected(in.error());
  return get_le(*in, 8);
}
Result<int64_t> Reader::i64() {
  auto value = u64();
  if (!value) return std::unexpected(value.error());
  return static_cast<int64_t>(*value);
}
Result<std::span<const uint8_t>> Reader::bytes() {
  auto length = u32();
  if (!length) return std::unexpected(length.error());
  return take(*length);
}
Result<std::string> Reader::string() {
  auto length = u32();
  if (!length) return std::unexpected(length.error());
  if (*length > kMaxStringBytes)
    return protocol_error(fmt::format("string of {} bytes, at most {}", *length, kMaxStringBytes));
  auto in = take(*length);
  if (!in) return std::unexpected(in.error());
  return std::string(in->begin(), in->end());
}
Status Reader::finish() const {
  if (at_ != data_.size()) return protocol_error(fmt::format("{} unread payload bytes", data_.size() - at_));
  return {};
}

std::vector<uint8_t> encode_hello(const Hello& hello) {
  Writer writer;
  writer.string(hello.token);
  write_knobs(writer, hello.knobs);
  writer.string(hello.mutant).i32(hello.width).i32(hello.height).u8(hello.validation ? 1 : 0);
  return writer.take();
}

Result<Hello> decode_hello(std::span<const uint8_t> payload) {
  Reader reader(payload);
  Hello hello;
  TIDEMARK_TRY(token, reader.string());
  TIDEMARK_TRY(knobs, read_knobs(reader));
  TIDEMARK_TRY(mutant, reader.string());
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  TIDEMARK_TRY(validation, reader.u8());
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  if (width < 1 || height < 1 || width > kMaxTargetSide || height > kMaxTargetSide)
    return protocol_error(fmt::format("target {}x{}, each side 1..{}", width, height, kMaxTargetSide));
  hello.token = std::move(token);
  hello.knobs = std::move(knobs);
  hello.mutant = std::move(mutant);
  hello.width = width;
  hello.height = height;
  hello.validation = validation != 0;
  return hello;
}

std::vector<uint8_t> encode_welcome(const Welcome& welcome) {
  Writer writer;
  writer.i64(welcome.server_pid);
  write_knobs(writer, welcome.knobs);
  writer.u32(static_cast<uint32_t>(welcome.capabilities.size()));
  for (const auto& capability : welcome.capabilities) writer.string(capability);
  return writer.take();
}

Result<Welcome> decode_welcome(std::span<const uint8_t> payload) {
  Reader reader(payload);
  Welcome welcome;
  TIDEMARK_TRY(pid, reader.i64());
  TIDEMARK_TRY(knobs, read_knobs(reader));
  TIDEMARK_TRY(count, reader.u32());
  if (count > kMaxListEntries) return protocol_error(fmt::format("{} capabilities", count));
  for (uint32_t i = 0; i < count; ++i) {
    TIDEMARK_TRY(capability, reader.string());
    welcome.capabilities.push_back(std::move(capability));
  }
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  welcome.server_pid = pid;
  welcome.knobs = std::move(knobs);
  return welcome;
}

Result<std::map<std::string, int64_t>> read_knobs(Reader& reader) {
  auto count = reader.u32();
  if (!count) return std::unexpected(count.error());
  if (*count > kMaxKnobs) return protocol_error(fmt::format("{} knobs, at most {}", *count, kMaxKnobs));
  std::map<std::string, int64_t> knobs;
  for (uint32_t i = 0; i < *count; ++i) {
    auto name = reader.string();
    if (!name) return std::unexpected(name.error());
    auto value = reader.i64();
    if (!value) return std::unexpected(value.error());
    knobs[*name] = *value;
  }
  return knobs;
}

void write_knobs(Writer& writer, const std::map<std::string, int64_t>& knobs) {
  writer.u32(static_cast<uint32_t>(knobs.size()));
  for (const auto& [name, value] : knobs) writer.string(name).i64(value);
}

std::vector<uint8_t> encode_gauge_values(const NamedValues& gauges) {
  Writer writer;
  writer.u32(static_cast<uint32_t>(gauges.size()));
  for (const auto& [name, value] : gauges) writer.string(name).i64(value);
  return writer.take();
}

Result<NamedValues> decode_gauge_values(std::span<const uint8_t> payload) {
  Reader reader(payload);
  TIDEMARK_TRY(count, reader.u32());
  if (count > kMaxListEntries) return protocol_error(fmt::format("{} gauges", count));
  NamedValues gauges;
  for (uint32_t i = 0; i < count; ++i) {
    TIDEMARK_TRY(name, reader.string());
    TIDEMARK_TRY(value, reader.i64());
    gauges.emplace_back(std::move(name), value);
  }
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  return gauges;
}

std::vector<uint8_t> encode_pixels(int32_t width, int32_t height, std::span<const uint8_t> bytes) {
  return Writer().i32(width).i32(height).bytes(bytes).take();
}

Result<PixelsView> decode_pixels(std::span<const uint8_t> payload) {
  Reader reader(payload);
  TIDEMARK_TRY(width, reader.i32());
  TIDEMARK_TRY(height, reader.i32());
  TIDEMARK_TRY(bytes, reader.bytes());
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  if (width < 0 || height < 0 || bytes.size() != size_t(width) * size_t(height) * 4)
    return protocol_error(fmt::format("{}x{} image with {} bytes", width, height, bytes.size()));
  return PixelsView{width, height, bytes};
}

std::vector<uint8_t> encode_failure(const Error& error) {
  return Writer().u8(static_cast<uint8_t>(error.kind)).string(error.message.substr(0, kMaxStringBytes)).take();
}

Result<Error> decode_failure(std::span<const uint8_t> payload) {
  Reader reader(payload);
  TIDEMARK_TRY(kind, reader.u8());
  TIDEMARK_TRY(message, reader.string());
  if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
  if (kind > static_cast<uint8_t>(ErrorKind::Io)) return protocol_error(fmt::format("error kind {}", kind));
  return Error{static_cast<ErrorKind>(kind), std::move(message)};
}

}  // namespace tidemark::wire
