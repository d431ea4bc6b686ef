// `tidemark compare FILE... [--backend B|B@BUILD]... [--expectations F] [--report DIR]`: the
// library (runner/verbs/compare.h) runs the scenarios on each backend and driver build; this prints each
// row and writes compare.json, compare.html (report/compare.h) and the summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "drivers/driver_builds.h"
#include "layer/link.h"
#include "report/baseline.h"
#include "report/summary.h"
#include "runner/pipeline/build_runs.h"
#include "runner/verbs/compare.h"
#include "session/builtin_backends.h"

namespace tidemark::cli {

namespace {

// The gauges a person compares first; compare.html and compare.json have every device gauge.
// (A capture fixture's cells have the layer's gauges: its VkBuffers, bytes and allocations.)
constexpr std::string_view kShown[] = {"wlivepk",  "devallocspk", "devbytespk", "dsetspk", "submits",
                                       "vkbufspk", "vkbytespk",   "vkallocspk", "vkbufs"};

void print_row(const report::CompareRow& row) {
  fmt::print("{}\n", row.scenario);
  for (const auto& cell : row.cells) {
    if (cell.digest.empty()) {  // nothing ran
      fmt::print("  {:<20} {:<15} {}\n", cell.backend, report::verdict_label(cell.verdict), cell.why);
      continue;
    }
    std::string shown;
    for (const auto& [name, value] : cell.gauges)
      if (std::ranges::find(kShown, name) != std::end(kShown)) shown += fmt::format(" {}={}", name, value);
    fmt::print("  {:<20} {:<15}{}{}\n", cell.backend, report::verdict_name(cell.verdict),
               cell.pixel_hash.empty() ? "" : " pixels " + cell.pixel_hash, shown);
    // What differs from the row's first column, and which way.
    if (!cell.same_pixels) fmt::print("  {:<20}   pixels differ from {}\n", "", row.reference);
    for (const auto& move : cell.moves)
      fmt::print("  {:<20}   {:<8} {} {} -> {} ({}) against {}\n", "", report::movement_name(move.movement), move.gauge,
                 move.baseline, move.now, report::change_text(move.baseline, move.now), row.reference);
  }
}

}  // namespace

int compare_command(const CompareArgs& args) {
  auto loaded = load_subjects(args.inputs);
  if (!loaded) return report_error(loaded.error());
  for (const auto& column : args.backends) {
    const report::Column on_build = report::Column::parse(column);
    if (auto known = session::builtin_backends().lookup(on_build.backend); !known)
      return report_error({ErrorKind::BadInput, "--backend: " + known.error().message});
    if (!on_build.build.empty())
      if (auto named = drivers::check_named_build(drivers_files(), on_build.build, "--backend " + column); !named)
        return report_error(named.error());
  }
  auto lane = parse_lane_option(args.lane);
  if (!lane) return report_error(lane.error());
  auto setup = run_setup(args.report, args.expectations, args.baseline, args.time_bounds, args.no_isolation);
  if (!setup) return report_error(setup.error());
  runner::RunOptions& options = (*setup)->options;
  options.column.lane.backends = &session::builtin_backends();
  options.column.lane.lane = *lane;
  const runner::CompareBuilds builds{.drivers_files = drivers_files(), .expectations = args.expectations};
  auto compared = runner::compare(loaded->subjects, args.backends, options, builds, print_row);
  if (!compared) return report_error(compared.error());
  if (auto ok = report::write_comparison(options.report_dir, compared->comparison); !ok)
    return report_error(ok.error());
  const report::Origin origin{.command = "compare", .series = "compare"};
  auto summary = finish_runs(**setup, origin, compared->records);
  if (!summary) return report_error(summary.error());
  compared->failed = compared->failed || !std::ranges::all_of(summary->results, report::record_passes);
  // Every verdict that occurred, counted: a NOT JUDGED cell must show in the last line too.
  std::vector<std::string> counts;
  for (report::Verdict verdict : report::kAllVerdicts) {
    const auto seen =
        std::ranges::count_if(compared->records, [&](const auto& record) { return record.verdict == verdict; });
    if (seen > 0) counts.push_back(fmt::format("{} {}", seen, report::verdict_name(verdict)));
  }
  fmt::print("compare: {} cells ({}); {}\n", compared->records.size(), fmt::join(counts, ", "),
             std::filesystem::absolute(options.report_dir / "compare.html").string());
  return compared->failed ? kRed : kGreen;
}

CLI::App* add_compare(CLI::App& app, CompareArgs& args) {
  return lazy_subcommand(
      app, "compare",
      "the same scenarios on each backend side by side: verdicts, device gauges, image hashes (terminal, compare.html)",
      [&args](CLI::App* compare) {
        add_paths(*compare, args.inputs);
        compare
            ->add_option("--backend", args.backends,
                         "a backend to run on, or BACKEND@BUILD on a driver build of the drivers files "
                         "(repeatable; default: each scenario's backends: list); each column is held to the first")
            ->allow_extra_args(false);
        compare->add_option("--expectations", args.expectations, "known failures (expectations.txt)");
        compare->add_option("--report", args.report, "report folder (default reports/run-<time>)");
        compare->add_option("--lane", args.lane, "the lane every column runs in (default monolith)");
        add_isolation_options(*compare, args.no_isolation, args.time_bounds);
        add_baseline_options(*compare, args.baseline);
      });
}

}  // namespace tidemark::cli
