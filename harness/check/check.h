// Checks over a run's gauges and final pixels. Each outcome says which check, the
// measured value and the bound, e.g. `wlivepk = 1025, bound 4 * wbufs = 4`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::check {

struct Outcome {
  scenario::CheckId id;  // which check: gauge[0], pixels[1], waits, lane, ...
  std::string text;      // the check as written, e.g. "wlivepk <= 4 * wbufs"
  bool passed = false;
  std::string detail;  // measured value against bound, or first mismatches
  SourceLocation where;
  std::vector<std::filesystem::path> artifacts;  // PNGs written for a failed pixel check
};

// Gauges and knobs by name; gauges shadow knobs.
using Values = std::map<std::string, int64_t>;

// Evaluates one gauge expression. An unknown identifier is an error (a bad scenario),
// not a failed check.
Result<Outcome> check_gauge(const scenario::GaugeCheck& check, const Values& values, scenario::CheckId id);

// Evaluates one pixel check against the final image. On failure writes
// `<id>-actual.png`, `<id>-expected.png` and `<id>-diff.png` into `artifact_dir`
// (when non-empty) and lists them in the outcome.
Result<Outcome> check_pixels(const scenario::PixelCheck& check, const Image& actual,
                             const std::filesystem::path& artifact_dir, scenario::CheckId id);

// Whole-image comparison with per-channel tolerance.
struct CompareResult {
  int64_t mismatched = 0;  // pixels with any channel beyond tolerance
  int max_channel_delta = 0;
  std::optional<std::pair<int, int>> first_mismatch;
  Image diff;  // mismatches in magenta over a dimmed grey copy of `actual`
};
Result<CompareResult> compare_images(const Image& actual, const Image& expected, int tolerance);

}  // namespace tidemark::check
