// bench: replay throughput per lane, the harness's own nanoseconds per call above the bare
// Vulkan floor, and a history of both across nights.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>

#include "cli/commands.h"
#include "core/files.h"
#include "report/plot.h"
#include "runner/runner.h"
#include "session/builtin_backends.h"
#include "wire/lanes.h"
#include "wire/posix.h"
#include "wire/replay.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The floor program beside this executable (the build folder), when there is one.
std::string default_floor() {
  const fs::path dir = this_executable_dir();
  std::error_code error;
  if (dir.empty() || !fs::exists(dir / "tidemark-vulkan-floor", error)) return {};
  return (dir / "tidemark-vulkan-floor").string();
}

// One run of the floor program: its seconds for `cycles` respecify cycles (start-up excluded).
Result<double> floor_seconds(const std::string& program, uint64_t cycles) {
  wire::ChildProcess::Options options;
  options.program = program;
  options.args = {"--cycles", std::to_string(cycles), "--size", "256"};
  options.keep_env = {"PATH", "HOME", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "LD_LIBRARY_PATH", "XDG_RUNTIME_DIR"};
  options.capture_stdout = true;
  TIDEMARK_TRY(child, wire::ChildProcess::spawn(options));
  TIDEMARK_TRY(line, child.read_line(wire::Clock::now() + std::chrono::seconds(120)));
  auto status = child.wait_for(std::chrono::seconds(10));
  if (!status || *status != 0)
    return fail(ErrorKind::Environment, fmt::format("bench: the floor {} {}", program,
                                                    status ? wire::describe_wait_status(*status) : "did not end"));
  auto json = nlohmann::json::parse(line, nullptr, false);
  if (json.is_discarded() || !json.contains("cycle_seconds"))
    return fail(ErrorKind::Environment,
                fmt::format("bench: expected the floor's JSON line from {}, found '{}'", program, line));
  return json["cycle_seconds"].get<double>();
}

// A stream is measured against the floor when (nearly) all its commands are respecifies: the
// floor does those cycles' Vulkan work and nothing else.
bool floor_applies(const wire::ReplayReport& report) { return report.respecifies * 100 >= report.requests * 99; }

// The history's plot: a panel per stream and lane, the harness's ns per call night by night.
std::string history_plot(const std::vector<nlohmann::json>& nights) {
  std::map<std::string, report::PlotSeries> series;  // by "stream lane"
  for (size_t night = 0; night < nights.size(); ++night)
    for (const auto& row : nights[night]["results"])
      if (row.contains("harness_ns_per_call") && row["harness_ns_per_call"].is_number()) {
        const std::string name = row["stream"].get<std::string>() + " " + row["lane"].get<std::string>();
        report::PlotSeries& line = series[name];
        line.label = name + ": harness ns per call";
        line.unit = "ns";
        line.points.emplace_back(static_cast<double>(night + 1), row["harness_ns_per_call"].get<double>());
        line.x_end = static_cast<double>(night + 2);  // a night's value holds until the next
      }
  std::vector<report::PlotSeries> panels;
  for (auto& [name, line] : series) panels.push_back(std::move(line));
  return report::step_plot(panels, {"night", 1});
}

// The nights so far (one JSON object per line; no file: none), read before anything is
// measured so that a bad history costs no run.
Result<std::vector<nlohmann::json>> load_history(const fs::path& history) {
  std::vector<nlohmann::json> nights;
  std::ifstream in(history);
  if (!in) return nights;
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto night = nlohmann::json::parse(line, nullptr, false);
    if (night.is_discarded() || !night.is_object() || !night.contains("results"))
      return fail(ErrorKind::BadInput, fmt::format("{}:{}:1: expected one night's bench results as JSON, found '{}'",
                                                   history.string(), number, line.substr(0, 40)));
    nights.push_back(std::move(night));
  }
  return nights;
}

// Appends tonight's results to the history and writes its plot beside bench.json.
Status record_history(const fs::path& history, std::vector<nlohmann::json> nights, const nlohmann::json& tonight,
                      const fs::path& report_dir) {
  nights.push_back(tonight);
  std::string text;
  for (const auto& night : nights) text += night.dump() + '\n';
  TIDEMARK_CHECK(write_file_atomically(history, text));
  std::string html = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tidemark bench history</title></head>"
                     "<body>\n<h1>Harness nanoseconds per call above the Vulkan floor</h1>\n" +
                     history_plot(nights) + "</body></html>\n";
  return write_file_atomically(report_dir / "bench-history.html", html);
}

}  // namespace

// Each stream is recorded once (monolith), then replayed `repeat` times in every lane; the
// median is reported with its ratio to monolith and, where the floor applies, the harness's own
// nanoseconds per call: (replay seconds - the floor's seconds for the same cycles) / commands.
int bench_command(const BenchArgs& args) {
  auto scenarios = load_all(args.inputs);
  if (!scenarios) return report_error(scenarios.error());
  fs::path dir = args.report.empty() ? fs::path("build/bench") : fs::path(args.report);
  if (auto made = make_directories(dir); !made) return report_error(made.error());
  const std::string floor_program = args.floor.empty() ? default_floor() : args.floor;
  std::vector<nlohmann::json> nights;
  if (!args.history.empty()) {
    auto loaded = load_history(args.history);
    if (!loaded) return report_error(loaded.error());
    nights = std::move(*loaded);
  }
  nlohmann::json json;
  json["label"] = args.label;
  json["date"] = [] {
    std::time_t now = std::time(nullptr);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return std::string(text);
  }();
  json["floor"] = floor_program.empty() ? nlohmann::json(nullptr) : nlohmann::json(floor_program);
  json["results"] = nlohmann::json::array();
  fmt::print("{:<28} {:<9} {:>9} {:>10} {:>13} {:>8} {:>10} {:>12}\n", "stream", "lane", "commands", "median s",
             "commands/s", "vs mono", "floor s", "harness ns");
  for (const auto& scenario : *scenarios) {
    runner::RunOptions options;
    options.report_dir = dir / "recorded";
    options.lane.record = (dir / (scenario.name + ".tdrec")).string();
    options.lane.record_name = scenario.id();
    auto recorded = runner::run(scenario, options);
    if (!recorded) return report_error(recorded.error());
    double monolith_rate = 0;
    std::optional<double> floor;  // measured once per stream, at its first lane
    for (Lane lane : kAllLanes) {
      std::vector<double> seconds;
      wire::ReplayReport last;
      for (int i = 0; i < std::max(1, args.repeat); ++i) {
        wire::LaneOptions lane_options;
        lane_options.lane = lane;
        lane_options.backends = &session::builtin_backends();
        auto replayed = wire::replay(options.lane.record, lane_options);
        if (!replayed) return report_error(replayed.error());
        if (replayed->divergence || replayed->digest != recorded->digest) {
          fmt::print("bench: {} diverged in {}: {}\n", scenario.name, lane_name(lane),
                     replayed->divergence.value_or("digest " + replayed->digest));
          return kRed;
        }
        seconds.push_back(replayed->seconds);
        last = std::move(*replayed);
      }
      if (!floor && !floor_program.empty() && floor_applies(last)) {
        std::vector<double> runs;
        for (int i = 0; i < std::max(1, args.repeat); ++i) {
          auto measured = floor_seconds(floor_program, last.respecifies);
          if (!measured) return report_error(measured.error());
          runs.push_back(*measured);
        }
        floor = median(runs);
      }
      const double middle = median(seconds);
      const double rate = middle > 0 ? double(last.requests) / middle : 0;
      if (lane == Lane::Monolith) monolith_rate = rate;
      const double ratio = monolith_rate > 0 ? rate / monolith_rate : 0;
      nlohmann::json row = {{"stream", scenario.name},         {"lane", lane_name(lane)},
                            {"commands", last.requests},       {"median_seconds", middle},
                            {"commands_per_second", rate},     {"ratio_to_monolith", ratio},
                            {"runs", seconds}};
      std::string floor_text = "-", harness_text = "-";
      if (floor) {
        const double ns = (middle - *floor) * 1e9 / static_cast<double>(last.requests);
        row["floor_seconds"] = *floor;
        row["harness_ns_per_call"] = ns;
        floor_text = fmt::format("{:.3f}", *floor);
        harness_text = fmt::format("{:.0f}", ns);
      }
      fmt::print("{:<28} {:<9} {:>9} {:>10.3f} {:>13.0f} {:>8.2f} {:>10} {:>12}\n", scenario.name, lane_name(lane),
                 last.requests, middle, rate, ratio, floor_text, harness_text);
      json["results"].push_back(std::move(row));
    }
  }
  if (auto written = write_file_atomically(dir / "bench.json", json.dump(2) + '\n'); !written)
    return report_error(written.error());
  if (!args.history.empty())
    if (auto kept = record_history(args.history, std::move(nights), json, dir); !kept) return report_error(kept.error());
  fmt::print("bench: {}\n", fs::absolute(dir / "bench.json").string());
  return kGreen;
}

}  // namespace tidemark::cli
