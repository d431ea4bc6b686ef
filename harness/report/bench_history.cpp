#include "report/bench_history.h"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "core/files.h"
#include "report/plot.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

// The history's plot: a panel per stream and lane, the harness's ns per call night by night.
std::string history_plot(const std::vector<nlohmann::json>& nights) {
  std::map<std::string, PlotSeries> series;  // by "stream lane"
  for (size_t night = 0; night < nights.size(); ++night)
    for (const auto& row : nights[night]["results"])
      if (row.contains("harness_ns_per_call") && row["harness_ns_per_call"].is_number()) {
        const std::string name = row["stream"].get<std::string>() + " " + row["lane"].get<std::string>();
        PlotSeries& line = series[name];
        line.label = name + ": harness ns per call";
        line.unit = "ns";
        line.points.emplace_back(static_cast<double>(night + 1), row["harness_ns_per_call"].get<double>());
        line.x_end = static_cast<double>(night + 2);  // a night's value holds until the next
      }
  std::vector<PlotSeries> panels;
  for (auto& [name, line] : series) panels.push_back(std::move(line));
  return step_plot(panels, {"night", 1});
}

}  // namespace

// The nights so far (one JSON object per line; no file: none), read before anything is
// measured so that a bad history costs no run.
Result<std::vector<nlohmann::json>> load_bench_history(const fs::path& history) {
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
Status record_bench_history(const fs::path& history, std::vector<nlohmann::json> nights, const nlohmann::json& tonight,
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

}  // namespace tidemark::report
