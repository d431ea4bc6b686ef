#include "runner/verbs/compare.h"

#include <map>

#include "core/gauges.h"
#include "runner/pipeline/build_runs.h"

namespace tidemark::runner {

namespace {

// A cell from a run's record: every device gauge when its backend gives them (0 where one is
// missing), else every layer gauge it read (a replay's), in catalogue order.
report::CompareCell cell_of(const report::RunRecord& record, const std::string& column) {
  report::CompareCell cell{
      .backend = column, .verdict = record.verdict, .pixel_hash = record.pixel_hash, .digest = record.digest};
  cell.driver = record.driver;
  cell.dir = record.dir;
  if (!report::passes(record.verdict) || record.verdict == report::Verdict::ExpectedRed) cell.why = record.why;
  if (!record.gauges.empty())
    for (const auto& spec : kGauges)
      if (spec.kind == GaugeKind::Device) {
        auto found = record.gauges.find(std::string(spec.name));
        cell.gauges.emplace_back(spec.name, found == record.gauges.end() ? 0 : found->second);
      }
  if (record.observed_gauges && record.gauges.empty())
    for (const auto& spec : kObservedGauges)
      if (auto found = record.observed_gauges->find(std::string(spec.name)); found != record.observed_gauges->end())
        cell.gauges.emplace_back(found->first, found->second);
  for (const auto& check : record.checks)
    if (!check.passed) cell.failed.push_back(check.id + ": " + check.detail);
  return cell;
}

}  // namespace

Result<CompareOutcome> compare(const Subjects& subjects, const std::vector<std::string>& columns, RunOptions options,
                               const CompareBuilds& builds,
                               const std::function<void(const report::CompareRow&)>& on_row) {
  CompareOutcome outcome;
  // A column on a driver build runs the subjects that cannot start a run on it from here (a
  // session's driver is loaded into its process) first, in a process of its own, all at once.
  std::map<std::string, std::map<std::string, report::RunRecord>> on_builds;  // column -> subject -> record
  std::vector<std::filesystem::path> files;
  for (const auto& subject : subjects)
    if (!subject->info().starts_builds) files.push_back(subject->info().file);
  for (const auto& column : columns) {
    const report::Column split = report::Column::parse(column);
    if (split.build.empty() || files.empty() || on_builds.contains(column)) continue;
    // The child runs them one after another in itself: one that dies ends the batch (runner/pipeline/build_runs.h).
    RunOptions on_build = options;
    on_build.column.backend = split.backend;
    on_build.column.build = split.build;
    on_build.report_dir = options.report_dir / "builds" / column;
    on_build.drivers_files = builds.drivers_files;
    on_build.isolation = false;
    TIDEMARK_TRY(
        records,
        run_on_build({.options = std::move(on_build), .subject_files = files, .expectations = builds.expectations}));
    auto& by_subject = on_builds[column];
    for (auto& record : records) by_subject.emplace(report::subject_id(record), std::move(record));
  }
  for (const auto& subject : subjects) {
    const std::vector<std::string> judges = columns.empty() ? subject->info().backends : columns;
    report::CompareRow row{subject->info().id, "", {}};
    for (const auto& column : judges) {
      const report::Column split = report::Column::parse(column);
      if (!split.build.empty() && !subject->info().starts_builds) {
        auto& built = on_builds[column];
        auto found = built.find(subject->info().id);
        if (found == built.end()) {
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
      options.column.backend = split.backend;
      options.column.build = split.build;
      auto record = run(*subject, options);
      if (!record) {
        // Nothing judged is never a pass: it fails compare unless an expectations line names it.
        TIDEMARK_TRY(unjudged, not_judged(*subject, options, column, record.error()));
        outcome.failed = outcome.failed || !report::passes(unjudged.verdict);
        row.cells.push_back({.backend = column, .verdict = unjudged.verdict, .why = unjudged.why});
        outcome.records.push_back(std::move(unjudged));
        continue;
      }
      outcome.failed = outcome.failed || !report::record_passes(*record);
      row.cells.push_back(cell_of(*record, column));
      outcome.records.push_back(std::move(*record));
    }
    report::mark_differences(row);
    if (on_row) on_row(row);
    outcome.comparison.rows.push_back(std::move(row));
  }
  return outcome;
}

}  // namespace tidemark::runner
