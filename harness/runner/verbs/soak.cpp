#include "runner/verbs/soak.h"

#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>

#include "core/process_memory.h"
#include "tracer/importer.h"

namespace tidemark::runner {

using report::PlotSeries;
using report::SoakSample;

namespace {

int64_t client_rss(const SoakSample& s) { return s.client.rss_kib; }
int64_t client_maps(const SoakSample& s) { return s.client.mappings; }
int64_t server_rss(const SoakSample& s) { return s.server.rss_kib; }
int64_t server_maps(const SoakSample& s) { return s.server.mappings; }
int64_t heap_held(const SoakSample& s) { return s.heap_held_kib; }
int64_t heap_used(const SoakSample& s) { return s.heap_used_kib; }

int64_t peak(const std::vector<SoakSample>& samples, int64_t (*value)(const SoakSample&)) {
  int64_t high = 0;
  for (const auto& s : samples) high = std::max(high, value(s));
  return high;
}

int64_t series_peak(const PlotSeries& series) {
  double high = 0;
  for (const auto& [x, y] : series.points) high = std::max(high, y);
  return static_cast<int64_t>(high);
}

// The run's trace.pftrace (empty when the run wrote no report).
std::string run_trace(const report::RunRecord& result) {
  std::ifstream in(std::filesystem::path(result.dir) / "trace.pftrace", std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// One sample of this process (the client) and the lane's server (this process again in the
// monolith and split lanes).
Result<SoakSample> sample_now(uint64_t calls, double seconds, int64_t server_pid) {
  SoakSample sample;
  sample.calls = calls;
  sample.seconds = seconds;
  TIDEMARK_TRY(client, process_memory(getpid()));
  TIDEMARK_TRY(server, process_memory(server_pid > 0 ? server_pid : getpid()));
  sample.client = client;
  sample.server = server;
  struct mallinfo2 heap = mallinfo2();
  sample.heap_held_kib = static_cast<int64_t>((heap.arena + heap.hblkhd) / 1024);
  sample.heap_used_kib = static_cast<int64_t>((heap.uordblks + heap.hblkhd) / 1024);
  return sample;
}

}  // namespace

report::Slope fit_slope(const std::vector<SoakSample>& samples, int64_t (*value)(const SoakSample&)) {
  size_t first = static_cast<size_t>(static_cast<double>(samples.size()) * kWarmUpFraction);
  size_t n = samples.size() - first;
  if (n < 2) return {0, n};
  double mean_x = 0, mean_y = 0;
  for (size_t i = first; i < samples.size(); ++i) {
    mean_x += static_cast<double>(samples[i].calls);
    mean_y += static_cast<double>(value(samples[i]));
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double covariance = 0, variance = 0;
  for (size_t i = first; i < samples.size(); ++i) {
    double dx = static_cast<double>(samples[i].calls) - mean_x;
    covariance += dx * (static_cast<double>(value(samples[i])) - mean_y);
    variance += dx * dx;
  }
  return {variance > 0 ? covariance / variance * 1e6 : 0, n};
}

report::SoakLaneReport soak_lane_report(std::string lane, bool separate_server, std::vector<SoakSample> samples,
                                        const report::RunRecord& result, double max_rss_slope_kib,
                                        double max_maps_slope) {
  report::SoakLaneReport f;
  f.lane = std::move(lane);
  f.separate_server = separate_server;
  f.verdict = result.verdict;
  f.digest = result.digest;
  f.client_rss_peak_kib = peak(samples, client_rss);
  f.client_maps_peak = peak(samples, client_maps);
  f.server_rss_peak_kib = peak(samples, server_rss);
  f.server_maps_peak = peak(samples, server_maps);
  f.client_rss = fit_slope(samples, client_rss);
  f.client_maps = fit_slope(samples, client_maps);
  f.server_rss = fit_slope(samples, server_rss);
  f.server_maps = fit_slope(samples, server_maps);
  f.heap_held = fit_slope(samples, heap_held);
  f.heap_used = fit_slope(samples, heap_used);
  f.flat = f.client_rss.per_million_calls <= max_rss_slope_kib && f.server_rss.per_million_calls <= max_rss_slope_kib &&
           f.client_maps.per_million_calls <= max_maps_slope && f.server_maps.per_million_calls <= max_maps_slope;
  tracer::ImportedTrace trace = tracer::import_trace(run_trace(result));
  for (const char* label : {"Live stores (gpu 0)", "Parked bytes (gpu 0)"}) {
    PlotSeries s{std::string(label) + " over virtual time", {}, static_cast<double>(trace.end_ts)};
    if (const tracer::Track* track = trace.find(label))
      for (const auto& row : track->rows) s.points.emplace_back(static_cast<double>(row.ts), row.value);
    f.store_series.push_back(std::move(s));
  }
  f.live_stores_peak = series_peak(f.store_series[0]);
  f.parked_bytes_peak = series_peak(f.store_series[1]);
  f.seconds = result.seconds;
  f.calls = samples.empty() ? 0 : samples.back().calls;
  f.samples = std::move(samples);
  return f;
}

Result<report::SoakReport> soak(const scenario::Scenario& scenario, const SoakOptions& options) {
  if (options.every == 0) return fail(ErrorKind::BadInput, "--every: expected a positive call count, found 0");
  std::vector<Lane> lanes = options.lanes;
  if (lanes.empty()) lanes.assign(std::begin(kAllLanes), std::end(kAllLanes));
  report::SoakReport soaked{options.max_rss_slope_kib, options.max_maps_slope, kWarmUpFraction, {}};
  for (Lane lane : lanes) {
    std::vector<SoakSample> samples;
    std::optional<Error> sampling;
    const auto started = std::chrono::steady_clock::now();
    RunOptions run_options;
    run_options.report_dir = options.report_dir;
    run_options.column.lane.lane = lane;
    run_options.probe_every = options.every;
    run_options.probe = [&](uint64_t calls, const LaneTraffic& report) {
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      auto sample = sample_now(calls, seconds, report.server_pid);
      if (!sample) {
        if (!sampling) sampling = sample.error();
        return;
      }
      samples.push_back(*sample);
      if (options.on_sample) options.on_sample(lane, calls);
    };
    TIDEMARK_TRY(result, run(scenario, run_options));
    if (sampling) return std::unexpected(*sampling);
    const bool separate_server = lane == Lane::Spawn || lane == Lane::Tcp;
    soaked.lanes.push_back(soak_lane_report(std::string(lane_name(lane)), separate_server, std::move(samples), result,
                                            options.max_rss_slope_kib, options.max_maps_slope));
    if (options.on_lane) options.on_lane(soaked.lanes.back());
  }
  TIDEMARK_CHECK(report::write_soak_report(options.report_dir, soaked));
  return soaked;
}

}  // namespace tidemark::runner
