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

bool encode_raw(png_structp png, png_infop info, std::FILE* file, const RawPng& raw,
                png_bytepp rows) {
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
                {static_cast<uint8_t>(x * 37), static_cast<uint8_t>(y * 51),
                 static_cast<uint8_t>(x * y * 13 + 1), static_cast<uint8_t>(255 - x * y * 7)});
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
  write_raw_png(file, {.width = 2,
                       .height = 1,
                       .bit_depth = 8,
                       .color_type = PNG_COLOR_TYPE_RGB,
                       .bytes = {10, 20, 30, 200, 100, 50}});
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
  write_raw_png(file, {.width = 3,
                       .height = 1,
                       .bit_depth = 8,
                       .color_type = PNG_COLOR_TYPE_GRAY,
                       .bytes = {0, 128, 255}});
  auto read = read_png(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->at(0, 0), (Rgba{0, 0, 0, 255}));
  EXPECT_EQ(read->at(1, 0), (Rgba{128, 128, 128, 255}));
  EXPECT_EQ(read->at(2, 0), (Rgba{255, 255, 255, 255}));
}

// Check that a file that is not a PNG is bad input (what a file holds is the user's), naming it.
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
  EXPECT_NE(read.error().message.find("cannot read " + cut.string() + ": "), std::string::npos)
      << read.error().message;
}

TEST(Png, MissingFileIsAnIoError) {
  const fs::path file = fresh_test_dir("png-test", "missing") / "absent.png";
  auto read = read_png(file);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::Io);
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
