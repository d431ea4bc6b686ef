// The structural similarity index (SSIM; Wang, Bovik, Sheikh and Simoncelli, 2004) of two
// images, the way retraces are judged: near 1 for the same picture through a slightly different
// rasteriser, far below for a different one, where a per-channel tolerance is either too strict
// or too loose. Computed as scikit-image's structural_similarity with the paper's settings
// (gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255) on the R, G
// and B channels, averaged; alpha is not compared.
#pragma once

#include <utility>

#include "core/error.h"
#include "core/image.h"

namespace tidemark::check {

// The 11x11 window: smaller images have no SSIM.
inline constexpr int kSsimWindow = 11;

struct Ssim {
  double mean = 0;                      // over the image less a border of half a window, as scikit-image crops
  Image map;                            // per pixel, the channels' mean SSIM as grey (white 1, black 0 or below)
  std::pair<int, int> lowest_at{0, 0};  // inside the cropped area
  double lowest = 1;
};

// Bad input when the sizes differ or an image is smaller than the window.
Result<Ssim> structural_similarity(const Image& a, const Image& b);

}  // namespace tidemark::check
