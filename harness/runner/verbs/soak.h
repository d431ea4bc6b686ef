// Soak: one long workload in each lane with the client's and the server's memory sampled every N
// calls; peaks, and the slope after warm-up (least squares), which must be flat within a stated
// bound: growth per call that never stops is a leak however small the run. The figures are a
// report::SoakReport (soak.json, soak.html).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/error.h"
#include "report/soak_report.h"
#include "runner/kinds/scenario_subject.h"

namespace tidemark::runner {

// The first fraction of the samples is left out of a slope: start-up growth (pools, caches,
// arenas reaching their size) is not a trend.
inline constexpr double kWarmUpFraction = 0.2;
report::Slope fit_slope(const std::vector<report::SoakSample>& samples, int64_t (*value)(const report::SoakSample&));

// A lane's figures from its samples and its run (live stores and parked bytes come from the
// run's trace.pftrace); flat when every slope is within the bounds.
report::SoakLaneReport soak_lane_report(std::string lane, bool separate_server, std::vector<report::SoakSample> samples,
                                        const report::RunRecord& result, double max_rss_slope_kib,
                                        double max_maps_slope);

struct SoakOptions {
  std::vector<Lane> lanes;  // empty: every lane
  uint64_t every = 0;       // calls between samples, > 0
  double max_rss_slope_kib = 0, max_maps_slope = 0;
  std::filesystem::path report_dir;
  std::function<void(Lane, uint64_t calls)> on_sample;         // progress
  std::function<void(const report::SoakLaneReport&)> on_lane;  // each lane as it ends
};

// Runs the scenario in each lane, samples its memory, and writes soak.json and soak.html into
// the report folder. An error when a run cannot start or a sample cannot be read.
Result<report::SoakReport> soak(const scenario::Scenario& scenario, const SoakOptions& options);

}  // namespace tidemark::runner
