// Soak figures: the memory of the client and the server sampled every N calls of a long
// workload, in one lane. Peaks, and the slope after warm-up (least squares), which must be flat
// within a stated bound: growth per call that never stops is a leak however small the run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/process_memory.h"
#include "report/plot.h"
#include "runner/runner.h"

namespace tidemark::runner {

struct SoakSample {
  uint64_t calls = 0;
  double seconds = 0;  // since the run started
  ProcessMemory client;
  ProcessMemory server;  // the same process in the monolith and split lanes
  // The client's malloc heap (mallinfo2): what the allocator holds from the system and what is
  // in use. RSS growing with both flat is memory outside malloc; with only the first, fragmentation.
  int64_t heap_held_kib = 0, heap_used_kib = 0;
};

struct SoakLane {
  std::string lane;
  bool separate_server = false;
  std::vector<SoakSample> samples;
  RunResult result;
};

struct Slope {
  double per_million_calls = 0;  // least squares over the samples after warm-up
  size_t samples = 0;            // how many it was fitted on
};

// The first `warm_up` fraction of the samples is left out: start-up growth (pools, caches,
// arenas reaching their size) is not a trend.
inline constexpr double kWarmUpFraction = 0.2;
Slope fit_slope(const std::vector<SoakSample>& samples, int64_t (*value)(const SoakSample&));

struct SoakFigures {
  int64_t client_rss_peak_kib = 0, client_maps_peak = 0;
  int64_t server_rss_peak_kib = 0, server_maps_peak = 0;
  Slope client_rss, client_maps, server_rss, server_maps;  // KiB or mappings per million calls
  Slope heap_held, heap_used;                              // the client's malloc heap, KiB
  int64_t live_stores_peak = 0, parked_bytes_peak = 0;    // from the run's trace
  std::vector<report::PlotSeries> store_series;                    // those two tracks over virtual time
  double seconds = 0;
  uint64_t calls = 0;
};

// Live stores and parked bytes come from the run's trace.pftrace, read once here.
SoakFigures soak_figures(const SoakLane& lane);

// soak.json (every sample, the figures, the bounds) and soak.html (a table and the series as
// plots: RSS and mappings of each process over calls, live stores and parked bytes over time).
Status write_soak_report(const std::vector<SoakLane>& lanes, const std::vector<SoakFigures>& figures,
                         const std::filesystem::path& dir, double max_rss_slope_kib, double max_maps_slope);

}  // namespace tidemark::runner
