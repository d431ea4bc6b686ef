// red-once, lint, mutants, fixture new.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "capture/capture_subject.h"
#include "subjects/subjects.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "layer/link.h"
#include "runner/verbs/fixture.h"
#include "runner/verbs/lint.h"
#include "report/summary.h"
#include "runner/verbs/red_once.h"
#include "runner/kinds/scenario_subject.h"
#include "scenario/scenario.h"

#include "session/builtin_backends.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

// Green, then every control in every lane (runner::red_once_set); the red values are checked
// against the ledger (or rewritten with --update-ledger). This prints each run and verdict.
int red_once_command(const RedOnceArgs& args) {
  auto loaded = load_subjects(args.inputs, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  auto setup = run_setup(args.report, args.expectations, args.baseline, args.time_bounds, args.no_isolation);
  if (!setup) return report_error(setup.error());
  runner::RedOnceSetOptions options{.ledger = args.ledger, .update_ledger = args.update_ledger};
  if (!args.lanes.empty()) {
    options.red_once.lanes.clear();
    for (const auto& name : args.lanes) {
      auto lane = parse_lane_option(name);
      if (!lane) return report_error(lane.error());
      options.red_once.lanes.push_back(*lane);
    }
  }
  options.red_once.run = (*setup)->options;
  options.red_once.run.column.backend = args.backend;
  // The column must suit every subject before anything runs (a backend it does not list).
  for (const auto& subject : loaded->subjects)
    if (auto ok = runner::check_options(*subject, options.red_once.run); !ok) return report_error(ok.error());
  Progress progress = Progress::for_stdout("red-once", loaded->subjects.size(), verbosity());
  options.on_start = [&](const runner::Subject& subject) {
    progress.start(fmt::format("{} ({} controls)", subject.info().id, subject.info().controls.size()));
  };
  options.on_done = [&](const runner::RedOnceReport& report) {
    if (verbosity() != Verbosity::Quiet)
      for (const auto& run : report.runs)
        progress.print(fmt::format("  {} [{}] {}: {} — {}", report.scenario, run.lane, run.control,
                                   runner::effect_label(run.effect), run.detail));
    if (!report.passed()) {
      progress.print(fmt::format("RED-ONCE FAIL {}", report.scenario));
      for (const auto& problem : report.problems) progress.print(fmt::format("  {}", problem));
    } else if (!report.unproven.empty()) {  // said even under --quiet: nothing was proven
      progress.print(fmt::format("RED-ONCE UNPROVEN {} on {}: {}", report.scenario, report.backend, report.unproven));
    } else if (verbosity() != Verbosity::Quiet) {
      progress.print(fmt::format("RED-ONCE PASS {}", report.scenario));
    }
    progress.finish_item();
  };
  auto set = runner::red_once_set(loaded->subjects, options);
  if (!set) return report_error(set.error());
  progress.close();
  if (set->ledger_written) fmt::print("ledger written: {}\n", args.ledger);
  // The green runs held to a baseline, as a run's would be: a gauge worse than it fails red-once too.
  bool worse = false;
  if (!args.baseline.baseline.empty()) {
    const report::Origin origin{.command = "red-once", .series = "red-once green", .shard = loaded->shard};
    auto summary = finish_runs(**setup, origin, std::move(set->greens));
    if (!summary) return report_error(summary.error());
    worse = !std::ranges::all_of(summary->results, report::record_passes);
  }
  fmt::print(
      "{} of {} scenarios pass red-once{}\n", set->scenarios - set->failed - set->unproven, set->scenarios,
      set->unproven == 0 ? "" : fmt::format(", {} unproven on this backend (unproven: says why)", set->unproven));
  return set->failed == 0 && !worse ? kGreen : kRed;
}

// Every scenario has a control; every control's mutant is in the catalogue; every mutant in
// the catalogue is killed by some scenario.
int lint_command(const std::vector<std::string>& inputs, const std::string& expectations_file) {
  auto loaded = load_subjects(inputs);
  if (!loaded) return report_error(loaded.error());
  std::vector<runner::Expectation> expectations;
  if (!expectations_file.empty()) {  // every known failure names what still exists
    auto read = runner::load_expectations(expectations_file);
    if (!read) return report_error(read.error());
    expectations = std::move(*read);
  }
  const runner::Subjects& subjects = loaded->subjects;
  const auto problems = runner::lint(subjects, expectations_file.empty() ? nullptr : &expectations);
  for (const auto& problem : problems) fmt::print("lint: {}\n", problem);
  // "48 scenarios and 2 capture fixtures", kinds in the order they came.
  std::vector<std::pair<std::string_view, size_t>> kinds;
  for (const auto& subject : subjects) {
    auto kind =
        std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == subject->info().kind; });
    if (kind == kinds.end())
      kinds.emplace_back(subject->info().kind, 1);
    else
      ++kind->second;
  }
  std::vector<std::string> counts;
  for (const auto& [kind, count] : kinds) counts.push_back(fmt::format("{} {}{}", count, kind, count == 1 ? "" : "s"));
  fmt::print("lint: {}, {} problems\n", counts.empty() ? "0 scenarios" : fmt::format("{}", fmt::join(counts, " and ")),
             problems.size());
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

// The backends and the gauge kinds each gives, as a Markdown table.
int backends_command() {
  fmt::print("| backend | gauges | what it drives |\n|---|---|---|\n");
  for (const auto& entry : session::builtin_backends().entries())
    fmt::print("| `{}` | {} | {} |\n", entry.name, entry.gauge_kinds(), entry.summary);
  return kGreen;
}

// The catalogue as a Markdown table: red_once/mutants.md is this output, checked by a test.
int mutants_command() {
  fmt::print("# Mutant catalogue\n\n");
  fmt::print("Written by `tidemark mutants`; a test fails when this file and the build disagree.\n\n");
  fmt::print("| mutant | component | what it breaks | the fix it reverts |\n|---|---|---|---|\n");
  for (const auto& mutant : mutant_catalogue())
    fmt::print("| `{}` | {} | {} | {} |\n", mutant.name, mutant.component, mutant.breaks, mutant.reverts);
  return kGreen;
}

}  // namespace tidemark::cli
