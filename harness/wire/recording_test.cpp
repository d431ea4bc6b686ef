#include "wire/recording.h"

#include "core/testing/scratch.h"
#include "wire/messages.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tidemark::wire {
namespace {

// A file in a folder of the test's own: CTest runs these tests side by side, and a shared name
// let one test read a recording another was still writing.
class TempFile {
 public:
  explicit TempFile(const std::string& name) : path_(folder_ / name) {}
  const std::filesystem::path& path() const { return path_; }

 private:
  test_support::ScratchDir folder_{"recording"};
  std::filesystem::path path_;
};

RecordingHeader sample_header() { return {"reclaim/sample", 192, 32, {{"wire_deferred_mb", 8}}, "wire.drop_knobs"}; }

// Check that a recording reads back exactly what was written, in order, then ends cleanly.
TEST(Recording, RoundTripsHeaderAndRecords) {
  TempFile file("round-trip.tdrec");
  {
    auto writer = RecordingWriter::create(file.path(), sample_header());
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::BufferData, 1, {1, 2, 3}}));
    ASSERT_TRUE(writer->write(Direction::Reply, Frame{Opcode::Ok, 1, {}}));
    ASSERT_TRUE(writer->close());
  }
  auto reader = RecordingReader::open(file.path());
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->header().scenario, "reclaim/sample");
  EXPECT_EQ(reader->header().width, 192);
  EXPECT_EQ(reader->header().knobs.at("wire_deferred_mb"), 8);
  EXPECT_EQ(reader->header().mutant, "wire.drop_knobs");
  auto first = reader->next();
  ASSERT_TRUE(first && *first);
  EXPECT_EQ((*first)->direction, Direction::Request);
  EXPECT_EQ((*first)->frame.op, Opcode::BufferData);
  EXPECT_EQ((*first)->frame.payload, (std::vector<uint8_t>{1, 2, 3}));
  auto second = reader->next();
  ASSERT_TRUE(second && *second);
  EXPECT_EQ((*second)->frame.op, Opcode::Ok);
  auto end = reader->next();
  ASSERT_TRUE(end);
  EXPECT_FALSE(end->has_value());
}

// Check that a recording cut at any byte inside a record is an error naming that record.
TEST(Recording, EveryCutInsideARecordNamesTheRecord) {
  TempFile file("cut.tdrec");
  {
    auto writer = RecordingWriter::create(file.path(), sample_header());
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::BufferData, 1, std::vector<uint8_t>(40, 7)}));
    ASSERT_TRUE(writer->close());
  }
  std::ifstream in(file.path(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kTrailerBytes = 1 + 16;
  size_t record_start = bytes.size() - kTrailerBytes - (1 + kHeaderBytes + 40);
  for (size_t cut = record_start + 1; cut < bytes.size() - kTrailerBytes; ++cut) {
    auto reader = RecordingReader::open(std::make_unique<std::istringstream>(bytes.substr(0, cut)), "cut");
    ASSERT_TRUE(reader);
    auto record = reader->next();
    ASSERT_FALSE(record) << "cut at " << cut;
    EXPECT_NE(record.error().message.find("cut: record #1 at byte " + std::to_string(record_start)), std::string::npos)
        << record.error().message;
  }
}

// Check that a corrupt length cannot make the reader allocate what the file does not hold.
TEST(Recording, ACorruptLengthFailsWithoutAllocatingIt) {
  std::string bytes;
  {
    TempFile file("header-only.tdrec");
    auto writer = RecordingWriter::create(file.path(), sample_header());
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->close());
    std::ifstream in(file.path(), std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(bytes.size() - 17);  // without its trailer
  }
  auto frame = encode(Frame{Opcode::BufferData, 1, {}});
  frame[8] = 0x00;  // 256 MiB - 1 byte payload claimed, none present
  frame[9] = 0xff;
  frame[10] = 0xff;
  frame[11] = 0x0f;
  bytes += '>';
  bytes.append(frame.begin(), frame.end());
  auto reader = RecordingReader::open(std::make_unique<std::istringstream>(bytes), "corrupt");
  ASSERT_TRUE(reader);
  auto record = reader->next();
  ASSERT_FALSE(record);
  EXPECT_NE(record.error().message.find("truncated buffer_data frame: 0 of"), std::string::npos)
      << record.error().message;
}

std::string recording_bytes(const RecordingHeader& header, const std::vector<Frame>& requests) {
  TempFile file("bytes.tdrec");
  {
    auto writer = RecordingWriter::create(file.path(), header);
    EXPECT_TRUE(writer);
    for (const auto& frame : requests) EXPECT_TRUE(writer->write(Direction::Request, frame));
    EXPECT_TRUE(writer->close());
  }
  std::ifstream in(file.path(), std::ios::binary);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

// The first error reading `bytes` to its end, or "" when it reads cleanly.
std::string read_error(const std::string& bytes) {
  auto reader = RecordingReader::open(std::make_unique<std::istringstream>(bytes), "r");
  if (!reader) return reader.error().message;
  for (;;) {
    auto record = reader->next();
    if (!record) return record.error().message;
    if (!*record) return "";
  }
}

// Check that a recording cut exactly between records, or just before its trailer, is
// refused: only the trailer says the recording is whole.
TEST(Recording, ACutAtARecordBoundaryIsRefused) {
  std::vector<Frame> frames = {Frame{Opcode::Flush, 1, {}}, Frame{Opcode::Present, 2, {}}};
  std::string whole = recording_bytes(sample_header(), frames);
  EXPECT_EQ(read_error(whole), "");
  std::string cut = whole.substr(0, whole.size() - 17 - (1 + kHeaderBytes));
  EXPECT_NE(read_error(cut).find("found the end of the file (cut after 1 records)"), std::string::npos)
      << read_error(cut);
  EXPECT_NE(read_error(whole.substr(0, whole.size() - 17)).find("cut after 2 records"), std::string::npos);
  EXPECT_NE(read_error(whole.substr(0, whole.size() - 3)).find("trailer at byte"), std::string::npos);
  EXPECT_NE(read_error(whole + "x").find("bytes after the trailer"), std::string::npos);
}

// Check that one recording's header on another's records is refused by the trailer's hash.
TEST(Recording, AHeaderSplicedOntoOtherRecordsIsRefused) {
  std::vector<Frame> frames = {Frame{Opcode::Flush, 1, {}}};
  std::string mine = recording_bytes(sample_header(), frames);
  RecordingHeader other = sample_header();
  other.scenario = "reclaim/other";
  std::string theirs = recording_bytes(other, frames);
  size_t my_header_end = mine.size() - 17 - (1 + kHeaderBytes);
  size_t their_header_end = theirs.size() - 17 - (1 + kHeaderBytes);
  std::string spliced = theirs.substr(0, their_header_end) + mine.substr(my_header_end);
  EXPECT_NE(read_error(spliced).find("parts of two recordings"), std::string::npos) << read_error(spliced);
  std::string flipped = mine;
  flipped[my_header_end + 7] ^= 1;  // a byte inside the record's frame header (the opcode)
  EXPECT_FALSE(read_error(flipped).empty());
}

// Check that a recording checked alongside its first record hands that record out, and refuses
// the second when the file is cut further on: nothing past the first record comes from a file
// the whole pass has not found good.
TEST(Recording, ACheckAlongsideTheFirstRecordStopsBeforeTheSecond) {
  TempFile whole("whole.tdrec");
  {
    auto writer = RecordingWriter::create(whole.path(), sample_header());
    ASSERT_TRUE(writer);
    for (uint32_t i = 1; i <= 64; ++i) ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::Flush, i, {}}));
    ASSERT_TRUE(writer->close());
  }
  std::ifstream in(whole.path(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TempFile cut("cut-alongside.tdrec");
  std::ofstream(cut.path(), std::ios::binary) << bytes.substr(0, bytes.size() - 17 - 5);

  auto good = RecordingReader::open(whole.path(), RecordingReader::Checking::AlongsideFirstRecord);
  ASSERT_TRUE(good) << good.error().message;
  size_t records = 0;
  for (;;) {
    auto record = good->next();
    ASSERT_TRUE(record) << record.error().message;
    if (!*record) break;
    ++records;
  }
  EXPECT_EQ(records, 64u);

  auto bad = RecordingReader::open(cut.path(), RecordingReader::Checking::AlongsideFirstRecord);
  ASSERT_TRUE(bad) << bad.error().message;
  auto first = bad->next();
  ASSERT_TRUE(first && *first) << (first ? "the end" : first.error().message);
  EXPECT_EQ((*first)->frame.sequence, 1u);
  auto second = bad->next();
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("record #64 at byte"), std::string::npos) << second.error().message;
  // Checked before the first record, the same file is refused at once, with the same words.
  auto refused = RecordingReader::open(cut.path());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, second.error().message);
}

// Check that the pass of a file hashes every byte however the file's reader holds them: a
// recording of many buffers' worth of records, with a record longer than a buffer in the middle,
// reads back whole and equal; one byte changed anywhere in a payload (across the buffer's edges,
// inside the long record, in the last record) is refused by the trailer's hash.
TEST(Recording, EveryByteOfALongFileIsChecked) {
  TempFile file("long.tdrec");
  std::vector<Frame> frames;
  for (uint32_t i = 1; i <= 12000; ++i) {
    Frame frame{Opcode::BufferData, i, std::vector<uint8_t>(150 + i % 200, static_cast<uint8_t>(i))};
    if (i == 6000) frame.payload.assign((5 << 20) / 2, 7);  // 2.5 MiB: longer than a buffer
    frames.push_back(std::move(frame));
  }
  {
    auto writer = RecordingWriter::create(file.path(), sample_header());
    ASSERT_TRUE(writer);
    for (const auto& frame : frames) ASSERT_TRUE(writer->write(Direction::Request, frame));
    ASSERT_TRUE(writer->close());
  }
  auto read_all = [&](const std::filesystem::path& path) -> std::string {
    auto reader = RecordingReader::open(path);
    if (!reader) return reader.error().message;
    for (size_t i = 0;; ++i) {
      auto record = reader->next();
      if (!record) return record.error().message;
      if (!*record) return i == frames.size() ? "" : "ended early";
      if ((*record)->frame.payload != frames[i].payload) return "record " + std::to_string(i + 1) + " differs";
    }
  };
  EXPECT_EQ(read_all(file.path()), "");
  std::ifstream in(file.path(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 5u << 20);
  const size_t piece = SequentialFile::kPiece;
  for (size_t at : {piece - 1, piece, piece + 1, 2 * piece + 100, bytes.size() / 2, bytes.size() - 40}) {
    TempFile changed("changed.tdrec");
    std::string copy = bytes;
    copy[at] ^= 0x5a;
    std::ofstream(changed.path(), std::ios::binary) << copy;
    const std::string error = read_all(changed.path());
    EXPECT_NE(error.find("is not the one recorded"), std::string::npos) << "byte " << at << ": " << error;
  }
}

// The checking pass takes the hash of each recorded trace as it reads it: the replay compares a
// trace without reading it again. The hash is the one trace_hash() gives the bytes, for that
// record only; a request that merely asks for the trace, and a reader of a stream (no pass), have none.
TEST(Recording, TheCheckingPassTakesEachRecordedTracesHash) {
  TempFile file("traces.tdrec");
  std::string first_trace(3 << 20, 'a'), second_trace = "a short trace";
  for (size_t i = 0; i < first_trace.size(); i += 4099) first_trace[i] = static_cast<char>(i % 251);
  auto view = [](const std::string& text) { return Bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()); };
  {
    auto writer = RecordingWriter::create(file.path(), sample_header());
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::ReadTrace, 1, {}}));
    ASSERT_TRUE(writer->write(Direction::Reply, make_frame(1, TraceBytes{view(first_trace)})));
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::ReadTrace, 2, {}}));
    ASSERT_TRUE(writer->write(Direction::Reply, make_frame(2, TraceBytes{view(second_trace)})));
    ASSERT_TRUE(writer->close());
  }
  const std::vector<std::optional<std::string>> expected = {std::nullopt, trace_hash(first_trace), std::nullopt,
                                                            trace_hash(second_trace)};
  for (auto checking :
       {RecordingReader::Checking::BeforeFirstRecord, RecordingReader::Checking::AlongsideFirstRecord}) {
    auto reader = RecordingReader::open(file.path(), checking);
    ASSERT_TRUE(reader) << reader.error().message;
    for (const auto& hash : expected) {
      auto record = reader->next();
      ASSERT_TRUE(record && *record);
      EXPECT_EQ(reader->trace_hash_of(reader->records_read()), hash) << "record #" << reader->records_read();
    }
  }
  auto streamed = RecordingReader::open(std::make_unique<std::ifstream>(file.path(), std::ios::binary), "traces.tdrec");
  ASSERT_TRUE(streamed);
  for (size_t i = 0; i < expected.size(); ++i) {
    ASSERT_TRUE(streamed->next());
    EXPECT_EQ(streamed->trace_hash_of(streamed->records_read()), std::nullopt);
  }
}

}  // namespace
}  // namespace tidemark::wire
