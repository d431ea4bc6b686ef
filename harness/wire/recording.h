// Recordings: a session's client->server frames and the server's replies, in order, behind a
// small header; any lane can replay them. A file is read front to back a record at a time, never
// whole. One cut anywhere, or a header spliced onto another's records, is refused, naming where
// (the layout is written at kRecordingVersion).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <future>
#include <istream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/digest.h"
#include "core/files.h"
#include "core/knobs.h"
#include "wire/codec.h"

namespace tidemark::wire {

// File: magic "TDMKREC\0", u32 format version, u32 header length, the RecordingHeader; records of
// a u8 direction ('>' request, '<' reply) and one encoded frame; a trailer of 'E', u64 record
// count, u64 XXH3 of the header and every record byte.
// 2: pipelined requests; 3: the trailer; 4: made by; 5: frames of wire protocol 7 (an older
// recording's frames are of a protocol this build does not speak: it is refused, to be re-recorded).
inline constexpr uint32_t kRecordingVersion = 5;
inline constexpr uint32_t kMaxRecordingHeaderBytes = 1 << 16;

struct RecordingHeader {
  std::string scenario;
  int32_t width = 0;
  int32_t height = 0;
  KnobValues knobs;
  std::string mutant;
  std::string made_by;  // the Tidemark version that recorded it (read back; written from this build's)
};

enum class Direction : uint8_t { Request = '>', Reply = '<' };

struct Record {
  Direction direction;
  Frame frame;
};

// A record as it lies in the recording: its payload is a view into the reader's bytes.
struct RecordView {
  Direction direction;
  FrameView frame;
};

// The recording is written beside its name and renamed into place by close(): a session that
// ends before it leaves no file (neither a half recording nor an old one overwritten).
class RecordingWriter {
 public:
  static Result<RecordingWriter> create(const std::filesystem::path& file, const RecordingHeader& header);
  RecordingWriter(RecordingWriter&&) noexcept = default;
  RecordingWriter& operator=(RecordingWriter&&) noexcept = default;
  ~RecordingWriter();
  Status write(Direction direction, FrameView frame);
  // Writes the trailer, closes the file and puts it in place.
  Status close();

 private:
  RecordingWriter() = default;
  std::filesystem::path path_;
  std::filesystem::path temporary_;
  std::unique_ptr<std::ostream> out_;
  uint64_t records_ = 0;
  StreamHash digest_;
  bool closed_ = false;
};

// Reads a recording: records are decoded from the bytes where they lie (the file reader's
// buffer, or a stream read once into memory), and a record's payload is copied only into the
// caller's reusable Record.
class RecordingReader {
 public:
  // `name` is used in errors ("file.tdrec: record #12 ..."). The stream is read whole; its
  // records are checked as next() reaches them.
  static Result<RecordingReader> open(std::unique_ptr<std::istream> in, std::string name);
  // A file is checked whole, up to its trailer, before any record but the first is
  // handed out: a cut or corrupted recording is refused before anything past its hello is
  // replayed. With `Checking::AlongsideFirstRecord` that pass runs on a thread of its own while
  // the first record is handed out (replay's hello starts the device, which takes as long as
  // the pass), and next() waits for it before the second.
  enum class Checking { BeforeFirstRecord, AlongsideFirstRecord };
  static Result<RecordingReader> open(const std::filesystem::path& file,
                                      Checking checking = Checking::BeforeFirstRecord);

  const RecordingHeader& header() const { return header_; }
  // The next record into `record` (its payload's storage is reused); false at the trailer,
  // once it matches. Errors name the record index and byte offset.
  Result<bool> next(Record& record);
  // The same as a view, valid until the next call: replay sends payloads from where they lie.
  Result<bool> next(RecordView& record);
  // The same, into a fresh Record; nullopt at the trailer.
  Result<std::optional<Record>> next();
  uint64_t records_read() const { return index_; }
  // trace_hash() of the trace a TraceBytes reply carries, for the record last handed out (the
  // index records_read() gives), when the checking pass of a file took it as it read the
  // bytes: a replay compares a long run's trace without reading megabytes a second time.
  std::optional<std::string> trace_hash_of(uint64_t record_index) const;

 private:
  // Reads and checks the header of the reader's bytes (a file or a whole stream).
  static Result<RecordingReader> start(RecordingReader reader);
  // The next record, checked (and hashed on the checking pass), without a copy; nullopt at
  // the trailer.
  Result<std::optional<RecordView>> next_view();
  Status trailer();
  Status read_through();  // every record and the trailer, checked
  // The bytes of [at, at + length), cut at the end; valid until the next call. On the checking
  // pass of a file, the bytes before `at` are hashed before they leave the file's buffer.
  Result<std::span<const uint8_t>> bytes_at(uint64_t at, uint64_t length);
  Status hash_up_to(uint64_t offset);

  std::optional<SequentialFile> file_;  // a file's bytes, read piece by piece
  std::string whole_;                   // or a stream's, read whole
  uint64_t size() const { return file_ ? file_->size() : whole_.size(); }
  bool verified_ = false;  // a whole pass checked the bytes: no need to hash them again
  using TraceHashes = std::vector<std::pair<uint64_t, std::string>>;  // (record index, hash), in order
  std::future<Result<TraceHashes>> pass_;                             // that pass, while it runs on a thread of its own
  TraceHashes trace_hashes_;                                          // what the pass took (on the pass: as it reads)
  std::string name_;
  RecordingHeader header_;
  uint64_t index_ = 0;
  uint64_t offset_ = 0;
  uint64_t hashed_to_ = 0;  // the digest has the bytes from the header's payload up to here
  StreamHash digest_;
};

}  // namespace tidemark::wire
