// Protobuf wire encoding and decoding, by hand: the writer emits tens of millions of counter
// samples a second (no message objects, no allocation per sample), and the importer must
// survive any bytes. Tests check both against libprotobuf over .proto files of our own.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tidemark::tracer::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

constexpr size_t varint_size(uint64_t value) {
  size_t size = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++size;
  }
  return size;
}
constexpr uint64_t tag(uint32_t field, WireType type) { return (uint64_t{field} << 3) | type; }
constexpr size_t tag_size(uint32_t field) { return varint_size(tag(field, kVarint)); }

inline void put_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Writes fields through a pointer into room already made (the hot paths size their packets
// first): no capacity checks per byte.
struct Cursor {
  char* p;
  void varint(uint64_t value) {
    while (value >= 0x80) {
      *p++ = static_cast<char>((value & 0x7f) | 0x80);
      value >>= 7;
    }
    *p++ = static_cast<char>(value);
  }
  void field(uint32_t number, uint64_t value) {
    varint(tag(number, kVarint));
    varint(value);
  }
  void nested(uint32_t number, size_t size) {  // a message's tag and length; its fields follow
    varint(tag(number, kLengthDelimited));
    varint(size);
  }
  void fixed64_double(uint32_t number, double value) {
    varint(tag(number, kFixed64));
    std::memcpy(p, &value, 8);  // little-endian hosts only (x86-64, arm64)
    p += 8;
  }
};

// Appends fields to a message being built in `out`.
class Out {
 public:
  explicit Out(std::string& out) : out_(out) {}
  void varint(uint32_t field, uint64_t value) {
    put_varint(out_, tag(field, kVarint));
    put_varint(out_, value);
  }
  void int64(uint32_t field, int64_t value) { varint(field, static_cast<uint64_t>(value)); }
  void boolean(uint32_t field, bool value) { varint(field, value ? 1 : 0); }
  void fixed64_double(uint32_t field, double value) {
    put_varint(out_, tag(field, kFixed64));
    char bytes[8];
    std::memcpy(bytes, &value, 8);  // little-endian hosts only (x86-64, arm64)
    out_.append(bytes, 8);
  }
  void bytes(uint32_t field, std::string_view value) {
    put_varint(out_, tag(field, kLengthDelimited));
    put_varint(out_, value.size());
    out_.append(value);
  }
  // A nested message: `body(Out&)` writes its fields in place; its length, known only after,
  // is then put before them (the body moves up by the length's few bytes). No buffer of its
  // own: nesting costs no allocation.
  template <class Body>
  void message(uint32_t field, Body&& body) {
    put_varint(out_, tag(field, kLengthDelimited));
    const size_t start = out_.size();
    body(*this);
    const size_t length = out_.size() - start;
    const size_t prefix = varint_size(length);
    out_.resize(out_.size() + prefix);
    char* at = out_.data() + start;
    std::memmove(at + prefix, at, length);
    Cursor{at}.varint(length);  // exactly `prefix` bytes
  }
  std::string& raw() { return out_; }

 private:
  std::string& out_;
};

// One field as read from the wire.
struct Field {
  uint32_t number = 0;
  WireType type = kVarint;
  uint64_t varint = 0;     // kVarint, kFixed64 (raw bits), kFixed32
  std::string_view bytes;  // kLengthDelimited
  double as_double() const {
    double value;
    std::memcpy(&value, &varint, 8);
    return value;
  }
};

// Walks the fields of one message; next() is nullopt at the end, and error() says whether
// the end was a malformed field rather than the message's end.
class In {
 public:
  explicit In(std::string_view data) : data_(data) {}
  std::optional<Field> next();
  bool error() const { return error_; }

 private:
  std::optional<uint64_t> read_varint();
  std::string_view data_;
  size_t at_ = 0;
  bool error_ = false;
};

}  // namespace tidemark::tracer::proto
