// soak: one long workload in each lane with the client's and the server's memory sampled every
// N calls; peaks, slopes after warm-up, soak.json and soak.html. Red when a run is red or a
// slope is above its bound.
#include <fmt/format.h>
#include <malloc.h>
#include <unistd.h>

#include <chrono>

#include "cli/commands.h"
#include "core/files.h"
#include "runner/soak.h"

namespace tidemark::cli {

// Load, run every lane, then write soak.json, soak.html and the one-line verdicts: a straight
// sequence of steps that reads best in one place.
int soak_command(const SoakArgs& args) {
  auto scenarios = load_all({args.file});
  if (!scenarios) return report_error(scenarios.error());
  if (scenarios->size() != 1)
    return report_error(Error{ErrorKind::BadInput, fmt::format("soak: expected one scenario file, found {} scenarios",
                                                               scenarios->size())});
  if (args.every == 0) return report_error(Error{ErrorKind::BadInput, "--every: expected a positive call count, found 0"});
  std::vector<Lane> lanes;
  for (const auto& name : args.lanes) {
    auto lane = parse_lane(name);
    if (!lane)
      return report_error(Error{ErrorKind::BadInput,
                                fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", name)});
    lanes.push_back(*lane);
  }
  if (lanes.empty()) lanes.assign(std::begin(kAllLanes), std::end(kAllLanes));
  const auto& scenario = scenarios->front();
  std::filesystem::path report_dir = args.report.empty() ? default_report_dir() : std::filesystem::path(args.report);

  std::vector<runner::SoakLane> soaks;
  std::vector<runner::SoakFigures> figures;
  bool green = true;
  Progress progress = Progress::for_stdout("soak " + scenario.name, lanes.size(), verbosity());
  progress.print(fmt::format("{:<9} {:>9} {:>7} | {:>12} {:>6} {:>10} {:>9} | {:>12} {:>6} {:>10} {:>9} | {:>6} {:>10}",
                             "lane", "calls", "s", "client MiB", "maps", "KiB/Mcall", "maps/Mc", "server MiB", "maps",
                             "KiB/Mcall", "maps/Mc", "live", "parked B"));
  for (Lane lane : lanes) {
    progress.start(std::string(lane_name(lane)));
    runner::SoakLane soak;
    soak.lane = std::string(lane_name(lane));
    soak.separate_server = lane == Lane::Spawn || lane == Lane::Tcp;
    const auto started = std::chrono::steady_clock::now();
    std::optional<Error> sampling;
    runner::RunOptions options;
    options.report_dir = report_dir;
    options.lane.lane = lane;
    options.probe_every = args.every;
    options.probe = [&](uint64_t calls, const lanes::LaneReport& report) {
      runner::SoakSample sample;
      sample.calls = calls;
      sample.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      auto client = process_memory(getpid());
      auto server = process_memory(report.server_pid > 0 ? report.server_pid : getpid());
      if (!client || !server) {
        if (!sampling) sampling = client ? server.error() : client.error();
        return;
      }
      sample.client = *client;
      sample.server = *server;
      struct mallinfo2 heap = mallinfo2();
      sample.heap_held_kib = static_cast<int64_t>((heap.arena + heap.hblkhd) / 1024);
      sample.heap_used_kib = static_cast<int64_t>((heap.uordblks + heap.hblkhd) / 1024);
      soak.samples.push_back(sample);
      progress.start(fmt::format("{}, {} calls", lane_name(lane), calls));
    };
    auto result = runner::run(scenario, options);
    if (!result) return report_error(result.error());
    if (sampling) return report_error(*sampling);
    soak.result = std::move(*result);
    runner::SoakFigures f = runner::soak_figures(soak);
    bool flat = f.client_rss.per_million_calls <= args.max_rss_slope_kib &&
                f.server_rss.per_million_calls <= args.max_rss_slope_kib &&
                f.client_maps.per_million_calls <= args.max_maps_slope &&
                f.server_maps.per_million_calls <= args.max_maps_slope;
    green = green && flat && soak.result.passed();
    progress.print(fmt::format(
               "{:<9} {:>9} {:>7.1f} | {:>12.1f} {:>6} {:>+10.0f} {:>+9.1f} | {:>12} {:>6} {:>+10.0f} {:>+9.1f} | {:>6} {:>10}{}",
               soak.lane, f.calls, f.seconds, f.client_rss_peak_kib / 1024.0, f.client_maps_peak,
               f.client_rss.per_million_calls, f.client_maps.per_million_calls,
               soak.separate_server ? fmt::format("{:.1f}", f.server_rss_peak_kib / 1024.0) : "(client)",
               soak.separate_server ? fmt::format("{}", f.server_maps_peak) : "", f.server_rss.per_million_calls,
               f.server_maps.per_million_calls, f.live_stores_peak, f.parked_bytes_peak,
               !soak.result.passed() ? "  RED (the run)" : flat ? "" : "  RED (not flat)"));
    progress.finish_item();
    soaks.push_back(std::move(soak));
    figures.push_back(f);
  }
  progress.close();
  if (auto ok = runner::write_soak_report(soaks, figures, report_dir, args.max_rss_slope_kib, args.max_maps_slope); !ok)
    return report_error(ok.error());
  for (size_t k = 0; k < soaks.size(); ++k)
    fmt::print("{}: the client's malloc heap grows {:+.0f} KiB held, {:+.0f} KiB in use per million calls\n",
               soaks[k].lane, figures[k].heap_held.per_million_calls, figures[k].heap_used.per_million_calls);
  fmt::print("soak: {}; bounds {} KiB and {} mappings per million calls after warm-up; report: {}\n",
             green ? "flat and green in every lane" : "RED", args.max_rss_slope_kib, args.max_maps_slope,
             std::filesystem::absolute(report_dir / "soak.html").string());
  return green ? kGreen : kRed;
}

}  // namespace tidemark::cli
