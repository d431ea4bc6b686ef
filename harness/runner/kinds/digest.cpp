#include "runner/kinds/digest.h"

#include "core/digest.h"
#include "core/gauges.h"

namespace tidemark::runner {

std::string pixel_hash(const Image& image) { return tidemark::pixel_hash(image.width, image.height, image.pixels); }

std::string run_digest(const check::ReadBack& run) {
  RunDigestInputs inputs;
  inputs.add_gauges(GaugeSource::Backend, named(run.gauges));
  if (run.kernel_gauges) inputs.add_gauges(GaugeSource::KernelModel, named(*run.kernel_gauges));
  if (run.observed_gauges) inputs.add_gauges(GaugeSource::Layer, named(*run.observed_gauges));
  if (run.wire_gauges) inputs.add_gauges(GaugeSource::Wire, *run.wire_gauges);
  inputs.set_pixel_hash(pixel_hash(run.image));
  inputs.set_trace_hash(trace_hash(run.trace));
  return inputs.digest();
}

}  // namespace tidemark::runner
