#include "tracer/proto.h"

namespace tidemark::tracer::proto {

std::optional<uint64_t> In::read_varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (at_ >= data_.size()) return std::nullopt;
    auto byte = static_cast<uint8_t>(data_[at_++]);
    value |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return std::nullopt;  // more than 10 bytes
}

std::optional<Field> In::next() {
  if (error_ || at_ >= data_.size()) return std::nullopt;
  auto fail = [&]() -> std::optional<Field> {
    error_ = true;
    return std::nullopt;
  };
  auto key = read_varint();
  if (!key || (*key >> 3) == 0 || (*key >> 3) > 0x1fffffff) return fail();
  Field field;
  field.number = static_cast<uint32_t>(*key >> 3);
  field.type = static_cast<WireType>(*key & 7);
  switch (field.type) {
    case kVarint: {
      auto value = read_varint();
      if (!value) return fail();
      field.varint = *value;
      return field;
    }
    case kFixed64:
    case kFixed32: {
      size_t width = field.type == kFixed64 ? 8 : 4;
      if (data_.size() - at_ < width) return fail();
      uint64_t value = 0;
      std::memcpy(&value, data_.data() + at_, width);
      at_ += width;
      field.varint = value;
      return field;
    }
    case kLengthDelimited: {
      auto length = read_varint();
      if (!length || *length > data_.size() - at_) return fail();
      field.bytes = data_.substr(at_, *length);
      at_ += *length;
      return field;
    }
  }
  return fail();  // groups (3, 4) and 6, 7: not in these protos
}

}  // namespace tidemark::tracer::proto
