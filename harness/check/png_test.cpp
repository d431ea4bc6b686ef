#include "check/png.h"

#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "check/outcome_test.h"
#include <png.h>

namespace tidemark::check {
namespace {

namespace fs = std::filesystem;

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

struct RawPng {
  png_uint_32 width = 0;
  png_uint_32 height = 0;
  int bit_depth = 8;
  int color_type = PNG_COLOR_TYPE_RGB;
  std::vector<png_byte> bytes;  // rows packed as libpng expects them
};

bool encode_raw(png_structp png, png_infop info, std::FILE* file, const RawPng& raw, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_IHDR(png, info, raw.width, raw.height, raw.bit_depth, raw.color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

// Writes formats write_png never produces, to exercise read_png's conversions.
void write_raw_png(const fs::path& file, RawPng raw) {
  std::unique_ptr<std::FILE, FileCloser> handle(std::fopen(file.c_str(), "wb"));
  ASSERT_TRUE(handle);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  const size_t row_bytes = raw.bytes.size() / raw.height;
  std::vector<png_bytep> rows(raw.height);
  for (size_t y = 0; y < rows.size(); ++y) rows[y] = raw.bytes.data() + y * row_bytes;
  const bool encoded = encode_raw(png, info, handle.get(), raw, rows.data());
  png_destroy_write_struct(&png, &info);
  ASSERT_TRUE(encoded);
}

TEST(Png, RoundTripIsByteExact) {
  const fs::path file = fresh_test_dir("png-test", "round-trip") / "image.png";
  Image image = make_image(7, 5, {0, 0, 0, 0});
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      image.set(x, y,
                {static_cast<uint8_t>(x * 37), static_cast<uint8_t>(y * 51), static_cast<uint8_t>(x * y * 13 + 1),
                 static_cast<uint8_t>(255 - x * y * 7)});
    }
  }
  ASSERT_TRUE(write_png(file, image));
  auto read = read_png(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->width, 7);
  EXPECT_EQ(read->height, 5);
  EXPECT_EQ(read->pixels, image.pixels);
}

TEST(Png, ReadsRgbWithoutAlphaAsOpaque) {
  const fs::path file = fresh_test_dir("png-test", "rgb") / "rgb.png";
  write_raw_png(
      file,
      {.width = 2, .height = 1, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_RGB, .bytes = {10, 20, 30, 200, 100, 50}});
  auto read = read_png(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->at(0, 0), (Rgba{10, 20, 30, 255}));
  EXPECT_EQ(read->at(1, 0), (Rgba{200, 100, 50, 255}));
}

TEST(Png, Reads16BitRgbaByKeepingHighBytes) {
  const fs::path file = fresh_test_dir("png-test", "rgba16") / "rgba16.png";
  // Big-endian 16-bit samples.
  write_raw_png(file, {.width = 1,
                       .height = 2,
                       .bit_depth = 16,
                       .color_type = PNG_COLOR_TYPE_RGBA,
                       .bytes = {0xAB, 0xCD, 0x12, 0x34, 0xFF, 0xFF, 0x80, 0x00,  //
                                 0x00, 0x01, 0x7F, 0xFF, 0x01, 0x00, 0x00, 0x00}});
  auto read = read_png(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->at(0, 0), (Rgba{0xAB, 0x12, 0xFF, 0x80}));
  EXPECT_EQ(read->at(0, 1), (Rgba{0x00, 0x7F, 0x01, 0x00}));
}

TEST(Png, ReadsGreyAsRgb) {
  const fs::path file = fresh_test_dir("png-test", "grey") / "grey.png";
  write_raw_png(file,
                {.width = 3, .height = 1, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_GRAY, .bytes = {0, 128, 255}});
  auto read = read_png(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->at(0, 0), (Rgba{0, 0, 0, 255}));
  EXPECT_EQ(read->at(1, 0), (Rgba{128, 128, 128, 255}));
  EXPECT_EQ(read->at(2, 0), (Rgba{255, 255, 255, 255}));
}

// Check that a file that is not a PNG is bad input (what a file holds is the user's), naming it.
// A PNG of a signature, a header claiming `width` x `height` and an end: no pixel data, so a
// few dozen bytes that claim as large an image as we like.
void write_header_only_png(const fs::path& file, uint32_t width, uint32_t height) {
  std::string bytes = "\x89PNG\r\n\x1a\n";
  auto chunk = [&](std::string type, std::string data) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((data.size() >> shift) & 0xff);
    std::string body = type + data;
    bytes += body;
    uint32_t crc = 0xffffffffu;  // CRC-32 as PNG defines it, bit by bit: a test needs no table
    for (unsigned char byte : body) {
      crc ^= byte;
      for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    crc ^= 0xffffffffu;
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((crc >> shift) & 0xff);
  };
  std::string ihdr;
  for (uint32_t side : {width, height})
    for (int shift = 24; shift >= 0; shift -= 8) ihdr += static_cast<char>((side >> shift) & 0xff);
  ihdr += std::string("\x08\x06\x00\x00\x00", 5);  // 8-bit RGBA, deflate, no filter, no interlace
  chunk("IHDR", ihdr);
  chunk("IDAT", std::string("\x78\x9c\x03\x00\x00\x00\x00\x01", 8));  // zlib's empty stream
  chunk("IEND", "");
  std::ofstream(file, std::ios::binary) << bytes;
}

// Check that a PNG's size is read from its header alone (a 65-byte file that claims 4096 x 4096
// gives its size, though it holds no pixel), and that a side past the largest target is refused
// before anything is allocated for it (a 300-byte golden claiming 16384 x 16384 once took 1.1 GB).
TEST(Png, TheSizeComesFromTheHeaderAndAHugeClaimIsRefused) {
  const fs::path dir = fresh_test_dir("png-test", "header");
  write_header_only_png(dir / "claims-4096.png", 4096, 4096);
  auto size = read_png_size(dir / "claims-4096.png");
  ASSERT_TRUE(size) << size.error().message;
  EXPECT_EQ(size->width, 4096);
  EXPECT_EQ(size->height, 4096);
  EXPECT_FALSE(read_png(dir / "claims-4096.png"));  // no pixels to decode

  write_header_only_png(dir / "claims-16384.png", 16384, 16384);
  auto claimed = read_png_size(dir / "claims-16384.png");
  ASSERT_FALSE(claimed);
  EXPECT_EQ(claimed.error().kind, ErrorKind::BadInput);
  EXPECT_NE(claimed.error().message.find("exceeds user limit"), std::string::npos) << claimed.error().message;
  auto decoded = read_png(dir / "claims-16384.png");
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().message, claimed.error().message);
}

TEST(Png, GarbageFileIsBadInput) {
  const fs::path file = fresh_test_dir("png-test", "garbage") / "garbage.png";
  std::ofstream(file) << "this is not a png, just some text long enough";
  auto read = read_png(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::BadInput);
  EXPECT_NE(read.error().message.find(file.string()), std::string::npos) << read.error().message;
  EXPECT_NE(read.error().message.find("not a PNG"), std::string::npos) << read.error().message;
}

// Check that a PNG cut short is bad input with libpng's own message.
TEST(Png, TruncatedFileIsBadInputWithLibpngMessage) {
  const fs::path dir = fresh_test_dir("png-test", "truncated");
  const fs::path whole = dir / "whole.png";
  ASSERT_TRUE(write_png(whole, make_image(16, 16, {1, 2, 3, 4})));
  const auto size = fs::file_size(whole);
  const fs::path cut = dir / "cut.png";
  fs::copy_file(whole, cut);
  fs::resize_file(cut, size / 2);
  auto read = read_png(cut);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::BadInput);
  EXPECT_NE(read.error().message.find("cannot read " + cut.string() + ": "), std::string::npos) << read.error().message;
}

// Check that a missing file is bad input naming it (README: a missing input is exit 2).
TEST(Png, MissingFileIsBadInput) {
  const fs::path file = fresh_test_dir("png-test", "missing") / "absent.png";
  auto read = read_png(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::BadInput);
  EXPECT_NE(read.error().message.find(file.string()), std::string::npos);
}

TEST(Png, WritingIntoAMissingFolderIsAnIoError) {
  const fs::path file = fresh_test_dir("png-test", "unwritable") / "no-such-folder" / "image.png";
  auto written = write_png(file, make_image(1, 1, {0, 0, 0, 255}));
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::Io);
  EXPECT_NE(written.error().message.find(file.string()), std::string::npos);
}

TEST(Png, WritingAnEmptyImageIsAnError) {
  const fs::path file = fresh_test_dir("png-test", "empty") / "empty.png";
  EXPECT_FALSE(write_png(file, Image{}));
  EXPECT_FALSE(fs::exists(file));
}

}  // namespace
}  // namespace tidemark::check
