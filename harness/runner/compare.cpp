#include "runner/compare.h"

#include <map>

#include "core/gauges.h"
#include "runner/build_runs.h"

namespace tidemark::runner {

namespace {

// A cell from a run's record: every device gauge (what any backend with device gauges gives).
report::CompareCell cell_of(const report::RunRecord& record, const std::string& column) {
  report::CompareCell cell{
      .backend = column, .verdict = record.verdict, .pixel_hash = record.pixel_hash, .digest = record.digest};
  if (!report::passes(record.verdict) || record.verdict == report::Verdict::ExpectedRed) cell.why = record.why;
  for (const auto& spec : kGauges)
    if (spec.kind == GaugeKind::Device) {
      auto found = record.gauges.find(std::string(spec.name));
      cell.gauges.emplace_back(spec.name, found == record.gauges.end() ? 0 : found->second);
    }
  for (const auto& check : record.checks)
    if (!check.passed) cell.failed.push_back(check.id + ": " + check.detail);
  return cell;
}

std::string scenario_of(const std::string& subject) { return subject.substr(0, subject.find('@')); }

}  // namespace

Result<CompareOutcome> compare(const std::vector<scenario::Scenario>& scenarios,
                               const std::vector<std::string>& columns, RunOptions options, const CompareBuilds& builds,
                               const std::function<void(const report::CompareRow&)>& on_row) {
  CompareOutcome outcome;
  if (scenarios.empty()) return outcome;  // (the paths held capture fixtures only)
  // The columns on a driver build run first, each in a process of its own, over every scenario.
  std::map<std::string, std::map<std::string, report::RunRecord>> on_builds;  // column -> scenario -> record
  std::vector<std::filesystem::path> files;
  for (const auto& scenario : scenarios) files.push_back(scenario.file);
  for (const auto& column : columns) {
    auto split = backend_on_build(column);
    if (!split || on_builds.contains(column)) continue;
    TIDEMARK_TRY(records, run_on_build({.drivers_files = builds.drivers_files,
                                        .column = *split,
                                        .scenario_files = files,
                                        .lane = std::string(lane_name(options.lane.lane)),
                                        .report_dir = options.report_dir / "builds" / column,
                                        .expectations = builds.expectations}));
    auto& by_scenario = on_builds[column];
    for (auto& record : records) by_scenario.emplace(scenario_of(record.subject), std::move(record));
  }
  for (const auto& scenario : scenarios) {
    std::vector<std::string> judges = columns.empty() ? scenario.backends : columns;
    if (judges.empty()) judges.push_back(default_backend(scenario));
    report::CompareRow row{scenario.id(), "", {}};
    for (const auto& column : judges) {
      if (auto built = on_builds.find(column); built != on_builds.end()) {
        auto found = built->second.find(scenario.id());
        if (found == built->second.end()) {
          row.cells.push_back({.backend = column,
                               .verdict = report::Verdict::NotJudged,
                               .why = "the run under the build has no record of it"});
          outcome.failed = true;
          continue;
        }
        outcome.failed = outcome.failed || !report::passes(found->second.verdict);
        row.cells.push_back(cell_of(found->second, column));
        outcome.records.push_back(std::move(found->second));
        continue;
      }
      options.backend = column;
      auto result = run(scenario, options);
      if (!result) {
        // Nothing judged is never a pass: it fails compare unless an expectations line names it.
        TIDEMARK_TRY(unjudged, not_judged(scenario, options, column, result.error()));
        outcome.failed = outcome.failed || !unjudged.passed();
        row.cells.push_back({.backend = column, .verdict = unjudged.verdict, .why = unjudged.why});
        outcome.records.push_back(run_record(unjudged));
        continue;
      }
      outcome.failed = outcome.failed || !result->passed();
      report::RunRecord record = run_record(*result);
      row.cells.push_back(cell_of(record, column));
      outcome.records.push_back(std::move(record));
    }
    report::mark_differences(row);
    if (on_row) on_row(row);
    outcome.comparison.rows.push_back(std::move(row));
  }
  return outcome;
}

}  // namespace tidemark::runner
