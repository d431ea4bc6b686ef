// PNG files through libpng: what goldens and report images are.
#pragma once

#include <filesystem>

#include "core/error.h"
#include "core/image.h"

namespace tidemark::check {

// 8-bit RGBA, no interlace. Reading converts palette/gray/RGB/16-bit to RGBA8.
Status write_png(const std::filesystem::path& file, const Image& image);
Result<Image> read_png(const std::filesystem::path& file);
// The size its header claims, read without decoding a pixel: a golden is compared by size
// before it is decoded (a 300-byte file may claim 16384 x 16384). Sides above kMaxTargetSide
// (the largest target) are refused, here and by read_png.
struct PngSize {
  int width = 0;
  int height = 0;
};
Result<PngSize> read_png_size(const std::filesystem::path& file);

}  // namespace tidemark::check
