#include "runner/soak.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "api/device.h"
#include "core/files.h"
#include "report/plot.h"
#include "tracer/importer.h"

namespace tidemark::runner {

using report::html_escape;
using report::PlotSeries;
using report::step_plot;

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
std::string run_trace(const RunResult& result) {
  std::ifstream in(result.report_dir / "trace.pftrace", std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

nlohmann::json slope_json(const Slope& slope) {
  return {{"per_million_calls", slope.per_million_calls}, {"samples", slope.samples}};
}

}  // namespace

Slope fit_slope(const std::vector<SoakSample>& samples, int64_t (*value)(const SoakSample&)) {
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

SoakFigures soak_figures(const SoakLane& lane) {
  SoakFigures f;
  f.client_rss_peak_kib = peak(lane.samples, client_rss);
  f.client_maps_peak = peak(lane.samples, client_maps);
  f.server_rss_peak_kib = peak(lane.samples, server_rss);
  f.server_maps_peak = peak(lane.samples, server_maps);
  f.client_rss = fit_slope(lane.samples, client_rss);
  f.client_maps = fit_slope(lane.samples, client_maps);
  f.server_rss = fit_slope(lane.samples, server_rss);
  f.server_maps = fit_slope(lane.samples, server_maps);
  f.heap_held = fit_slope(lane.samples, heap_held);
  f.heap_used = fit_slope(lane.samples, heap_used);
  tracer::ImportedTrace trace = tracer::import_trace(run_trace(lane.result));
  for (const char* label : {"Live stores (gpu 0)", "Parked bytes (gpu 0)"}) {
    PlotSeries s{std::string(label) + " over virtual time", {}, static_cast<double>(trace.end_ts)};
    if (const tracer::Track* track = trace.find(label))
      for (const auto& row : track->rows) s.points.emplace_back(static_cast<double>(row.ts), row.value);
    f.store_series.push_back(std::move(s));
  }
  f.live_stores_peak = series_peak(f.store_series[0]);
  f.parked_bytes_peak = series_peak(f.store_series[1]);
  f.seconds = lane.result.seconds;
  f.calls = lane.samples.empty() ? 0 : lane.samples.back().calls;
  return f;
}

Status write_soak_report(const std::vector<SoakLane>& lanes, const std::vector<SoakFigures>& figures,
                         const std::filesystem::path& dir, double max_rss_slope_kib, double max_maps_slope) {
  nlohmann::json json = {{"max_rss_slope_kib_per_million_calls", max_rss_slope_kib},
                         {"max_maps_slope_per_million_calls", max_maps_slope},
                         {"warm_up_fraction", kWarmUpFraction},
                         {"lanes", nlohmann::json::array()}};
  std::string rows, plots;
  for (size_t k = 0; k < lanes.size(); ++k) {
    const SoakLane& lane = lanes[k];
    const SoakFigures& f = figures[k];
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : lane.samples)
      samples.push_back({s.calls, s.seconds, s.client.rss_kib, s.client.mappings, s.server.rss_kib, s.server.mappings,
                         s.heap_held_kib, s.heap_used_kib});
    json["lanes"].push_back({{"lane", lane.lane},
                             {"separate_server", lane.separate_server},
                             {"green", lane.result.passed()},
                             {"digest", lane.result.digest},
                             {"calls", f.calls},
                             {"seconds", f.seconds},
                             {"client", {{"rss_peak_kib", f.client_rss_peak_kib},
                                         {"maps_peak", f.client_maps_peak},
                                         {"rss_slope_kib", slope_json(f.client_rss)},
                                         {"maps_slope", slope_json(f.client_maps)},
                                         {"heap_held_slope_kib", slope_json(f.heap_held)},
                                         {"heap_used_slope_kib", slope_json(f.heap_used)}}},
                             {"server", {{"rss_peak_kib", f.server_rss_peak_kib},
                                         {"maps_peak", f.server_maps_peak},
                                         {"rss_slope_kib", slope_json(f.server_rss)},
                                         {"maps_slope", slope_json(f.server_maps)}}},
                             {"live_stores_peak", f.live_stores_peak},
                             {"parked_bytes_peak", f.parked_bytes_peak},
                             {"sample_columns", {"calls", "seconds", "client_rss_kib", "client_maps",
                                                 "server_rss_kib", "server_maps", "client_heap_held_kib",
                                                 "client_heap_used_kib"}},
                             {"samples", samples}});
    rows += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td><td>{}</td><td>{:+.0f}</td><td>{:+.1f}</td>"
        "<td>{}</td><td>{}</td><td>{:+.0f}</td><td>{:+.1f}</td><td>{}</td><td>{}</td></tr>\n",
        lane.lane, f.calls, f.seconds, f.client_rss_peak_kib / 1024, f.client_maps_peak, f.client_rss.per_million_calls,
        f.client_maps.per_million_calls, lane.separate_server ? fmt::format("{}", f.server_rss_peak_kib / 1024) : "(client)",
        lane.separate_server ? fmt::format("{}", f.server_maps_peak) : "(client)", f.server_rss.per_million_calls,
        f.server_maps.per_million_calls, f.live_stores_peak, f.parked_bytes_peak);
    auto series = [&](std::string label, int64_t (*value)(const SoakSample&)) {
      PlotSeries s{std::move(label), {}, static_cast<double>(f.calls)};
      for (const auto& sample : lane.samples) s.points.emplace_back(static_cast<double>(sample.calls), value(sample));
      return s;
    };
    std::vector<PlotSeries> memory = {series("client RSS KiB over calls", client_rss),
                                      series("client mappings over calls", client_maps),
                                      series("client malloc heap held KiB over calls", heap_held),
                                      series("client malloc heap in use KiB over calls", heap_used)};
    if (lane.separate_server) {
      memory.push_back(series("server RSS KiB over calls", server_rss));
      memory.push_back(series("server mappings over calls", server_maps));
    }
    plots += fmt::format("<h2>{}</h2>\n{}\n{}\n", html_escape(lane.lane), step_plot(memory, {"calls", 1}),
                         step_plot(f.store_series, report::kTraceTime));
  }
  std::string html = fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tidemark soak</title>"
      "<style>body{{font-family:sans-serif}}td,th{{padding:2px 8px;text-align:right}}</style></head><body>\n"
      "<h1>Soak</h1>\n<p>Slopes are least-squares fits after the first {:.0f}% of the samples, per million "
      "calls; bounds: RSS {} KiB, mappings {}.</p>\n<table>\n<tr><th>lane</th><th>calls</th><th>s</th>"
      "<th>client peak MiB</th><th>client maps</th><th>client KiB/Mcall</th><th>client maps/Mcall</th>"
      "<th>server peak MiB</th><th>server maps</th><th>server KiB/Mcall</th><th>server maps/Mcall</th>"
      "<th>live stores peak</th><th>parked bytes peak</th></tr>\n{}</table>\n{}</body></html>\n",
      kWarmUpFraction * 100, max_rss_slope_kib, max_maps_slope, rows, plots);
  if (auto ok = write_file_atomically(dir / "soak.json", json.dump(1) + "\n"); !ok) return ok;
  return write_file_atomically(dir / "soak.html", html);
}

}  // namespace tidemark::runner
