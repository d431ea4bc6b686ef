// Frames in and out of byte streams: the one place that reads a header, then a payload.
// Sockets, the split lane's in-memory pipe and recordings all read through read_frame().
#pragma once

#include <chrono>
#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <vector>

#include "wire/posix.h"
#include "wire/codec.h"

namespace tidemark::wire {

// Where frame bytes come from. read_some returns at least one byte, or Closed at the end.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::expected<size_t, ReadError> read_some(std::span<uint8_t> into,
                                                     std::optional<Clock::time_point> deadline) = 0;
};

// A socket, read in large chunks so that a burst of small frames costs one system call.
class FdSource final : public ByteSource {
 public:
  explicit FdSource(int fd) : fd_(fd), buffer_(kBufferBytes) {}
  std::expected<size_t, ReadError> read_some(std::span<uint8_t> into,
                                             std::optional<Clock::time_point> deadline) override;

 private:
  static constexpr size_t kBufferBytes = 64 << 10;
  int fd_;
  std::vector<uint8_t> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
};

// Bytes already in memory (the split lane), consumed from the front.
class MemorySource final : public ByteSource {
 public:
  MemorySource() = default;
  explicit MemorySource(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  void append(std::span<const uint8_t> bytes) { bytes_.insert(bytes_.end(), bytes.begin(), bytes.end()); }
  void append(FrameView frame) { append_encoded(bytes_, frame); }  // encoded in place
  bool empty() const { return at_ == bytes_.size(); }
  size_t size() const { return bytes_.size() - at_; }  // bytes not yet read
  std::expected<size_t, ReadError> read_some(std::span<uint8_t> into,
                                             std::optional<Clock::time_point> deadline) override;

 private:
  std::vector<uint8_t> bytes_;
  size_t at_ = 0;
};

// A file or any stream (recordings).
class StreamSource final : public ByteSource {
 public:
  explicit StreamSource(std::istream& in) : in_(in) {}
  std::expected<size_t, ReadError> read_some(std::span<uint8_t> into,
                                             std::optional<Clock::time_point> deadline) override;

 private:
  std::istream& in_;
};

struct FrameLimits {
  uint32_t max_payload = kMaxPayloadBytes;
  // The whole frame must have arrived by then (a greeting); nullopt: wait for it to start.
  std::optional<Clock::time_point> deadline;
  // Once a frame has started, the rest must follow within this.
  std::chrono::milliseconds stall_limit{30000};
};

// The next frame. Closed: the stream ended cleanly before a frame began; a stream that ends
// inside a frame is also Closed, with a message naming the truncated frame; Malformed: a
// header that breaks the protocol. The payload grows with the bytes that arrive, never
// ahead of them, so a header claiming a large length costs nothing until the bytes come.
std::expected<Frame, ReadError> read_frame(ByteSource& source, const FrameLimits& limits = {});
// The same into `frame`, whose payload's room is reused: a server reads a long stream with no
// allocation per frame. On an error `frame` holds what arrived.
std::expected<void, ReadError> read_frame(ByteSource& source, Frame& frame, const FrameLimits& limits = {});

}  // namespace tidemark::wire
