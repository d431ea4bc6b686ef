// --baseline and --tolerance, as run, compare, parity and red-once take them, and the setup of a
// verb's runs from the options they share (runner/pipeline/run_setup.h).
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "layer/link.h"
#include "report/baseline.h"
#include "runner/pipeline/run_setup.h"

namespace tidemark::cli {

void add_baseline_options(CLI::App& command, BaselineArgs& args) {
  command.add_option("--baseline", args.baseline,
                     "hold every gauge to an earlier run's (its report folder or "
                     "summary.json): worse is red, better is reported, new and gone named");
  command
      .add_option("--tolerance", args.tolerances,
                  "with --baseline: how much worse GAUGE may get, GAUGE=N or GAUGE=P% "
                  "(repeatable; default 0)")
      ->allow_extra_args(false);
}

Result<std::unique_ptr<runner::RunSetup>> run_setup(const std::string& report, const std::string& expectations,
                                                    const BaselineArgs& baseline, const TimeBoundsOverride& bounds,
                                                    bool no_isolation) {
  return runner::RunSetup::make({.report_dir = report.empty() ? default_report_dir() : std::filesystem::path(report),
                                 .expectations = expectations,
                                 .baseline = baseline.baseline,
                                 .tolerances = baseline.tolerances,
                                 .time_bounds = bounds,
                                 .isolation = !no_isolation,
                                 .layer_dir = layer::layer_dir(),
                                 .drivers_files = drivers_files()});
}

Result<report::Summary> finish_runs(const runner::RunSetup& setup, const report::Origin& origin,
                                    std::vector<report::RunRecord> records) {
  TIDEMARK_TRY(finished, setup.finish(origin, std::move(records)));
  for (const auto& line : finished.baseline_lines) fmt::print("{}\n", line);
  return std::move(finished.summary);
}

}  // namespace tidemark::cli
