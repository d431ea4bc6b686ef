#include "core/image.h"

#include <array>
#include <cassert>
#include <cstddef>

namespace tidemark {
namespace {

size_t pixel_offset(const Image& image, int x, int y) {
  assert(x >= 0 && x < image.width && y >= 0 && y < image.height);
  return (static_cast<size_t>(y) * static_cast<size_t>(image.width) + static_cast<size_t>(x)) * 4;
}

// Hue as a fraction of the colour wheel in 1/65536 turns, `max` and `min` as the
// brightest and darkest channel: a hexagonal HSV in integers, so every compiler agrees.
Rgba hexagon_color(uint32_t hue, int max, int min) {
  const uint32_t scaled = hue * 6;
  const uint32_t sector = scaled >> 16;
  const uint32_t fraction = scaled & 0xFFFF;
  const auto range = static_cast<uint32_t>(max - min);
  const auto rising = static_cast<uint8_t>(min + static_cast<int>((range * fraction + 0x8000) >> 16));
  const auto falling = static_cast<uint8_t>(min + static_cast<int>((range * (0x10000 - fraction) + 0x8000) >> 16));
  const auto hi = static_cast<uint8_t>(max);
  const auto lo = static_cast<uint8_t>(min);
  switch (sector) {
    case 0:
      return {hi, rising, lo, 255};
    case 1:
      return {falling, hi, lo, 255};
    case 2:
      return {lo, hi, rising, 255};
    case 3:
      return {lo, falling, hi, 255};
    case 4:
      return {rising, lo, hi, 255};
    default:
      return {hi, lo, falling, 255};
  }
}

}  // namespace

Rgba Image::at(int x, int y) const {
  const size_t offset = pixel_offset(*this, x, y);
  return {pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]};
}

void Image::set(int x, int y, Rgba color) {
  const size_t offset = pixel_offset(*this, x, y);
  for (size_t channel = 0; channel < 4; ++channel) pixels[offset + channel] = color[channel];
}

Image make_image(int width, int height, Rgba fill) {
  Image image;
  if (width <= 0 || height <= 0) return image;
  image.width = width;
  image.height = height;
  const size_t count = static_cast<size_t>(width) * static_cast<size_t>(height);
  image.pixels.resize(count * 4);
  for (size_t i = 0; i < count; ++i) {
    for (size_t channel = 0; channel < 4; ++channel) image.pixels[i * 4 + channel] = fill[channel];
  }
  return image;
}

// Consecutive indexes step the hue by the golden ratio, so neighbours land far apart on
// the wheel. Each run of 16 indexes gets its own (brightest, darkest) channel pair; the
// first 128 runs all differ in that pair, so the first 4096 colours are distinct by
// construction, and within a run 16 golden-ratio hues stay at least 1/30 turn apart.
// The brightest channel never drops below 150 and the darkest never exceeds 70, so no
// entry resembles black, white or grey (what clears and empty bands look like).
Rgba palette_color(int64_t index) {
  const auto n = static_cast<uint64_t>(index);
  constexpr uint64_t golden_turn = 2654435769u;  // 2^32 / phi
  const auto hue = static_cast<uint32_t>(((n * golden_turn) & 0xFFFFFFFFu) >> 16);
  const uint64_t run = n / 16;
  const auto brightness_step = static_cast<int>((run * 5) % 16);  // 5 is coprime with 16
  const auto darkness_step = static_cast<int>((run / 16) % 8);
  return hexagon_color(hue, 255 - 7 * brightness_step, 10 * darkness_step);
}

}  // namespace tidemark
