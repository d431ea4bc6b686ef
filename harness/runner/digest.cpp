#include "runner/digest.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/digest.h"
#include "core/gauges.h"

namespace tidemark::runner {

namespace {

// All the gauges a run read, in the order it read them: the backend's, then the kernel
// model's when the scenario uses it (a replay digests its gauge replies in the same order).
std::vector<std::pair<std::string, int64_t>> all_gauges(const Gauges& gauges, const std::optional<KernelGauges>& kernel) {
  auto out = named(gauges);
  if (kernel) {
    auto more = named(*kernel);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace

std::string pixel_hash(const Image& image) {
  return tidemark::pixel_hash(image.width, image.height, image.pixels);
}

std::string run_digest(const check::ReadBack& run) {
  return tidemark::run_digest(all_gauges(run.gauges, run.kernel_gauges), pixel_hash(run.image), trace_hash(run.trace));
}

}  // namespace tidemark::runner
