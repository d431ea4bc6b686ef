#include "wire/frame_io.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tidemark::wire {

namespace {

constexpr size_t kPayloadChunk = 1 << 20;

// Fills `into` completely; `filled` counts what arrived, also when it fails.
std::expected<void, ReadError> fill(ByteSource& source, std::span<uint8_t> into,
                                    std::optional<Clock::time_point> deadline, size_t& filled) {
  while (filled < into.size()) {
    auto got = source.read_some(into.subspan(filled), deadline);
    if (!got) return std::unexpected(got.error());
    filled += *got;
  }
  return {};
}

std::optional<Clock::time_point> earlier(std::optional<Clock::time_point> a, Clock::time_point b) {
  return a ? std::min(*a, b) : b;
}

}  // namespace

std::expected<size_t, ReadError> FdSource::read_some(std::span<uint8_t> into,
                                                     std::optional<Clock::time_point> deadline) {
  if (begin_ == end_) {
    if (into.size() >= buffer_.size()) return wire::read_some(fd_, into, deadline);
    auto got = wire::read_some(fd_, buffer_, deadline);
    if (!got) return got;
    begin_ = 0;
    end_ = *got;
  }
  size_t count = std::min(into.size(), end_ - begin_);
  std::memcpy(into.data(), buffer_.data() + begin_, count);
  begin_ += count;
  return count;
}

std::expected<size_t, ReadError> MemorySource::read_some(std::span<uint8_t> into, std::optional<Clock::time_point>) {
  if (at_ == bytes_.size()) {
    bytes_.clear();
    at_ = 0;
    return std::unexpected(ReadError{ReadFailure::Closed, "no more bytes"});
  }
  size_t count = std::min(into.size(), bytes_.size() - at_);
  std::memcpy(into.data(), bytes_.data() + at_, count);
  at_ += count;
  if (at_ == bytes_.size()) {
    bytes_.clear();
    at_ = 0;
  }
  return count;
}

std::expected<size_t, ReadError> StreamSource::read_some(std::span<uint8_t> into, std::optional<Clock::time_point>) {
  in_.read(reinterpret_cast<char*>(into.data()), static_cast<std::streamsize>(into.size()));
  auto got = static_cast<size_t>(in_.gcount());
  if (got == 0) {
    if (in_.bad()) return std::unexpected(ReadError{ReadFailure::Io, "read error"});
    return std::unexpected(ReadError{ReadFailure::Closed, "end of file"});
  }
  if (in_.eof()) in_.clear(in_.rdstate() & ~(std::ios::eofbit | std::ios::failbit));
  return got;
}

std::expected<Frame, ReadError> read_frame(ByteSource& source, const FrameLimits& limits) {
  Frame frame;
  if (auto read = read_frame(source, frame, limits); !read) return std::unexpected(std::move(read.error()));
  return frame;
}

std::expected<void, ReadError> read_frame(ByteSource& source, Frame& frame, const FrameLimits& limits) {
  std::array<uint8_t, kHeaderBytes> header_bytes;
  auto first = source.read_some(std::span(header_bytes).first(1), limits.deadline);
  if (!first) return std::unexpected(first.error());
  auto deadline = earlier(limits.deadline, Clock::now() + limits.stall_limit);
  auto truncated = [](const char* what, size_t have, size_t want, ReadError error) {
    if (error.failure == ReadFailure::Closed)
      error.message = fmt::format("truncated {}: {} of {} bytes", what, have, want);
    return std::unexpected(std::move(error));
  };
  size_t header_filled = 0;
  if (auto rest = fill(source, std::span(header_bytes).subspan(1), deadline, header_filled); !rest)
    return truncated("frame header", 1 + header_filled, kHeaderBytes, rest.error());
  auto header = decode_header(header_bytes, limits.max_payload);
  if (!header) return std::unexpected(ReadError{ReadFailure::Malformed, header.error().message});

  frame.op = header->op;
  frame.sequence = header->sequence;
  frame.payload.clear();  // its room stays for the next frame
  while (frame.payload.size() < header->length) {
    size_t have = frame.payload.size();
    frame.payload.resize(have + std::min<size_t>(kPayloadChunk, header->length - have));
    size_t filled = 0;
    auto got = fill(source, std::span(frame.payload).subspan(have), deadline, filled);
    if (!got) {
      std::string what = fmt::format("{} frame", to_string(header->op));
      return truncated(what.c_str(), have + filled, header->length, got.error());
    }
  }
  return {};
}

}  // namespace tidemark::wire
