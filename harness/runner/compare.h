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
  std::vector<RunResult> results;  // every cell's run, not-judged ones included, for the summary
  bool failed = false;             // some cell was red or not judged, or an expected red turned green
};

// Runs each scenario on each of `backends` (none: each scenario's own list). A backend that
// cannot judge a scenario (it lacks the gauges its checks read, a golden does not decode) is a
// not-judged cell that says why, not the end, and fails the comparison unless an expectations
// line names it; `on_row` hears each row as it is done.
Result<CompareOutcome> compare(const std::vector<scenario::Scenario>& scenarios,
                               const std::vector<std::string>& backends, RunOptions options,
                               const std::function<void(const report::CompareRow&)>& on_row = {});

}  // namespace tidemark::runner
