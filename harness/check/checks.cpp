#include "check/check.h"
#include "check/png.h"
#include "check/ssim.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>
#include <variant>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tidemark::check {
namespace {

std::string format_rgba(Rgba color) { return fmt::format("rgba({},{},{},{})", color[0], color[1], color[2], color[3]); }

int channel_delta(Rgba a, Rgba b) {
  int delta = 0;
  for (size_t channel = 0; channel < 4; ++channel) {
    delta = std::max(delta, std::abs(int{a[channel]} - int{b[channel]}));
  }
  return delta;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// `4 * wbufs = 4`, or just `4` when the side is a literal already showing its value.
std::string describe_side(std::string_view text, int64_t value) {
  const std::string shown = fmt::format("{}", value);
  const std::string_view written = trim(text);
  if (written == shown) return shown;
  return fmt::format("{} = {}", written, value);
}

std::string join_names(const Values& values) {
  std::string names;
  for (const auto& [name, value] : values) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names.empty() ? std::string("(none)") : names;
}

// "pixels[1]" -> "pixels-1": file names safe on every file system.
std::string file_stem(std::string_view id) {
  std::string stem;
  for (const char c : id) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    if (keep) {
      stem += c;
    } else if (!stem.empty() && stem.back() != '-') {
      stem += '-';
    }
  }
  while (!stem.empty() && stem.back() == '-') stem.pop_back();
  return stem.empty() ? std::string("check") : stem;
}

struct ArtifactSet {
  const Image* actual = nullptr;
  const Image* expected = nullptr;
  const Image* diff = nullptr;      // absent when sizes differ
  const Image* ssim_map = nullptr;  // a golden judged by SSIM: where the structure differs (dark)
};

Result<std::vector<std::filesystem::path>> write_artifacts(const std::filesystem::path& dir, std::string_view id,
                                                           const ArtifactSet& set) {
  std::vector<std::filesystem::path> written;
  if (dir.empty()) return written;
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    return fail(ErrorKind::Io, fmt::format("cannot create artifact folder {}: {}", dir.string(), error.message()));
  }
  const std::string stem = file_stem(id);
  const std::pair<const char*, const Image*> files[] = {
      {"actual", set.actual}, {"expected", set.expected}, {"diff", set.diff}, {"ssim-map", set.ssim_map}};
  for (const auto& [suffix, image] : files) {
    if (image == nullptr) continue;
    std::filesystem::path file = dir / fmt::format("{}-{}.png", stem, suffix);
    if (auto status = write_png(file, *image); !status) return std::unexpected(status.error());
    written.push_back(std::move(file));
  }
  return written;
}

Outcome pixel_outcome(scenario::CheckId id, std::string text, const SourceLocation& where) {
  Outcome outcome;
  outcome.id = id;
  outcome.text = std::move(text);
  outcome.where = where;
  return outcome;
}

Result<Outcome> finish_failed(Outcome outcome, const std::filesystem::path& artifact_dir, const ArtifactSet& set) {
  auto artifacts = write_artifacts(artifact_dir, outcome.id.str(), set);
  if (!artifacts) return std::unexpected(artifacts.error());
  outcome.artifacts = std::move(*artifacts);
  return outcome;
}

Result<Outcome> check_probe(const scenario::ProbeCheck& check, const Image& actual,
                            const std::filesystem::path& artifact_dir, scenario::CheckId id) {
  if (check.x < 0 || check.y < 0 || check.x >= actual.width || check.y >= actual.height) {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: probe ({},{}) lies outside the {}x{} image", format_location(check.where), check.x,
                            check.y, actual.width, actual.height));
  }
  Outcome outcome = pixel_outcome(
      id, fmt::format("probe ({},{}) is {} within {}", check.x, check.y, format_rgba(check.rgba), check.tolerance),
      check.where);
  const Rgba read = actual.at(check.x, check.y);
  const int delta = channel_delta(read, check.rgba);
  outcome.passed = delta <= check.tolerance;
  outcome.detail =
      fmt::format("({},{}): read {}, wanted {}", check.x, check.y, format_rgba(read), format_rgba(check.rgba));
  if (outcome.passed) return outcome;

  outcome.detail += fmt::format(", off by {} > tolerance {}", delta, check.tolerance);
  Image expected = actual;
  expected.set(check.x, check.y, check.rgba);
  auto compared = compare_images(actual, expected, check.tolerance);
  if (!compared) return std::unexpected(compared.error());
  return finish_failed(std::move(outcome), artifact_dir, {&actual, &expected, &compared->diff});
}

Result<Outcome> check_bands(const scenario::BandsCheck& check, const Image& actual,
                            const std::filesystem::path& artifact_dir, scenario::CheckId id) {
  const std::string location = format_location(check.where);
  if (check.count <= 0 || check.count > actual.width) {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: {} bands do not fit a {}-pixel-wide image", location, check.count, actual.width));
  }
  if (!check.palette && check.colors.size() != static_cast<size_t>(check.count)) {
    return fail(ErrorKind::BadInput,
                fmt::format("{}: {} bands but {} colours", location, check.count, check.colors.size()));
  }
  Outcome outcome = pixel_outcome(id,
                                  fmt::format("{} bands of {} within {}", check.count,
                                              check.palette ? "palette colours" : "listed colours", check.tolerance),
                                  check.where);

  Image expected = make_image(actual.width, actual.height, {0, 0, 0, 255});
  int bad_bands = 0;
  std::string first_bad;
  for (int band = 0; band < check.count; ++band) {
    const Rgba wanted = check.palette ? palette_color(band) : check.colors[static_cast<size_t>(band)];
    const int begin = static_cast<int>(int64_t{band} * actual.width / check.count);
    const int end = static_cast<int>(int64_t{band + 1} * actual.width / check.count);
    int64_t off = 0;
    std::optional<std::pair<int, int>> first_off;
    for (int y = 0; y < actual.height; ++y) {
      for (int x = begin; x < end; ++x) {
        expected.set(x, y, wanted);
        if (channel_delta(actual.at(x, y), wanted) <= check.tolerance) continue;
        ++off;
        if (!first_off) first_off = {x, y};
      }
    }
    if (off == 0) continue;
    if (++bad_bands > 1) continue;
    const auto [x, y] = *first_off;
    first_bad =
        fmt::format("band {} of {}: {} of {} pixels off, first at ({},{}): read {}, wanted {}", band, check.count, off,
                    int64_t{end - begin} * actual.height, x, y, format_rgba(actual.at(x, y)), format_rgba(wanted));
  }

  outcome.passed = bad_bands == 0;
  if (outcome.passed) {
    outcome.detail = fmt::format("all {} bands match", check.count);
    return outcome;
  }
  outcome.detail =
      bad_bands == 1 ? first_bad : fmt::format("{} of {} bands off, first {}", bad_bands, check.count, first_bad);
  auto compared = compare_images(actual, expected, check.tolerance);
  if (!compared) return std::unexpected(compared.error());
  return finish_failed(std::move(outcome), artifact_dir, {&actual, &expected, &compared->diff});
}

Result<Outcome> check_golden(const scenario::GoldenCheck& check, const Image& actual,
                             const std::filesystem::path& artifact_dir, scenario::CheckId id) {
  const std::string location = format_location(check.where);
  std::string text = fmt::format("matches golden {}", check.file.filename().string());
  if (check.per_pixel) text += fmt::format(" within {}, at most {} pixels off", check.tolerance, check.max_mismatch);
  if (check.ssim) text += fmt::format("{} SSIM >= {}", check.per_pixel ? " and" : " with", *check.ssim);
  Outcome outcome = pixel_outcome(id, std::move(text), check.where);

  std::error_code error;  // when existence cannot be told, read_png reports why
  if (!std::filesystem::exists(check.file, error) && !error) {
    std::string hint = "no artifact folder was given to write the actual image into";
    auto written = write_artifacts(artifact_dir, outcome.id.str(), {&actual, nullptr, nullptr});
    if (!written) {
      hint = fmt::format("writing the actual image failed too: {}", written.error().message);
    } else if (!written->empty()) {
      hint = fmt::format("the actual image is at {}; copy it there to adopt it", written->front().string());
    }
    return fail(ErrorKind::Io,
                fmt::format("{}: golden image {} does not exist; {}", location, check.file.string(), hint));
  }
  // The size first, from the header alone: a golden of another size is red without a pixel of
  // it decoded (a small file may claim a huge image).
  auto size = read_png_size(check.file);
  if (!size) return fail(size.error().kind, fmt::format("{}: {}", location, size.error().message));
  if (size->width != actual.width || size->height != actual.height) {
    outcome.passed = false;
    outcome.detail = fmt::format("image is {}x{}, golden {} is {}x{}", actual.width, actual.height, check.file.string(),
                                 size->width, size->height);
    return finish_failed(std::move(outcome), artifact_dir, {&actual, nullptr, nullptr});
  }
  auto golden = read_png(check.file);
  if (!golden) {
    return fail(golden.error().kind, fmt::format("{}: {}", location, golden.error().message));
  }

  auto compared = compare_images(actual, *golden, check.tolerance);
  if (!compared) return std::unexpected(compared.error());
  const int64_t total = int64_t{actual.width} * actual.height;
  outcome.passed = true;
  std::vector<std::string> details;
  if (check.per_pixel) {
    outcome.passed = compared->mismatched <= check.max_mismatch;
    std::string detail =
        fmt::format("{} of {} pixels off (allowed {})", compared->mismatched, total, check.max_mismatch);
    if (compared->first_mismatch) {
      const auto [x, y] = *compared->first_mismatch;
      detail += fmt::format(", first at ({},{}): read {}, wanted {}, largest channel delta {}", x, y,
                            format_rgba(actual.at(x, y)), format_rgba(golden->at(x, y)), compared->max_channel_delta);
    }
    details.push_back(std::move(detail));
  }
  std::optional<Ssim> similarity;
  if (check.ssim) {
    auto measured = structural_similarity(actual, *golden);
    if (!measured) return fail(ErrorKind::BadInput, fmt::format("{}: {}", location, measured.error().message));
    const bool similar = measured->mean >= *check.ssim;
    outcome.passed = outcome.passed && similar;
    details.push_back(fmt::format("SSIM {:.6f} {} {} (lowest {:.4f} at ({},{}))", measured->mean, similar ? ">=" : "<",
                                  *check.ssim, measured->lowest, measured->lowest_at.first,
                                  measured->lowest_at.second));
    similarity = std::move(*measured);
  }
  outcome.detail = fmt::format("{}", fmt::join(details, "; "));
  if (outcome.passed) return outcome;
  return finish_failed(std::move(outcome), artifact_dir,
                       {&actual, &*golden, &compared->diff, similarity ? &similarity->map : nullptr});
}

}  // namespace

Result<Outcome> check_gauge(const scenario::GaugeCheck& check, const Values& values, scenario::CheckId id) {
  const std::string location = format_location(check.where);
  const Expression& expr = check.expr;
  if (!expr.is_comparison()) {
    return fail(ErrorKind::BadInput, fmt::format("{}: gauge check `{}` is not a comparison", location, expr.text()));
  }
  for (const std::string& name : expr.identifiers()) {
    if (!values.contains(name)) {
      return fail(ErrorKind::BadInput, fmt::format("{}: unknown gauge or knob `{}` in `{}`; known: {}", location, name,
                                                   expr.text(), join_names(values)));
    }
  }
  const Lookup lookup = [&values](std::string_view name) -> std::optional<int64_t> {
    const auto found = values.find(std::string(name));
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
  auto comparison = expr.compare(lookup);
  if (!comparison) {
    return fail(comparison.error().kind, fmt::format("{}: {}", location, comparison.error().message));
  }

  Outcome outcome;
  outcome.id = id;
  outcome.text = expr.text();
  outcome.where = check.where;
  outcome.passed = comparison->holds;
  const std::string left = describe_side(comparison->left_text, comparison->left);
  const std::string right = describe_side(comparison->right_text, comparison->right);
  if (outcome.passed) {
    outcome.detail = fmt::format("{} ({} {})", left, comparison->op, right);
  } else if (comparison->op == "<=") {
    outcome.detail = fmt::format("{}, bound {}", left, right);
  } else {
    outcome.detail = fmt::format("{}, expected {} {}", left, comparison->op, right);
  }
  return outcome;
}

Result<Outcome> check_pixels(const scenario::PixelCheck& check, const Image& actual,
                             const std::filesystem::path& artifact_dir, scenario::CheckId id) {
  return std::visit(
      [&](const auto& typed) -> Result<Outcome> {
        using Check = std::decay_t<decltype(typed)>;
        if constexpr (std::is_same_v<Check, scenario::ProbeCheck>) {
          return check_probe(typed, actual, artifact_dir, id);
        } else if constexpr (std::is_same_v<Check, scenario::BandsCheck>) {
          return check_bands(typed, actual, artifact_dir, id);
        } else {
          static_assert(std::is_same_v<Check, scenario::GoldenCheck>, "every PixelCheck has its evaluator");
          return check_golden(typed, actual, artifact_dir, id);
        }
      },
      check);
}

Result<CompareResult> compare_images(const Image& actual, const Image& expected, int tolerance) {
  if (actual.width != expected.width || actual.height != expected.height) {
    return fail(ErrorKind::BadInput, fmt::format("image sizes differ: actual {}x{}, expected {}x{}", actual.width,
                                                 actual.height, expected.width, expected.height));
  }
  if (tolerance < 0) {
    return fail(ErrorKind::BadInput, fmt::format("negative tolerance {}", tolerance));
  }
  CompareResult result;
  result.diff = make_image(actual.width, actual.height, {0, 0, 0, 255});
  for (int y = 0; y < actual.height; ++y) {
    for (int x = 0; x < actual.width; ++x) {
      const Rgba read = actual.at(x, y);
      const int delta = channel_delta(read, expected.at(x, y));
      result.max_channel_delta = std::max(result.max_channel_delta, delta);
      if (delta > tolerance) {
        ++result.mismatched;
        if (!result.first_mismatch) result.first_mismatch = {x, y};
        result.diff.set(x, y, {255, 0, 255, 255});
        continue;
      }
      // Rec. 601 luma weights in 1/256ths.
      const int luma = (77 * read[0] + 150 * read[1] + 29 * read[2]) >> 8;
      const auto dimmed = static_cast<uint8_t>(luma / 3);
      result.diff.set(x, y, {dimmed, dimmed, dimmed, 255});
    }
  }
  return result;
}

}  // namespace tidemark::check
