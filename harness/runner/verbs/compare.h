// `tidemark compare`'s work: the same scenarios on each backend, and on each driver build, side by
// side. Where a real driver and the reclaim model part ways, or one build of a driver and
// another, shows as one row with its differences marked.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/compare.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

struct CompareOutcome {
  report::Comparison comparison;
  std::vector<report::RunRecord> records;  // every cell's run, not-judged ones included, for the summary
  bool failed = false;                     // some cell was red or not judged, or an expected red turned green
};

// Where a column on a driver build (`gl@mesa-25.0.7`) finds its build and its expectations.
struct CompareBuilds {
  std::vector<std::filesystem::path> drivers_files;
  std::filesystem::path expectations;  // empty: none
};

// Runs each subject on each of `columns` (none: each subject's own backends): a backend runs
// here; BACKEND@BUILD runs a capture's replay under that driver build from here, and every
// scenario on it in a tidemark process of its own (runner/pipeline/build_runs.h), whose report folder is
// <report_dir>/builds/<BACKEND@BUILD>. A backend
// that cannot judge a scenario (it lacks the gauges its checks read, a golden does not decode) is a
// not-judged cell that says why, not the end, and fails the comparison unless an expectations
// line names it; `on_row` hears each row as it is done. Each row's cells are held to its first.
Result<CompareOutcome> compare(const Subjects& subjects, const std::vector<std::string>& columns, RunOptions options,
                               const CompareBuilds& builds,
                               const std::function<void(const report::CompareRow&)>& on_row = {});

}  // namespace tidemark::runner
