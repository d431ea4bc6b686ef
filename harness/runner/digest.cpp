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
// model's when the scenario uses it, the layer's when it runs with it (a replay digests its
// gauge replies in the same order).
std::vector<std::pair<std::string, int64_t>> all_gauges(const check::ReadBack& run) {
  auto out = named(run.gauges);
  auto append = [&out](const auto& more) { out.insert(out.end(), more.begin(), more.end()); };
  if (run.kernel_gauges) append(named(*run.kernel_gauges));
  if (run.observed_gauges) append(named(*run.observed_gauges));
  return out;
}

}  // namespace

std::string pixel_hash(const Image& image) {
  return tidemark::pixel_hash(image.width, image.height, image.pixels);
}

std::string run_digest(const check::ReadBack& run) {
  return tidemark::run_digest(all_gauges(run), pixel_hash(run.image), trace_hash(run.trace));
}

}  // namespace tidemark::runner
