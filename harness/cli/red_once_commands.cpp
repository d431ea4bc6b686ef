// red-once, lint, mutants, fixture new.
#include <fmt/format.h>
#include <fmt/ranges.h>


#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "runner/fixture.h"
#include "runner/lint.h"
#include "runner/red_once.h"
#include "runner/runner.h"
#include "scenario/scenario.h"

#include "session/builtin_backends.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

const char* verdict_name(runner::ControlRun::Verdict verdict) {
  switch (verdict) {
    case runner::ControlRun::Verdict::Red: return "RED (as required)";
    case runner::ControlRun::Verdict::StayedGreen: return "stayed green";
    case runner::ControlRun::Verdict::WrongRed: return "WRONG RED";
    case runner::ControlRun::Verdict::Skipped: return "skipped";
  }
  return "?";
}

}  // namespace


// Green, then every control in every lane; the red values are checked against the ledger
// (or rewritten with --update-ledger).
int red_once_command(const RedOnceArgs& args) {
  const auto& inputs = args.inputs;
  const auto& lanes = args.lanes;
  const std::string& ledger_path = args.ledger;
  bool update_ledger = args.update_ledger;
  const std::string& report = args.report;
  auto scenarios = load_shard(inputs, args.shard, args.shard_durations);
  if (!scenarios) return report_error(scenarios.error());
  runner::RedOnceOptions options;
  if (!lanes.empty()) {
    options.lanes.clear();
    for (const auto& name : lanes) {
      auto lane = parse_lane_option(name);
      if (!lane) return report_error(lane.error());
      options.lanes.push_back(*lane);
    }
  }
  options.report_dir = report.empty() ? default_report_dir() : fs::path(report);
  auto ledger = runner::read_ledger(ledger_path);
  if (!ledger) return report_error(ledger.error());
  std::vector<std::string> updated;
  std::vector<runner::RedOnceReport> rerun;  // scenario and lanes only: which ledger lines were measured again
  size_t failed = 0;
  Progress progress = Progress::for_stdout("red-once", scenarios->size(), verbosity());
  for (const auto& scenario : *scenarios) {
    progress.start(fmt::format("{}/{} ({} controls)", scenario.group, scenario.name, scenario.controls.size()));
    if (scenario.controls.empty()) {
      progress.print(fmt::format("RED-ONCE FAIL {}/{}: no controls (a green that never went red proves nothing)",
                                 scenario.group, scenario.name));
      ++failed;
      progress.finish_item();
      continue;
    }
    auto result = runner::red_once(scenario, options);
    if (!result) return report_error(result.error());
    if (verbosity() != Verbosity::Quiet)
      for (const auto& run : result->runs)
        progress.print(fmt::format("  {} [{}] {}: {} — {}", result->scenario, run.lane, run.control,
                                   verdict_name(run.verdict), run.detail));
    std::vector<std::string> problems = result->problems;
    if (!update_ledger)
      for (auto& drift : runner::ledger_drift(*result, *ledger)) problems.push_back("ledger drift: " + drift);
    auto lines = runner::ledger_lines(*result);
    updated.insert(updated.end(), lines.begin(), lines.end());
    rerun.push_back({.scenario = result->scenario, .lanes = result->lanes});
    if (problems.empty()) {
      if (verbosity() != Verbosity::Quiet) progress.print(fmt::format("RED-ONCE PASS {}", result->scenario));
    } else {
      ++failed;
      progress.print(fmt::format("RED-ONCE FAIL {}", result->scenario));
      for (const auto& problem : problems) progress.print(fmt::format("  {}", problem));
    }
    progress.finish_item();
  }
  progress.close();
  if (update_ledger) {
    for (const auto& line : *ledger) {
      bool replaced = false;
      for (const auto& measured : rerun) replaced = replaced || runner::covers(measured, line);
      if (!replaced) updated.push_back(line);
    }
    if (auto ok = runner::write_ledger(ledger_path, updated); !ok) return report_error(ok.error());
    fmt::print("ledger written: {}\n", ledger_path);
  }
  fmt::print("{} of {} scenarios pass red-once\n", scenarios->size() - failed, scenarios->size());
  return failed == 0 ? kGreen : kRed;
}

// Every scenario has a control; every control's mutant is in the catalogue; every mutant in
// the catalogue is killed by some scenario.
int lint_command(const std::vector<std::string>& inputs, const std::string& expectations_file) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  std::vector<runner::Expectation> expectations;
  if (!expectations_file.empty()) {  // every known failure names what still exists
    auto loaded = runner::load_expectations(expectations_file);
    if (!loaded) return report_error(loaded.error());
    expectations = std::move(*loaded);
  }
  const auto problems = runner::lint(*scenarios, expectations_file.empty() ? nullptr : &expectations);
  for (const auto& problem : problems) fmt::print("lint: {}\n", problem);
  fmt::print("lint: {} scenarios, {} problems\n", scenarios->size(), problems.size());
  return problems.empty() ? kGreen : kRed;
}

// A review must-fix becomes a fixture: fixtures/<review-id>/ with a README to fill in and a
// scenario skeleton that loads but fails red-once until its control is made real.
int fixture_new_command(const FixtureArgs& args) {
  auto made = runner::new_fixture(args.root, args.review_id);
  if (!made) return report_error(made.error());
  fmt::print("created {} and {}\n", made->readme.string(), made->scenario.string());
  return kGreen;
}

// The catalogue as a Markdown table: red_once/mutants.md is this output, checked by a test.
int backends_command() {
  fmt::print("| backend | gauges | what it drives |\n|---|---|---|\n");
  for (const auto& entry : session::builtin_backends().entries())
    fmt::print("| `{}` | {} | {} |\n", entry.name, entry.gauge_kinds(), entry.summary);
  return kGreen;
}

int mutants_command() {
  fmt::print("# Mutant catalogue\n\n");
  fmt::print("Written by `tidemark mutants`; a test fails when this file and the build disagree.\n\n");
  fmt::print("| mutant | component | what it breaks | the fix it reverts |\n|---|---|---|---|\n");
  for (const auto& mutant : mutant_catalogue())
    fmt::print("| `{}` | {} | {} | {} |\n", mutant.name, mutant.component, mutant.breaks, mutant.reverts);
  return kGreen;
}

}  // namespace tidemark::cli
