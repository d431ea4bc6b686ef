// The bench report: a night's replay timings, a row per stream and lane (bench.json), and the
// nights so far (history.jsonl, one report a line) with its plot (bench-history.html: a panel
// per stream and lane, the harness's nanoseconds per call night by night). One type, one codec.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::report {

// The whole process of a monolith replay beside the floor program doing the same cycles and the
// stream's closing draw (`--draw`), run in turn: start-up, the calls and the exit, wall time and
// peak resident set. Each ratio is the median of the pairs' ratios.
struct WholeProcess {
  double replay_seconds = 0, floor_seconds = 0, seconds_ratio = 0;
  double replay_rss_mib = 0, floor_rss_mib = 0, rss_ratio = 0;
  bool operator==(const WholeProcess&) const = default;
};

// The floor program as a whole process run plainly and under `tidemark observe` (the layer, its
// records, the model host's replay of them and the report), in turn: observe's whole cost on a
// Vulkan program. The ratio is the median of the pairs'.
struct ObservedProcess {
  double plain_seconds = 0, observed_seconds = 0, ratio = 0;
  bool operator==(const ObservedProcess&) const = default;
};

struct BenchRow {
  std::string stream;  // the scenario's name
  std::string lane;
  uint64_t commands = 0;
  double median_seconds = 0;
  double commands_per_second = 0;
  double ratio_to_monolith = 0;
  std::vector<double> runs;  // every replay's seconds
  // Where the floor applies (the stream is (nearly) all respecifies): the floor program's seconds
  // for the same cycles, and the harness's own nanoseconds per call above it.
  std::optional<double> floor_seconds;
  std::optional<double> harness_ns_per_call;
  // The floor program's seconds for the same cycles with the Tidemark layer beneath it (under
  // observe's machinery): the layer's own cost on the calls, against floor_seconds.
  std::optional<double> layer_seconds;
  // The Vulkan calls the floor's cycles make (with or without the layer): calls per second
  // through the layer against the driver alone are floor_calls over layer_seconds and over
  // floor_seconds.
  std::optional<uint64_t> floor_calls;
  std::optional<WholeProcess> whole;        // monolith, where the floor applies
  std::optional<ObservedProcess> observed;  // monolith, where the floor applies
  bool operator==(const BenchRow&) const = default;
};

struct BenchReport {
  std::string label;
  std::string date;                  // UTC, ISO 8601
  std::optional<std::string> floor;  // the floor program, when one ran
  std::vector<BenchRow> results;
  bool operator==(const BenchReport&) const = default;
};

nlohmann::json to_json(const BenchReport& report);
Result<BenchReport> bench_report_from_json(const nlohmann::json& json, const std::string& where);
Status write_bench_report(const std::filesystem::path& file, const BenchReport& report);

// A ratio of tonight's that is more than the allowed fraction worse than the median of the same
// ratio over the nights before: the replay against the bare Vulkan floor (where the floor
// applies), the floor under the layer against the floor, and each lane against monolith. Ratios, not seconds: a busier
// machine slows the floor and monolith with the replay, so a ratio moves only when the harness does.
struct BenchRegression {
  std::string stream, lane;
  std::string ratio;  // "replay / floor", "layer / floor", "lane / monolith", "whole / floor+draw", "peak RSS /
                      // floor+draw", "observe / plain"
  double tonight = 0, median = 0;
  size_t nights = 0;  // the nights the median is of
  std::string describe()
      const;  // "no-draw-respecify-100000 monolith: replay / floor 2.31 vs 2.05 over 7 nights (+13%)"
};
std::vector<BenchRegression> regressions(const std::vector<BenchReport>& nights, const BenchReport& tonight,
                                         double allowed = 0.10);

// The nights so far (no file: none); a line that is not one night's report is bad input at its line.
Result<std::vector<BenchReport>> load_bench_history(const std::filesystem::path& history);
// Appends tonight to the history and writes its plot as report_dir/bench-history.html.
Status record_bench_history(const std::filesystem::path& history, std::vector<BenchReport> nights,
                            const BenchReport& tonight, const std::filesystem::path& report_dir);

}  // namespace tidemark::report
