// An RGBA8 image, row-major, top row first; what read_pixels returns and PNGs hold.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace tidemark {

using Rgba = std::array<uint8_t, 4>;

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 4 bytes

  Rgba at(int x, int y) const;
  void set(int x, int y, Rgba color);
};

Image make_image(int width, int height, Rgba fill);

// The colour of palette entry `index`: distinct, opaque, stable across releases
// (scenarios and goldens depend on it).
Rgba palette_color(int64_t index);

}  // namespace tidemark
