#include "runner/compare.h"

#include <map>

namespace tidemark::runner {

namespace {

// The device gauges every backend that gives device gauges has: the ones worth a column.
constexpr const char* kShown[] = {"wlivepk", "devallocspk", "devbytespk", "dsetspk", "submits"};

}  // namespace

Result<CompareOutcome> compare(const std::vector<scenario::Scenario>& scenarios,
                               const std::vector<std::string>& backends, RunOptions options,
                               const std::function<void(const report::CompareRow&)>& on_row) {
  CompareOutcome outcome;
  for (const auto& scenario : scenarios) {
    std::vector<std::string> judges = backends.empty() ? scenario.backends : backends;
    if (judges.empty()) judges.push_back(default_backend(scenario));
    report::CompareRow row{scenario.id(), {}};
    for (const auto& backend : judges) {
      options.backend = backend;
      auto result = run(scenario, options);
      if (!result) {
        // Nothing judged is never a pass: it fails compare unless an expectations line names it.
        TIDEMARK_TRY(unjudged, not_judged(scenario, options, backend, result.error()));
        outcome.failed = outcome.failed || !unjudged.passed();
        row.cells.push_back({.backend = backend, .verdict = unjudged.verdict, .why = unjudged.why});
        outcome.results.push_back(std::move(unjudged));
        continue;
      }
      outcome.failed = outcome.failed || !result->passed();
      std::map<std::string, int64_t> gauges;
      for (const auto& [name, value] : named(result->gauges)) gauges[name] = value;
      report::CompareCell cell{.backend = backend,
                               .verdict = result->verdict,
                               .pixel_hash = result->pixel_hash,
                               .digest = result->digest};
      for (const char* name : kShown) cell.gauges.emplace_back(name, gauges[name]);
      for (const auto& checked : result->outcomes)
        if (!checked.passed) cell.failed.push_back(checked.id.str() + ": " + checked.detail);
      row.cells.push_back(std::move(cell));
      outcome.results.push_back(std::move(*result));
    }
    if (on_row) on_row(row);
    outcome.comparison.rows.push_back(std::move(row));
  }
  return outcome;
}

}  // namespace tidemark::runner
