// `tidemark bench FILE... [--repeat N] [--floor PROGRAM] [--history F]`: the library
// (runner/bench.h) measures each stream in every lane; this prints a row per lane and writes
// bench.json and the history (report/bench_history.h).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ctime>

#include "cli/commands.h"
#include "core/files.h"
#include "report/bench_history.h"
#include "runner/bench.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int bench_command(const BenchArgs& args) {
  auto scenarios = load_all(args.inputs);
  if (!scenarios) return report_error(scenarios.error());
  fs::path dir = args.report.empty() ? fs::path("build/bench") : fs::path(args.report);
  if (auto made = make_directories(dir); !made) return report_error(made.error());
  const std::string floor_program = args.floor.empty() ? runner::default_floor() : args.floor;
  std::vector<nlohmann::json> nights;  // read before anything is measured: a bad history costs no run
  if (!args.history.empty()) {
    auto loaded = report::load_bench_history(args.history);
    if (!loaded) return report_error(loaded.error());
    nights = std::move(*loaded);
  }
  nlohmann::json json;
  json["label"] = args.label;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json["date"] = date;
  json["floor"] = floor_program.empty() ? nlohmann::json(nullptr) : nlohmann::json(floor_program);
  json["results"] = nlohmann::json::array();
  fmt::print("{:<28} {:<9} {:>9} {:>10} {:>13} {:>8} {:>10} {:>12}\n", "stream", "lane", "commands", "median s",
             "commands/s", "vs mono", "floor s", "harness ns");
  for (const auto& scenario : *scenarios) {
    auto stream = runner::bench_stream(scenario, dir, args.repeat, floor_program);
    if (!stream) return report_error(stream.error());
    if (stream->divergence) {
      fmt::print("bench: {}\n", *stream->divergence);
      return kRed;
    }
    for (auto& row : stream->rows) {
      const bool floored = row.contains("floor_seconds");
      fmt::print("{:<28} {:<9} {:>9} {:>10.3f} {:>13.0f} {:>8.2f} {:>10} {:>12}\n", row["stream"].get<std::string>(),
                 row["lane"].get<std::string>(), row["commands"].get<uint64_t>(), row["median_seconds"].get<double>(),
                 row["commands_per_second"].get<double>(), row["ratio_to_monolith"].get<double>(),
                 floored ? fmt::format("{:.3f}", row["floor_seconds"].get<double>()) : "-",
                 floored ? fmt::format("{:.0f}", row["harness_ns_per_call"].get<double>()) : "-");
      json["results"].push_back(std::move(row));
    }
  }
  if (auto written = write_file_atomically(dir / "bench.json", json.dump(2) + '\n'); !written)
    return report_error(written.error());
  if (!args.history.empty())
    if (auto kept = report::record_bench_history(args.history, std::move(nights), json, dir); !kept)
      return report_error(kept.error());
  fmt::print("bench: {}\n", fs::absolute(dir / "bench.json").string());
  return kGreen;
}

}  // namespace tidemark::cli
