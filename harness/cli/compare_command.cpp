// `tidemark compare FILE... [--backend B]... [--expectations F] [--report DIR]`: the library
// (runner/compare.h) runs the scenarios on each backend; this prints each row and writes
// compare.json, compare.html (report/compare.h) and the summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/commands.h"
#include "report/summary.h"
#include "runner/compare.h"
#include "session/builtin_backends.h"

namespace tidemark::cli {

namespace {

void print_row(const report::CompareRow& row) {
  fmt::print("{}\n", row.scenario);
  for (const auto& cell : row.cells) {
    if (cell.digest.empty()) {  // nothing ran
      fmt::print("  {:<12} {:<15} {}\n", cell.backend, report::verdict_label(cell.verdict), cell.why);
      continue;
    }
    std::string shown;
    for (const auto& [name, value] : cell.gauges) shown += fmt::format(" {}={}", name, value);
    fmt::print("  {:<12} {:<15} pixels {}{}\n", cell.backend, report::verdict_name(cell.verdict), cell.pixel_hash, shown);
  }
}

}  // namespace

int compare_command(const CompareArgs& args) {
  auto scenarios = load_all(args.inputs);
  if (!scenarios) return report_error(scenarios.error());
  for (const auto& name : args.backends)
    if (auto known = session::builtin_backends().lookup(name); !known)
      return report_error({ErrorKind::BadInput, "--backend: " + known.error().message});
  std::vector<runner::Expectation> expectations;
  runner::RunOptions options;
  if (!args.expectations.empty()) {
    auto loaded = runner::load_expectations(args.expectations);
    if (!loaded) return report_error(loaded.error());
    expectations = std::move(*loaded);
    options.expectations = &expectations;
  }
  options.report_dir = args.report.empty() ? default_report_dir() : std::filesystem::path(args.report);
  options.lane.backends = &session::builtin_backends();
  auto compared = runner::compare(*scenarios, args.backends, options, print_row);
  if (!compared) return report_error(compared.error());
  if (auto ok = report::write_comparison(options.report_dir, compared->comparison); !ok) return report_error(ok.error());
  if (auto ok = report::write_summary(options.report_dir, {.command = "compare", .series = "compare"},
                                      runner::run_records(compared->results));
      !ok)
    return report_error(ok.error());
  // Every verdict that occurred, counted: a NOT JUDGED cell must show in the last line too.
  std::vector<std::string> counts;
  for (report::Verdict verdict : report::kAllVerdicts) {
    const auto seen = std::ranges::count_if(compared->results, [&](const auto& result) { return result.verdict == verdict; });
    if (seen > 0) counts.push_back(fmt::format("{} {}", seen, report::verdict_name(verdict)));
  }
  fmt::print("compare: {} cells ({}); {}\n", compared->results.size(), fmt::join(counts, ", "),
             std::filesystem::absolute(options.report_dir / "compare.html").string());
  return compared->failed ? kRed : kGreen;
}

}  // namespace tidemark::cli
