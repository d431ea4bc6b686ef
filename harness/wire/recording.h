// Recordings: the client->server frames of a session and the server's replies, in order,
// behind a small header. Lane-independent: any lane can replay them. Read as a stream, one
// record at a time, so a long recording never sits in memory whole.
//
// File: magic "TDMKREC\0", u32 format version, u32 header length, header (scenario name,
// target width and height, knobs, mutant); then records: u8 direction ('>' request,
// '<' reply) followed by one encoded frame.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <istream>
#include <memory>
#include <optional>
#include <string>

#include "core/knobs.h"
#include "wire/protocol.h"

namespace tidemark::wire {

inline constexpr uint32_t kRecordingVersion = 2;  // 2: pipelined requests have no reply records
inline constexpr uint32_t kMaxRecordingHeaderBytes = 1 << 16;

struct RecordingHeader {
  std::string scenario;
  int32_t width = 0;
  int32_t height = 0;
  KnobValues knobs;
  std::string mutant;
};

enum class Direction : uint8_t { Request = '>', Reply = '<' };

struct Record {
  Direction direction;
  Frame frame;
};

class RecordingWriter {
 public:
  static Result<RecordingWriter> create(const std::filesystem::path& file, const RecordingHeader& header);
  Status write(Direction direction, const Frame& frame);
  Status close();

 private:
  std::filesystem::path path_;
  std::unique_ptr<std::ofstream> out_;
};

class RecordingReader {
 public:
  // `name` is used in errors ("file.tdrec: frame #12 ...").
  static Result<RecordingReader> open(std::unique_ptr<std::istream> in, std::string name);
  static Result<RecordingReader> open(const std::filesystem::path& file);

  const RecordingHeader& header() const { return header_; }
  // The next record; nullopt at a clean end. Errors name the record index and byte offset.
  Result<std::optional<Record>> next();
  uint64_t records_read() const { return index_; }

 private:
  std::unique_ptr<std::istream> in_;
  std::string name_;
  RecordingHeader header_;
  uint64_t index_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace tidemark::wire
