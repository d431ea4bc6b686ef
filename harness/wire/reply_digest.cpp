#include "wire/reply_digest.h"

namespace tidemark::wire {

std::optional<GaugeSource> gauge_source(Opcode request) {
  switch (request) {
    case Opcode::ReadGauges:
      return GaugeSource::Backend;
    case Opcode::ReadKernelGauges:
      return GaugeSource::KernelModel;
    case Opcode::ReadObservedGauges:
      return GaugeSource::Layer;
    case Opcode::ReadWireGauges:
      return GaugeSource::Wire;
    default:
      return std::nullopt;
  }
}

Result<std::string> pixels_hash(FrameView reply) {
  TIDEMARK_TRY(pixels, decode<Pixels>(reply));
  return pixel_hash(pixels.width, pixels.height, pixels.bytes);
}

void add_to_run_digest(RunDigestInputs& inputs, Opcode request, FrameView reply) {
  if (reply.op == Opcode::GaugeValues) {
    auto source = gauge_source(request);
    auto read = decode<GaugeValues>(reply);
    if (source && read) inputs.add_gauges(*source, std::move(read->values));
  } else if (reply.op == Opcode::Pixels) {
    if (auto hash = pixels_hash(reply)) inputs.set_pixel_hash(std::move(*hash));
  } else if (reply.op == Opcode::TraceHash) {
    if (auto read = decode<TraceHash>(reply)) inputs.set_trace_hash(std::move(read->hash));
  }
}

}  // namespace tidemark::wire
