// `tidemark bench FILE... [--repeat N] [--floor PROGRAM] [--history F]`: the library
// (runner/verbs/bench.h) measures each stream in every lane and writes bench.json and the history;
// this prints a row per lane, and each ratio more than 10 % worse than the history's median (red).
#include <fmt/format.h>

#include "cli/commands.h"
#include "runner/verbs/bench.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int bench_command(const BenchArgs& args) {
  auto scenarios = load_all(args.inputs);
  if (!scenarios) return report_error(scenarios.error());
  runner::BenchOptions options{.dir = args.report.empty() ? fs::path("build/bench") : fs::path(args.report),
                               .repeat = args.repeat,
                               .floor_program = args.floor.empty() ? runner::default_floor() : args.floor,
                               .replayer_program = runner::default_replayer(),
                               .label = args.label,
                               .history = args.history};
  fmt::print("{:<28} {:<9} {:>9} {:>10} {:>13} {:>8} {:>10} {:>12} {:>8} {:>13} {:>8} {:>8} {:>10}\n", "stream", "lane",
             "commands", "median s", "commands/s", "vs mono", "floor s", "harness ns", "layer x", "Mcalls/s d|l",
             "whole x", "RSS x", "observe x");
  options.on_row = [](const report::BenchRow& row) {
    auto ratio = [](std::optional<double> value) { return value ? fmt::format("{:.2f}", *value) : std::string("-"); };
    // The driver's calls per second alone and through the layer, in millions.
    std::string calls = "-";
    if (row.floor_calls && row.floor_seconds && row.layer_seconds && *row.floor_seconds > 0 && *row.layer_seconds > 0)
      calls = fmt::format("{:.1f}|{:.1f}", double(*row.floor_calls) / *row.floor_seconds / 1e6,
                          double(*row.floor_calls) / *row.layer_seconds / 1e6);
    fmt::print("{:<28} {:<9} {:>9} {:>10.3f} {:>13.0f} {:>8.2f} {:>10} {:>12} {:>8} {:>13} {:>8} {:>8} {:>10}\n",
               row.stream, row.lane, row.commands, row.median_seconds, row.commands_per_second, row.ratio_to_monolith,
               row.floor_seconds ? fmt::format("{:.3f}", *row.floor_seconds) : "-",
               row.harness_ns_per_call ? fmt::format("{:.0f}", *row.harness_ns_per_call) : "-",
               ratio(row.layer_seconds && row.floor_seconds ? std::optional(*row.layer_seconds / *row.floor_seconds)
                                                            : std::nullopt),
               calls, ratio(row.whole ? std::optional(row.whole->seconds_ratio) : std::nullopt),
               ratio(row.whole ? std::optional(row.whole->rss_ratio) : std::nullopt),
               ratio(row.observed ? std::optional(row.observed->ratio) : std::nullopt));
  };
  auto outcome = runner::bench(*scenarios, options);
  if (!outcome) return report_error(outcome.error());
  if (outcome->divergence) {
    fmt::print("bench: {}\n", *outcome->divergence);
    return kRed;
  }
  fmt::print("bench: {}\n", fs::absolute(options.dir / "bench.json").string());
  // A ratio more than 10 % worse than its history's median is a regression of the harness.
  for (const auto& regression : outcome->regressions) fmt::print("WORSE THAN HISTORY {}\n", regression.describe());
  return outcome->regressions.empty() ? kGreen : kRed;
}

}  // namespace tidemark::cli
