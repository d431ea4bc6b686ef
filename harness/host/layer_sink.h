// The layer's reports applied to a model host: a session with the layer on (the layer calls
// the sink as things happen), and the one translation of a layer's memory change into the
// host's, which `tidemark observe` uses too as it replays each process's recorded events.
#pragma once

#include "host/model_host.h"
#include "layer/tidemark_layer.h"

namespace tidemark::host {

// A backend that reports itself gets only the trace samples from the layer (the layer counts
// beneath it); for one that does not, the layer's memory changes and submits are the device's
// report, and its waits ask the host's kernel driver.
TidemarkLayerSink layer_sink(HostEvents& host, bool backend_reports_itself);

api::MemoryChange memory_change(const TidemarkLayerMemoryChange& change);

}  // namespace tidemark::host
