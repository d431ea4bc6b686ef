// Written here rather than taken from a library: the one packaged C++ SSIM, OpenCV contrib's
// quality module (libopencv-contrib-dev), averages the whole map, border included, where
// scikit-image (the reference the source report's figures come from) crops half a window; on
// images of a few dozen pixels that moves the value far beyond 1e-4. It is 80 lines, and the
// tests hold it to scikit-image's values on committed pairs.
#include "check/ssim.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace tidemark::check {

namespace {

constexpr double kSigma = 1.5;
constexpr int kRadius = kSsimWindow / 2;  // int(3.5 * sigma + 0.5), as scipy.ndimage truncates

// scipy.ndimage's 1-D Gaussian: exp(-x^2 / 2 sigma^2) over [-r, r], summing to 1.
std::array<double, kSsimWindow> gaussian_weights() {
  std::array<double, kSsimWindow> weights{};
  double sum = 0;
  for (int k = -kRadius; k <= kRadius; ++k) sum += weights[k + kRadius] = std::exp(-0.5 * k * k / (kSigma * kSigma));
  for (double& weight : weights) weight /= sum;
  return weights;
}

// scipy.ndimage's "reflect": d c b a | a b c d | d c b a.
int reflect(int index, int size) {
  while (index < 0 || index >= size) index = index < 0 ? -index - 1 : 2 * size - index - 1;
  return index;
}

using Plane = std::vector<double>;

// A band of rows at a time, so a 4096 x 4096 comparison holds a few megabytes of planes rather
// than thirteen whole-image planes of doubles (1.7 GB). Each value is the same sum in the same
// order as over the whole image: the band carries kRadius rows of context on each side.
constexpr int kBandRows = 128;

// Rows [first, last) of the separable filter (rows then columns; scipy filters axis 0, then axis 1:
// the same sums in another order, equal to far below 1e-4) of `in`, which holds the image's rows
// [lo, lo + in.size() / width): every row the window reaches from the band, reflected or not.
// `across` and `out` are the caller's, kept from band to band: a fresh plane per call cost a page
// fault and a clear per page, two thirds of a 4096 x 4096 comparison.
void blur(const Plane& in, int width, int height, int lo, int first, int last, Plane& across, Plane& out) {
  static const auto weights = gaussian_weights();
  const int rows = static_cast<int>(in.size() / width);
  across.resize(in.size());
  out.resize(static_cast<size_t>(last - first) * width);
  auto horizontal = [&](const double* row, int x) {
    double sum = 0;
    for (int k = -kRadius; k <= kRadius; ++k) sum += weights[k + kRadius] * row[reflect(x + k, width)];
    return sum;
  };
  for (int y = 0; y < rows; ++y) {
    const double* row = &in[static_cast<size_t>(y) * width];
    double* to = &across[static_cast<size_t>(y) * width];
    const int inner_end = std::max(kRadius, width - kRadius);
    for (int x = 0; x < std::min(kRadius, width); ++x) to[x] = horizontal(row, x);
    for (int x = kRadius; x < inner_end; ++x) {  // the window inside the row: no reflection
      double sum = 0;
      for (int k = -kRadius; k <= kRadius; ++k) sum += weights[k + kRadius] * row[x + k];
      to[x] = sum;
    }
    for (int x = inner_end; x < width; ++x) to[x] = horizontal(row, x);
  }
  std::array<const double*, kSsimWindow> taps{};
  for (int y = first; y < last; ++y) {
    for (int k = -kRadius; k <= kRadius; ++k)
      taps[k + kRadius] = &across[static_cast<size_t>(reflect(y + k, height) - lo) * width];
    double* to = &out[static_cast<size_t>(y - first) * width];
    for (int x = 0; x < width; ++x) {
      double sum = 0;
      for (int k = 0; k < kSsimWindow; ++k) sum += weights[k] * taps[k][x];
      to[x] = sum;
    }
  }
}

}  // namespace

Result<Ssim> structural_similarity(const Image& a, const Image& b) {
  if (a.width != b.width || a.height != b.height)
    return fail(ErrorKind::BadInput, fmt::format("SSIM: expected images of one size, found {}x{} and {}x{}", a.width,
                                                 a.height, b.width, b.height));
  if (a.width < kSsimWindow || a.height < kSsimWindow)
    return fail(ErrorKind::BadInput,
                fmt::format("SSIM: expected an image of at least {0}x{0} (its window), found {1}x{2}", kSsimWindow,
                            a.width, a.height));
  const int width = a.width, height = a.height;
  constexpr double kC1 = (0.01 * 255) * (0.01 * 255), kC2 = (0.03 * 255) * (0.03 * 255);
  Ssim result;
  result.map = make_image(width, height, {0, 0, 0, 255});
  result.lowest = std::numeric_limits<double>::infinity();  // the cropped area is never empty (>= 11x11)
  std::array<double, 3> sums{};
  auto inside = [&](int row, int column) {
    return row >= kRadius && row < height - kRadius && column >= kRadius && column < width - kRadius;
  };
  Plane map, x, y, xx, yy, xy, across, ux, uy, uxx, uyy, uxy;  // one set for every band
  for (int first = 0; first < height; first += kBandRows) {
    const int last = std::min(height, first + kBandRows);
    const int lo = std::max(0, first - kRadius), hi = std::min(height, last + kRadius);
    const size_t count = static_cast<size_t>(hi - lo) * width, band = static_cast<size_t>(last - first) * width;
    const size_t offset = static_cast<size_t>(lo) * width;
    map.assign(band, 0.0);
    for (int channel = 0; channel < 3; ++channel) {
      x.resize(count), y.resize(count), xx.resize(count), yy.resize(count), xy.resize(count);
      for (size_t k = 0; k < count; ++k) {
        x[k] = a.pixels[(offset + k) * 4 + channel];
        y[k] = b.pixels[(offset + k) * 4 + channel];
        xx[k] = x[k] * x[k], yy[k] = y[k] * y[k], xy[k] = x[k] * y[k];
      }
      blur(x, width, height, lo, first, last, across, ux), blur(y, width, height, lo, first, last, across, uy);
      blur(xx, width, height, lo, first, last, across, uxx), blur(yy, width, height, lo, first, last, across, uyy);
      blur(xy, width, height, lo, first, last, across, uxy);
      for (int row = first; row < last; ++row)
        for (int column = 0; column < width; ++column) {
          const size_t k = static_cast<size_t>(row - first) * width + column;
          const double vx = uxx[k] - ux[k] * ux[k], vy = uyy[k] - uy[k] * uy[k], vxy = uxy[k] - ux[k] * uy[k];
          const double s =
              ((2 * ux[k] * uy[k] + kC1) * (2 * vxy + kC2)) / ((ux[k] * ux[k] + uy[k] * uy[k] + kC1) * (vx + vy + kC2));
          map[k] += s / 3;
          if (inside(row, column)) sums[channel] += s;
        }
    }
    for (int row = first; row < last; ++row)
      for (int column = 0; column < width; ++column) {
        const double s = map[static_cast<size_t>(row - first) * width + column];
        const auto grey = static_cast<uint8_t>(std::lround(std::clamp(s, 0.0, 1.0) * 255));
        result.map.set(column, row, {grey, grey, grey, 255});
        if (inside(row, column) && s < result.lowest) result.lowest = s, result.lowest_at = {column, row};
      }
  }
  const double area = static_cast<double>(width - 2 * kRadius) * (height - 2 * kRadius);
  for (double sum : sums) result.mean += sum / area / 3;
  return result;
}

}  // namespace tidemark::check
