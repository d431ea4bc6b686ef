// PNG files through libpng: what goldens and report images are.
#pragma once

#include <filesystem>

#include "core/error.h"
#include "core/image.h"

namespace tidemark::check {

// 8-bit RGBA, no interlace. Reading converts palette/gray/RGB/16-bit to RGBA8.
Status write_png(const std::filesystem::path& file, const Image& image);
Result<Image> read_png(const std::filesystem::path& file);

}  // namespace tidemark::check
