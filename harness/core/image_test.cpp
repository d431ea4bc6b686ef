#include "core/image.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include <gtest/gtest.h>

namespace tidemark {
namespace {

int max_channel_delta(Rgba a, Rgba b) {
  int delta = 0;
  for (size_t channel = 0; channel < 4; ++channel) {
    delta = std::max(delta, std::abs(int{a[channel]} - int{b[channel]}));
  }
  return delta;
}

TEST(Image, MakeImageFillsEveryPixel) {
  const Image image = make_image(3, 2, {1, 2, 3, 4});
  EXPECT_EQ(image.width, 3);
  EXPECT_EQ(image.height, 2);
  ASSERT_EQ(image.pixels.size(), 3u * 2u * 4u);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(image.at(x, y), (Rgba{1, 2, 3, 4}));
  }
}

TEST(Image, SetWritesOnePixelRowMajor) {
  Image image = make_image(4, 3, {0, 0, 0, 0});
  image.set(2, 1, {9, 8, 7, 6});
  EXPECT_EQ(image.at(2, 1), (Rgba{9, 8, 7, 6}));
  const size_t offset = (1 * 4 + 2) * 4;
  EXPECT_EQ(image.pixels[offset], 9);
  EXPECT_EQ(image.pixels[offset + 3], 6);
  EXPECT_EQ(image.at(1, 1), (Rgba{0, 0, 0, 0}));
}

TEST(Image, NonPositiveSizeGivesEmptyImage) {
  const Image image = make_image(0, 5, {1, 1, 1, 1});
  EXPECT_EQ(image.width, 0);
  EXPECT_TRUE(image.pixels.empty());
}

// Scenarios fill buffers with palette colours and goldens hold them: changing these
// values breaks every stored golden, so they are pinned.
TEST(Palette, FirstEntriesArePinned) {
  EXPECT_EQ(palette_color(0), (Rgba{255, 0, 0, 255}));
  EXPECT_EQ(palette_color(1), (Rgba{0, 74, 255, 255}));
  EXPECT_EQ(palette_color(2), (Rgba{149, 255, 0, 255}));
}

TEST(Palette, EntriesAreOpaque) {
  for (int64_t i = 0; i < 4096; ++i) ASSERT_EQ(palette_color(i)[3], 255) << "index " << i;
}

TEST(Palette, First48ArePairwiseFarApart) {
  for (int64_t i = 0; i < 48; ++i) {
    for (int64_t j = i + 1; j < 48; ++j) {
      EXPECT_GE(max_channel_delta(palette_color(i), palette_color(j)), 24) << "indexes " << i << " and " << j;
    }
  }
}

TEST(Palette, First4096AreDistinct) {
  std::set<Rgba> seen;
  for (int64_t i = 0; i < 4096; ++i) {
    EXPECT_TRUE(seen.insert(palette_color(i)).second) << "index " << i << " repeats a colour";
  }
}

TEST(Palette, NeighboursDifferVisibly) {
  for (int64_t i = 0; i < 4095; ++i) {
    ASSERT_GE(max_channel_delta(palette_color(i), palette_color(i + 1)), 64) << "index " << i;
  }
}

TEST(Palette, IsAFunctionOfTheIndexOnly) {
  EXPECT_EQ(palette_color(1234), palette_color(1234));
  EXPECT_EQ(palette_color(-1)[3], 255);
}

}  // namespace
}  // namespace tidemark
