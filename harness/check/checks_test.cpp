#include "check/check.h"
#include "check/png.h"

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check/outcome_test.h"

namespace tidemark::check {
namespace {

scenario::CheckId pixels_id(size_t k) { return {scenario::CheckKind::Pixels, k}; }
scenario::CheckId gauge_id(size_t k) { return {scenario::CheckKind::Gauge, k}; }

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const SourceLocation where{"scenarios/demo.yaml", 12, 5};

// ---- compare_images -------------------------------------------------------------

TEST(CompareImages, DeltaEqualToToleranceMatches) {
  const Image expected = make_image(2, 2, {100, 100, 100, 255});
  Image actual = expected;
  actual.set(1, 0, {103, 97, 100, 252});
  auto result = compare_images(actual, expected, 3);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->mismatched, 0);
  EXPECT_EQ(result->max_channel_delta, 3);
  EXPECT_FALSE(result->first_mismatch);
}

TEST(CompareImages, DeltaOneAboveToleranceMismatches) {
  const Image expected = make_image(3, 2, {100, 100, 100, 255});
  Image actual = expected;
  actual.set(2, 0, {100, 100, 104, 255});
  actual.set(0, 1, {96, 100, 100, 255});
  auto result = compare_images(actual, expected, 3);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->mismatched, 2);
  EXPECT_EQ(result->max_channel_delta, 4);
  ASSERT_TRUE(result->first_mismatch);
  EXPECT_EQ(*result->first_mismatch, (std::pair{2, 0}));
}

TEST(CompareImages, AlphaCountsAsAChannel) {
  const Image expected = make_image(1, 1, {0, 0, 0, 255});
  auto result = compare_images(make_image(1, 1, {0, 0, 0, 0}), expected, 10);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->mismatched, 1);
}

TEST(CompareImages, SizeMismatchNamesBothSizes) {
  auto result = compare_images(make_image(4, 3, {}), make_image(3, 4, {}), 0);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::BadInput);
  EXPECT_THAT(result.error().message, HasSubstr("4x3"));
  EXPECT_THAT(result.error().message, HasSubstr("3x4"));
}

TEST(CompareImages, DiffShowsMismatchesInMagentaOverDimmedGrey) {
  const Image expected = make_image(2, 1, {90, 90, 90, 255});
  Image actual = make_image(2, 1, {90, 90, 90, 128});
  actual.set(1, 0, {0, 0, 0, 255});
  auto result = compare_images(actual, expected, 200);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->diff.at(0, 0), (Rgba{30, 30, 30, 255}));  // grey 90, a third of it

  auto strict = compare_images(actual, expected, 0);
  ASSERT_TRUE(strict);
  EXPECT_EQ(strict->diff.at(0, 0), (Rgba{255, 0, 255, 255}));
  EXPECT_EQ(strict->diff.at(1, 0), (Rgba{255, 0, 255, 255}));
}

// ---- probe ----------------------------------------------------------------------

TEST(Probe, PassesWithinTolerance) {
  Image image = make_image(4, 4, {0, 0, 0, 255});
  image.set(3, 2, {200, 60, 30, 255});
  const scenario::PixelCheck check =
      scenario::ProbeCheck{.x = 3, .y = 2, .rgba = {202, 58, 30, 255}, .tolerance = 2, .where = where};
  auto outcome = check_pixels(check, image, fresh_test_dir("check-test", "probe-pass"), pixels_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->passed) << outcome->detail;
  EXPECT_EQ(outcome->id.kind, scenario::CheckKind::Pixels);
  EXPECT_EQ(outcome->id.str(), "pixels[0]");
  EXPECT_EQ(outcome->detail, "(3,2): read rgba(200,60,30,255), wanted rgba(202,58,30,255)");
  EXPECT_TRUE(outcome->artifacts.empty());
}

TEST(Probe, FailureWritesArtifactsWithTheWantedPixel) {
  const fs::path dir = fresh_test_dir("check-test", "probe-fail");
  const Image image = make_image(4, 4, {0, 0, 0, 255});
  const scenario::PixelCheck check =
      scenario::ProbeCheck{.x = 1, .y = 3, .rgba = {0, 0, 3, 255}, .tolerance = 2, .where = where};
  auto outcome = check_pixels(check, image, dir, pixels_id(2));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->detail, "(1,3): read rgba(0,0,0,255), wanted rgba(0,0,3,255), off by 3 > tolerance 2");
  ASSERT_EQ(outcome->artifacts.size(), 3u);
  EXPECT_EQ(outcome->artifacts[0], dir / "pixels-2-actual.png");
  auto expected = read_png(dir / "pixels-2-expected.png");
  ASSERT_TRUE(expected) << expected.error().message;
  EXPECT_EQ(expected->at(1, 3), (Rgba{0, 0, 3, 255}));
  EXPECT_EQ(expected->at(0, 0), (Rgba{0, 0, 0, 255}));
}

TEST(Probe, OutOfRangeIsBadInput) {
  const scenario::PixelCheck check = scenario::ProbeCheck{.x = 4, .y = 0, .where = where};
  auto outcome = check_pixels(check, make_image(4, 4, {}), "", pixels_id(0));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::BadInput);
  EXPECT_THAT(outcome.error().message, HasSubstr("scenarios/demo.yaml:12:5"));
}

// ---- bands ----------------------------------------------------------------------

Image paint_bands(int width, int height, const std::vector<Rgba>& colors) {
  Image image = make_image(width, height, {0, 0, 0, 255});
  const int count = static_cast<int>(colors.size());
  for (int band = 0; band < count; ++band) {
    for (int x = band * width / count; x < (band + 1) * width / count; ++x) {
      for (int y = 0; y < height; ++y) image.set(x, y, colors[static_cast<size_t>(band)]);
    }
  }
  return image;
}

std::vector<Rgba> palette_colors(int count) {
  std::vector<Rgba> colors;
  for (int i = 0; i < count; ++i) colors.push_back(palette_color(i));
  return colors;
}

TEST(Bands, PaletteBandsPass) {
  const scenario::PixelCheck check = scenario::BandsCheck{.count = 48, .palette = true, .colors = {}, .where = where};
  auto outcome = check_pixels(check, paint_bands(64, 8, palette_colors(48)), "", pixels_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->passed) << outcome->detail;
  EXPECT_EQ(outcome->detail, "all 48 bands match");
}

TEST(Bands, UnevenWidthsFollowFloorBoundaries) {
  const std::vector<Rgba> colors{{10, 0, 0, 255}, {0, 10, 0, 255}, {0, 0, 10, 255}};
  const scenario::PixelCheck check = scenario::BandsCheck{.count = 3, .colors = colors, .where = where};
  Image image = paint_bands(10, 2, colors);  // bands [0,3) [3,6) [6,10)
  auto passing = check_pixels(check, image, "", pixels_id(0));
  ASSERT_TRUE(passing);
  EXPECT_TRUE(passing->passed) << passing->detail;

  image.set(6, 1, colors[1]);  // band 1 spilling one pixel into band 2
  auto failing = check_pixels(check, image, "", pixels_id(0));
  ASSERT_TRUE(failing);
  EXPECT_FALSE(failing->passed);
  EXPECT_EQ(failing->detail,
            "band 2 of 3: 1 of 8 pixels off, first at (6,1): read rgba(0,10,0,255), "
            "wanted rgba(0,0,10,255)");
}

TEST(Bands, OneBadBandDetail) {
  const std::vector<Rgba> colors{{60, 200, 90, 255}, {1, 2, 3, 255}, {4, 5, 6, 255}, {7, 8, 9, 255}};
  std::vector<Rgba> painted = colors;
  painted[2] = {200, 60, 30, 255};
  const scenario::PixelCheck check = scenario::BandsCheck{.count = 4, .colors = colors, .tolerance = 1, .where = where};
  auto outcome = check_pixels(check, paint_bands(8, 4, painted), "", pixels_id(1));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->detail,
            "band 2 of 4: 8 of 8 pixels off, first at (4,0): read rgba(200,60,30,255), "
            "wanted rgba(4,5,6,255)");
  EXPECT_TRUE(outcome->artifacts.empty());  // no artifact folder given
}

TEST(Bands, SeveralBadBandsCountThemAndWriteArtifacts) {
  const fs::path dir = fresh_test_dir("check-test", "bands-fail");
  const scenario::PixelCheck check = scenario::BandsCheck{.count = 4, .palette = true, .colors = {}, .where = where};
  std::vector<Rgba> painted = palette_colors(4);
  std::swap(painted[1], painted[3]);
  auto outcome = check_pixels(check, paint_bands(8, 2, painted), dir, pixels_id(1));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_THAT(outcome->detail, HasSubstr("2 of 4 bands off, first band 1 of 4: 4 of 4 pixels off, "
                                         "first at (2,0)"));
  const std::vector<fs::path> expected_files{dir / "pixels-1-actual.png", dir / "pixels-1-expected.png",
                                             dir / "pixels-1-diff.png"};
  EXPECT_EQ(outcome->artifacts, expected_files);
  auto expected = read_png(dir / "pixels-1-expected.png");
  ASSERT_TRUE(expected) << expected.error().message;
  EXPECT_EQ(expected->pixels, paint_bands(8, 2, palette_colors(4)).pixels);
  auto diff = read_png(dir / "pixels-1-diff.png");
  ASSERT_TRUE(diff) << diff.error().message;
  EXPECT_EQ(diff->at(2, 0), (Rgba{255, 0, 255, 255}));
  EXPECT_NE(diff->at(0, 0), (Rgba{255, 0, 255, 255}));
}

TEST(Bands, MoreBandsThanColumnsIsBadInput) {
  const scenario::PixelCheck check = scenario::BandsCheck{.count = 9, .palette = true, .colors = {}, .where = where};
  auto outcome = check_pixels(check, make_image(8, 2, {}), "", pixels_id(0));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::BadInput);
}

// ---- golden ---------------------------------------------------------------------

TEST(Golden, PassesWithinAllowedMismatch) {
  const fs::path dir = fresh_test_dir("check-test", "golden-pass");
  fs::create_directories(dir);
  Image golden = make_image(4, 4, {20, 40, 60, 255});
  ASSERT_TRUE(write_png(dir / "golden.png", golden));
  Image actual = golden;
  actual.set(0, 0, {22, 40, 60, 255});  // within tolerance
  actual.set(3, 3, {90, 40, 60, 255});  // beyond, but one pixel is allowed
  const scenario::PixelCheck check =
      scenario::GoldenCheck{.file = dir / "golden.png", .tolerance = 2, .max_mismatch = 1, .where = where};
  auto outcome = check_pixels(check, actual, dir / "artifacts", pixels_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->passed) << outcome->detail;
  EXPECT_THAT(outcome->detail, HasSubstr("1 of 16 pixels off (allowed 1)"));
  EXPECT_TRUE(outcome->artifacts.empty());
  EXPECT_FALSE(fs::exists(dir / "artifacts"));
}

TEST(Golden, FailureWritesActualExpectedAndDiff) {
  const fs::path dir = fresh_test_dir("check-test", "golden-fail");
  fs::create_directories(dir);
  const Image golden = make_image(4, 4, {20, 40, 60, 255});
  ASSERT_TRUE(write_png(dir / "golden.png", golden));
  Image actual = golden;
  actual.set(1, 0, {90, 40, 60, 255});
  actual.set(2, 2, {20, 40, 61, 255});
  const scenario::PixelCheck check =
      scenario::GoldenCheck{.file = dir / "golden.png", .tolerance = 0, .max_mismatch = 1, .where = where};
  const fs::path artifacts = dir / "artifacts" / "nested";
  auto outcome = check_pixels(check, actual, artifacts, pixels_id(3));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->detail,
            "2 of 16 pixels off (allowed 1), first at (1,0): read rgba(90,40,60,255), "
            "wanted rgba(20,40,60,255), largest channel delta 70");
  const std::vector<fs::path> expected_files{artifacts / "pixels-3-actual.png", artifacts / "pixels-3-expected.png",
                                             artifacts / "pixels-3-diff.png"};
  ASSERT_EQ(outcome->artifacts, expected_files);
  auto written_actual = read_png(expected_files[0]);
  auto written_expected = read_png(expected_files[1]);
  auto written_diff = read_png(expected_files[2]);
  ASSERT_TRUE(written_actual && written_expected && written_diff);
  EXPECT_EQ(written_actual->pixels, actual.pixels);
  EXPECT_EQ(written_expected->pixels, golden.pixels);
  EXPECT_EQ(written_diff->at(1, 0), (Rgba{255, 0, 255, 255}));
  EXPECT_EQ(written_diff->at(2, 2), (Rgba{255, 0, 255, 255}));
  EXPECT_NE(written_diff->at(0, 0), (Rgba{255, 0, 255, 255}));
}

TEST(Golden, MissingGoldenIsAnIoErrorAndTheActualIsWritten) {
  const fs::path dir = fresh_test_dir("check-test", "golden-missing");
  const scenario::PixelCheck check = scenario::GoldenCheck{.file = dir / "absent.png", .where = where};
  auto outcome = check_pixels(check, make_image(2, 2, {1, 2, 3, 255}), dir / "out", pixels_id(0));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::Io);
  EXPECT_THAT(outcome.error().message, HasSubstr((dir / "absent.png").string()));
  EXPECT_THAT(outcome.error().message, HasSubstr((dir / "out" / "pixels-0-actual.png").string()));
  EXPECT_TRUE(fs::exists(dir / "out" / "pixels-0-actual.png"));
}

// Check that a golden of another size is red by its header's size alone: the actual image is
// left for adoption, the golden is not decoded (its size could be anything up to the limit).
TEST(Golden, SizeChangeFailsWithoutDiff) {
  const fs::path dir = fresh_test_dir("check-test", "golden-size");
  fs::create_directories(dir);
  ASSERT_TRUE(write_png(dir / "golden.png", make_image(2, 2, {0, 0, 0, 255})));
  const scenario::PixelCheck check = scenario::GoldenCheck{.file = dir / "golden.png", .where = where};
  auto outcome = check_pixels(check, make_image(3, 2, {0, 0, 0, 255}), dir / "out", pixels_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_THAT(outcome->detail, HasSubstr("image is 3x2"));
  EXPECT_THAT(outcome->detail, HasSubstr("is 2x2"));
  ASSERT_EQ(outcome->artifacts.size(), 1u);
  EXPECT_EQ(outcome->artifacts[0], dir / "out" / "pixels-0-actual.png");
}

// ---- gauges ---------------------------------------------------------------------

scenario::GaugeCheck gauge(std::string_view text) {
  auto expr = Expression::parse(text);
  EXPECT_TRUE(expr) << expr.error().message;
  return {.expr = *expr, .where = where};
}

TEST(Gauge, FailureNamesValueAndBound) {
  auto outcome = check_gauge(gauge("wlivepk <= 4 * wbufs"), {{"wlivepk", 1025}, {"wbufs", 1}}, gauge_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->id.str(), "gauge[0]");
  EXPECT_EQ(outcome->id.kind, scenario::CheckKind::Gauge);
  EXPECT_EQ(outcome->text, "wlivepk <= 4 * wbufs");
  EXPECT_EQ(outcome->detail, "wlivepk = 1025, bound 4 * wbufs = 4");
  EXPECT_EQ(outcome->where.line, 12);
}

TEST(Gauge, LiteralBoundIsShownOnce) {
  auto outcome = check_gauge(gauge("wlivepk <= 4"), {{"wlivepk", 1025}}, gauge_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_EQ(outcome->detail, "wlivepk = 1025, bound 4");
}

TEST(Gauge, OtherOperatorsAreNamed) {
  auto outcome = check_gauge(gauge("wdefsync == 5"), {{"wdefsync", 3}}, gauge_id(1));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_FALSE(outcome->passed);
  EXPECT_EQ(outcome->detail, "wdefsync = 3, expected == 5");
}

TEST(Gauge, PassingCheckStillShowsTheValue) {
  auto outcome = check_gauge(gauge("wlivepk <= 4"), {{"wlivepk", 1}}, gauge_id(0));
  ASSERT_TRUE(outcome) << outcome.error().message;
  EXPECT_TRUE(outcome->passed);
  EXPECT_EQ(outcome->detail, "wlivepk = 1 (<= 4)");
}

TEST(Gauge, UnknownIdentifierIsBadInputListingKnownNames) {
  auto outcome = check_gauge(gauge("wlivepk <= wbufz"), {{"wlivepk", 1}, {"wbufs", 2}}, gauge_id(0));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::BadInput);
  EXPECT_THAT(outcome.error().message, HasSubstr("scenarios/demo.yaml:12:5"));
  EXPECT_THAT(outcome.error().message, HasSubstr("wbufz"));
  EXPECT_THAT(outcome.error().message, HasSubstr("wbufs, wlivepk"));
}

TEST(Gauge, NonComparisonIsBadInput) {
  auto outcome = check_gauge(gauge("wlivepk + 1"), {{"wlivepk", 1}}, gauge_id(0));
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().kind, ErrorKind::BadInput);
  EXPECT_THAT(outcome.error().message, HasSubstr("scenarios/demo.yaml:12:5"));
}

}  // namespace
}  // namespace tidemark::check
