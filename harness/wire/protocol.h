// The wire: length-prefixed binary frames with a versioned header, and the messages they
// carry. Every limit is a named constant; a frame that breaks one is a protocol error.
//
// Header (16 bytes, little-endian): magic "TDMK", version u16, opcode u16, payload length
// u32, sequence u32. Payload fields are little-endian integers; bytes and strings are a u32
// length then the bytes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core/error.h"

namespace tidemark::wire {

inline constexpr uint32_t kMagic = 0x4B4D4454;  // "TDMK" in memory order
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kHeaderBytes = 16;
inline constexpr uint32_t kMaxPayloadBytes = 256u << 20;  // a store of up to ~256 MiB
inline constexpr uint32_t kMaxStringBytes = 4096;
inline constexpr uint32_t kMaxKnobs = 64;
inline constexpr uint32_t kMaxListEntries = 1 << 16;
inline constexpr int32_t kMaxTargetSide = 4096;

enum class Opcode : uint16_t {
  // client -> server
  Hello = 1,
  CreateBuffer = 2,
  BufferData = 3,
  BufferSubData = 4,
  Draw = 5,
  FenceSync = 6,
  ClientWait = 7,
  Flush = 8,
  Finish = 9,
  Present = 10,
  ReadPixels = 11,
  ReadGauges = 12,
  ReadValidation = 13,
  Goodbye = 14,
  // server -> client
  Welcome = 100,
  Ok = 101,
  BufferCreated = 102,
  FenceCreated = 103,
  WaitResult = 104,
  Pixels = 105,
  GaugeValues = 106,
  ValidationMessages = 107,
  Failure = 108,        // the operation failed; the session goes on
  ProtocolError = 109,  // the frame was bad; the server closes the session
};
const char* to_string(Opcode op);
bool is_request(Opcode op);

struct Frame {
  Opcode op = Opcode::Ok;
  uint32_t sequence = 0;
  std::vector<uint8_t> payload;
};

struct Header {
  Opcode op;
  uint32_t length;
  uint32_t sequence;
};

std::vector<uint8_t> encode(const Frame& frame);
// Checks magic, version, opcode and the payload limit.
Result<Header> decode_header(std::span<const uint8_t, kHeaderBytes> bytes);

class Writer {
 public:
  Writer& u8(uint8_t value);
  Writer& u32(uint32_t value);
  Writer& i32(int32_t value) { return u32(static_cast<uint32_t>(value)); }
  Writer& u64(uint64_t value);
  Writer& i64(int64_t value) { return u64(static_cast<uint64_t>(value)); }
  Writer& bytes(std::span<const uint8_t> data);
  Writer& string(std::string_view text);
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  std::vector<uint8_t> out_;
};

// Bounds-checked reads; any read past the end, or an over-long string, is an error.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}
  Result<uint8_t> u8();
  Result<uint32_t> u32();
  Result<int32_t> i32();
  Result<uint64_t> u64();
  Result<int64_t> i64();
  Result<std::span<const uint8_t>> bytes();
  Result<std::string> string();
  // Every field read and nothing left over.
  Status finish() const;

 private:
  Result<std::span<const uint8_t>> take(size_t count);
  std::span<const uint8_t> data_;
  size_t at_ = 0;
};

// The session handshake.
struct Hello {
  std::string token;
  std::map<std::string, int64_t> knobs;
  std::string mutant;  // empty: none
  int32_t width = 0;
  int32_t height = 0;
  bool validation = false;
};
struct Welcome {
  int64_t server_pid = 0;
  std::map<std::string, int64_t> knobs;  // the values the server applied
  std::vector<std::string> capabilities;
};

std::vector<uint8_t> encode_hello(const Hello& hello);
Result<Hello> decode_hello(std::span<const uint8_t> payload);
std::vector<uint8_t> encode_welcome(const Welcome& welcome);
Result<Welcome> decode_welcome(std::span<const uint8_t> payload);

// A name -> value map (knobs): u32 count, then (string, i64) pairs.
void write_knobs(Writer& writer, const std::map<std::string, int64_t>& knobs);
Result<std::map<std::string, int64_t>> read_knobs(Reader& reader);

// GaugeValues: the gauges in order, as (name, value) pairs.
using NamedValues = std::vector<std::pair<std::string, int64_t>>;
std::vector<uint8_t> encode_gauge_values(const NamedValues& gauges);
Result<NamedValues> decode_gauge_values(std::span<const uint8_t> payload);

// Pixels: width, height and width * height * 4 RGBA8 bytes (a view into the payload).
struct PixelsView {
  int32_t width = 0;
  int32_t height = 0;
  std::span<const uint8_t> bytes;
};
std::vector<uint8_t> encode_pixels(int32_t width, int32_t height, std::span<const uint8_t> bytes);
Result<PixelsView> decode_pixels(std::span<const uint8_t> payload);

std::vector<uint8_t> encode_failure(const Error& error);
Result<Error> decode_failure(std::span<const uint8_t> payload);

}  // namespace tidemark::wire
