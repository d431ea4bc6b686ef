#include "check/ssim.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "check/check.h"
#include "check/png.h"
#include "core/files.h"
#include "core/testing/scratch.h"

namespace tidemark::check {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Check that SSIM agrees with scikit-image's to 1e-4 on every committed pair
// (testdata/ssim/reference.txt, made by scripts/testing/ssim-reference).
TEST(Ssim, AgreesWithScikitImageOnTheCommittedPairs) {
  std::ifstream in("testdata/ssim/reference.txt");
  ASSERT_TRUE(in) << "run from harness/check";
  std::string line;
  int pairs = 0;
  double largest = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string a, b;
    double reference = 0;
    ASSERT_TRUE(fields >> a >> b >> reference) << line;
    auto first = read_png("testdata/ssim/" + a);
    auto second = read_png("testdata/ssim/" + b);
    ASSERT_TRUE(first && second) << line;
    auto measured = structural_similarity(*first, *second);
    ASSERT_TRUE(measured) << measured.error().message;
    EXPECT_NEAR(measured->mean, reference, 1e-4) << a << " vs " << b;
    largest = std::max(largest, std::abs(measured->mean - reference));
    ++pairs;
  }
  EXPECT_EQ(pairs, 8);
  std::printf("largest difference from scikit-image over %d pairs: %.1e\n", pairs, largest);
}

// Check that an image is wholly similar to itself, its map all white.
TEST(Ssim, AnImageIsItselfEverywhere) {
  auto image = read_png("testdata/ssim/texture-48x40.png");
  ASSERT_TRUE(image);
  auto measured = structural_similarity(*image, *image);
  ASSERT_TRUE(measured);
  EXPECT_DOUBLE_EQ(measured->mean, 1.0);
  for (int y = 0; y < image->height; ++y)
    for (int x = 0; x < image->width; ++x) ASSERT_EQ(measured->map.at(x, y), (Rgba{255, 255, 255, 255}));
}

// Check that the lowest SSIM is found where the images differ.
TEST(Ssim, TheLowestPointIsWhereTheyDiffer) {
  Image a = make_image(32, 32, {100, 100, 100, 255});
  Image b = a;
  for (int y = 20; y < 23; ++y)
    for (int x = 12; x < 15; ++x) b.set(x, y, {250, 0, 250, 255});
  auto measured = structural_similarity(a, b);
  ASSERT_TRUE(measured);
  EXPECT_LT(measured->mean, 0.99);
  EXPECT_NEAR(measured->lowest_at.first, 13, 1);
  EXPECT_NEAR(measured->lowest_at.second, 21, 1);
  EXPECT_LT(measured->map.at(13, 21)[0], measured->map.at(2, 2)[0]);
}

// Check that images of two sizes, or smaller than the window, have no SSIM.
TEST(Ssim, ImagesOfTwoSizesOrTooSmallAreBadInput) {
  auto sizes = structural_similarity(make_image(16, 16, {}), make_image(16, 12, {}));
  ASSERT_FALSE(sizes);
  EXPECT_EQ(sizes.error().message, "SSIM: expected images of one size, found 16x16 and 16x12");
  auto small = structural_similarity(make_image(16, 8, {}), make_image(16, 8, {}));
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().message, "SSIM: expected an image of at least 11x11 (its window), found 16x8");
}

// Check that a golden judged by SSIM alone passes a noisy copy above its bound, fails below it
// naming the value, and leaves the SSIM map beside the images.
TEST(Ssim, AGoldenBySsimPassesAboveItsBoundAndLeavesTheMapBelowIt) {
  const test_support::ScratchDir scratch("ssim");
  const fs::path dir = scratch.path();
  auto noisy = read_png("testdata/ssim/bands-noise.png");
  ASSERT_TRUE(noisy);
  const SourceLocation where{"s.yaml", 9, 7};
  scenario::GoldenCheck golden{
      .file = "testdata/ssim/bands-192x32.png", .ssim = 0.99, .per_pixel = false, .where = where};
  auto passed = check_pixels(golden, *noisy, dir, {scenario::CheckKind::Pixels, 0});
  ASSERT_TRUE(passed) << passed.error().message;
  EXPECT_TRUE(passed->passed) << passed->detail;
  EXPECT_THAT(passed->text, HasSubstr("with SSIM >= 0.99"));

  golden.ssim = 0.998;
  auto failed = check_pixels(golden, *noisy, dir, {scenario::CheckKind::Pixels, 0});
  ASSERT_TRUE(failed) << failed.error().message;
  EXPECT_FALSE(failed->passed);
  EXPECT_THAT(failed->detail, HasSubstr("SSIM 0.995"));
  EXPECT_THAT(failed->detail, HasSubstr("< 0.998"));
  ASSERT_EQ(failed->artifacts.size(), 4u);
  EXPECT_EQ(failed->artifacts.back(), dir / "pixels-0-ssim-map.png");
  auto map = read_png(failed->artifacts.back());
  ASSERT_TRUE(map);
  EXPECT_EQ(map->width, 192);
}

}  // namespace
}  // namespace tidemark::check
