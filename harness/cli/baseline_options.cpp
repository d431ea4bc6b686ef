// --baseline and --tolerance, as run, compare, parity and red-once take them: one option set,
// read before anything runs, and the records held to it after.
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "report/baseline.h"

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

Result<std::optional<report::Baseline>> load_baseline(const BaselineArgs& args) {
  return report::load_baseline(args.baseline, args.tolerances);
}

std::optional<report::BaselineOrigin> hold_to_baseline(const std::optional<report::Baseline>& baseline,
                                                       std::vector<report::RunRecord>& records,
                                                       const report::Origin& origin) {
  if (!baseline) return std::nullopt;
  report::BaselineOrigin held = report::hold_to_baseline(records, origin, *baseline);
  for (const auto& line : report::baseline_lines(records, held)) fmt::print("{}\n", line);
  return held;
}

}  // namespace tidemark::cli
