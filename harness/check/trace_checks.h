// Checks over the run's trace as the importer sees it: one track's rows, and the
// reconciliation of three accounts of the scenario pid's GPU memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "check/check.h"
#include "core/gauges.h"
#include "scenario/scenario.h"
#include "tracer/importer.h"

namespace tidemark::check {

// A track of the trace: its rows, count and last value, unit and flag, with the first
// difference named (row index, timestamp and value on both sides).
Outcome check_trace(const scenario::TraceCheck& check, const tracer::ImportedTrace& trace, size_t index);

// The backend's own counter tracks the reconciliation samples its points from, by label.
struct CounterTracks {
  std::string_view device_bytes;  // the backend's device bytes: its points
  std::string_view map_entry;     // the kernel map's entry for the pid, sampled with them
  // True: the device bytes hold the render target too (a real driver's, counted by the layer);
  // false: the target is the backend's besides them (width x height x 4).
  bool target_in_device_bytes = false;
};

// Three accounts of the scenario pid's GPU memory must agree at every point the backend sampled
// its device bytes and at the end: the backend's (device bytes, with the render target), the
// kernel map's entry, and the pid's GPU Memory track as imported. `gauges` and `kernel` are the
// run's end-of-run gauges (no kernel gauges: the map entry reads 0).
Outcome check_reconcile(const scenario::Scenario& scenario, const Gauges& gauges,
                        const std::optional<KernelGauges>& kernel, const tracer::ImportedTrace& trace,
                        const CounterTracks& tracks);

}  // namespace tidemark::check
