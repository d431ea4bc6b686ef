#include "host/layer_sink.h"

#include "layer/link.h"

namespace tidemark::host {

namespace {

HostEvents& host_of(void* context) { return *static_cast<HostEvents*>(context); }

}  // namespace

TidemarkLayerSink layer_sink(HostEvents& host, bool backend_reports_itself) {
  TidemarkLayerSink sink{};
  sink.context = &host;
  sink.sample = [](void* context, const TidemarkLayerGauges* gauges) {
    host_of(context).observed_sample(layer::to_observed(*gauges));
  };
  if (backend_reports_itself) return sink;
  sink.memory_changed = [](void* context, const TidemarkLayerMemoryChange* change) {
    host_of(context).memory_changed(memory_change(*change));
  };
  sink.queue_submitted = [](void* context) { return host_of(context).queue_submitted(); };
  sink.retired = [](void* context, uint64_t fence) -> uint32_t { return host_of(context).retired(fence); };
  sink.wait_retired = [](void* context, uint64_t fence, uint64_t budget) {
    host_of(context).wait_retired(fence, budget);
  };
  sink.kick = [](void* context) -> uint32_t { return host_of(context).kick(); };
  return sink;
}

api::MemoryChange memory_change(const TidemarkLayerMemoryChange& change) {
  return {.allocated = change.allocated != 0,
          .type = static_cast<MemoryType>(change.type),
          .id = change.id,
          .size = change.size,
          .claimed_bytes = change.reported_bytes};
}

}  // namespace tidemark::host
