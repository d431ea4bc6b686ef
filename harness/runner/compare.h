// `tidemark compare`'s work: the same scenarios on each backend (and driver), side by side.
// Where a real driver and the reclaim model part ways shows as one row.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/compare.h"
#include "runner/runner.h"

namespace tidemark::runner {

struct CompareOutcome {
  report::Comparison comparison;
  std::vector<RunResult> results;  // every run that could be judged, for the summary
  bool failed = false;             // some run was red, or an expected red turned green
};

// Runs each scenario on each of `backends` (none: each scenario's own list). A backend that
// cannot judge a scenario (it lacks the gauges its checks read) is a cell that says why, not
// the end; `on_row` hears each row as it is done.
Result<CompareOutcome> compare(const std::vector<scenario::Scenario>& scenarios,
                               const std::vector<std::string>& backends, RunOptions options,
                               const std::function<void(const report::CompareRow&)>& on_row = {});

}  // namespace tidemark::runner
