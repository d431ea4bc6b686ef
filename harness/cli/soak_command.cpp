// `tidemark soak FILE [--lane L]... [--every N] [--max-rss-slope K] [--max-maps-slope M]`: the
// library (runner/verbs/soak.h) runs the workload in each lane with its memory sampled, and writes
// soak.json and soak.html; this prints a row per lane and the verdict. Red when a run is red or
// a slope is above its bound.
#include <fmt/format.h>

#include "cli/commands.h"
#include "runner/verbs/soak.h"

namespace tidemark::cli {

namespace {

std::string lane_row(const report::SoakLaneReport& f) {
  return fmt::format(
      "{:<9} {:>9} {:>7.1f} | {:>12.1f} {:>6} {:>+10.0f} {:>+9.1f} | {:>12} {:>6} {:>+10.0f} {:>+9.1f} | {:>6} "
      "{:>10}{}",
      f.lane, f.calls, f.seconds, f.client_rss_peak_kib / 1024.0, f.client_maps_peak, f.client_rss.per_million_calls,
      f.client_maps.per_million_calls,
      f.separate_server ? fmt::format("{:.1f}", f.server_rss_peak_kib / 1024.0) : "(client)",
      f.separate_server ? fmt::format("{}", f.server_maps_peak) : "", f.server_rss.per_million_calls,
      f.server_maps.per_million_calls, f.live_stores_peak, f.parked_bytes_peak,
      !report::passes(f.verdict) ? "  RED (the run)"
      : f.flat                   ? ""
                                 : "  RED (not flat)");
}

}  // namespace

int soak_command(const SoakArgs& args) {
  auto scenarios = load_all({args.file});
  if (!scenarios) return report_error(scenarios.error());
  if (scenarios->size() != 1)
    return report_error(Error{ErrorKind::BadInput,
                              fmt::format("soak: expected one scenario file, found {} scenarios", scenarios->size())});
  runner::SoakOptions options{
      .every = args.every,
      .max_rss_slope_kib = args.max_rss_slope_kib,
      .max_maps_slope = args.max_maps_slope,
      .report_dir = args.report.empty() ? default_report_dir() : std::filesystem::path(args.report)};
  for (const auto& name : args.lanes) {
    auto lane = parse_lane(name);
    if (!lane)
      return report_error(
          Error{ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", name)});
    options.lanes.push_back(*lane);
  }
  const auto& scenario = scenarios->front();
  Progress progress = Progress::for_stdout(
      "soak " + scenario.name, options.lanes.empty() ? std::size(kAllLanes) : options.lanes.size(), verbosity());
  progress.print(fmt::format("{:<9} {:>9} {:>7} | {:>12} {:>6} {:>10} {:>9} | {:>12} {:>6} {:>10} {:>9} | {:>6} {:>10}",
                             "lane", "calls", "s", "client MiB", "maps", "KiB/Mcall", "maps/Mc", "server MiB", "maps",
                             "KiB/Mcall", "maps/Mc", "live", "parked B"));
  options.on_sample = [&](Lane lane, uint64_t calls) {
    progress.start(fmt::format("{}, {} calls", lane_name(lane), calls));
  };
  options.on_lane = [&](const report::SoakLaneReport& lane) {
    progress.print(lane_row(lane));
    progress.finish_item();
  };
  auto soaked = runner::soak(scenario, options);
  progress.close();
  if (!soaked) return report_error(soaked.error());
  for (const auto& lane : soaked->lanes)
    fmt::print("{}: the client's malloc heap grows {:+.0f} KiB held, {:+.0f} KiB in use per million calls\n", lane.lane,
               lane.heap_held.per_million_calls, lane.heap_used.per_million_calls);
  fmt::print("soak: {}; bounds {} KiB and {} mappings per million calls after warm-up; report: {}\n",
             soaked->green() ? "flat and green in every lane" : "RED", args.max_rss_slope_kib, args.max_maps_slope,
             std::filesystem::absolute(options.report_dir / "soak.html").string());
  return soaked->green() ? kGreen : kRed;
}

}  // namespace tidemark::cli
