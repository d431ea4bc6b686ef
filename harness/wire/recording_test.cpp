#include "wire/recording.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tidemark::wire {
namespace {

std::filesystem::path temp_file(const std::string& name) {
  return std::filesystem::path(::testing::TempDir()) / name;
}

RecordingHeader sample_header() { return {"reclaim/sample", 192, 32, {{"wire_deferred_mb", 8}}, "wire.drop_knobs"}; }

// Check that a recording reads back exactly what was written, in order, then ends cleanly.
TEST(Recording, RoundTripsHeaderAndRecords) {
  auto file = temp_file("round-trip.tdrec");
  {
    auto writer = RecordingWriter::create(file, sample_header());
    ASSERT_TRUE(writer) << writer.error().message;
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::BufferData, 1, {1, 2, 3}}));
    ASSERT_TRUE(writer->write(Direction::Reply, Frame{Opcode::Ok, 1, {}}));
    ASSERT_TRUE(writer->close());
  }
  auto reader = RecordingReader::open(file);
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
  auto file = temp_file("cut.tdrec");
  {
    auto writer = RecordingWriter::create(file, sample_header());
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->write(Direction::Request, Frame{Opcode::BufferData, 1, std::vector<uint8_t>(40, 7)}));
    ASSERT_TRUE(writer->close());
  }
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t record_start = bytes.size() - (1 + kHeaderBytes + 40);
  for (size_t cut = record_start + 1; cut < bytes.size(); ++cut) {
    auto reader = RecordingReader::open(std::make_unique<std::istringstream>(bytes.substr(0, cut)), "cut");
    ASSERT_TRUE(reader);
    auto record = reader->next();
    ASSERT_FALSE(record) << "cut at " << cut;
    EXPECT_NE(record.error().message.find("cut: record #1 at byte " + std::to_string(record_start)),
              std::string::npos)
        << record.error().message;
  }
}

// Check that a corrupt length cannot make the reader allocate what the file does not hold.
TEST(Recording, ACorruptLengthFailsWithoutAllocatingIt) {
  std::string bytes;
  {
    auto file = temp_file("header-only.tdrec");
    auto writer = RecordingWriter::create(file, sample_header());
    ASSERT_TRUE(writer);
    ASSERT_TRUE(writer->close());
    std::ifstream in(file, std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
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

}  // namespace
}  // namespace tidemark::wire
