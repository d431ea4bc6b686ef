// `tidemark reduce`: a long red scenario cut down and written as a fixture — the scenario, the
// ledger rows of its reds (verified in every lane by red-once) and a README to fill in.
#include <fmt/format.h>

#include "capture/capture_fixture.h"
#include "cli/commands.h"
#include "core/files.h"
#include "reduce/fixture.h"
#include "reduce/lift.h"
#include "reduce/reducer.h"
#include "runner/verbs/red_once.h"
#include "runner/kinds/scenario_subject.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int reduce_command(const ReduceArgs& args) {
  if (capture::is_capture_fixture(args.input)) return reduce_capture_command(args);
  if (!args.fault.empty() || !args.bug_build.empty() || !args.fix_build.empty())
    return report_error({ErrorKind::BadInput,
                         "reduce: --fault, --bug-build and --fix-build are a capture's bug and fix; "
                         "a scenario's bug is --mutant or --knob"});
  if (args.budget_seconds > 0)
    return report_error({ErrorKind::BadInput,
                         "reduce: --budget bounds a capture's search (its candidates are replays); a scenario's "
                         "runs in this process and is not bounded by one"});
  auto knobs = parse_knobs(args.knobs);
  if (!knobs) return report_error(knobs.error());
  auto mutant = parse_mutant_option(args.mutant);
  if (!mutant) return report_error(mutant.error());
  reduce::ReduceOptions options;
  options.check = args.check;
  options.mutant = std::move(*mutant);
  options.knobs = *knobs;
  options.name = args.name;
  options.jobs = args.jobs;
  // Progress on stderr, a line each time the best candidate shrinks or the phase changes.
  std::string last_phase;
  size_t last_steps = 0;
  options.progress = [&](const reduce::Progress& p) {
    if (p.phase == last_phase && p.steps == last_steps) return;
    last_phase = p.phase;
    last_steps = p.steps;
    fmt::print(stderr,
               "reduce: {:<17} {} steps ({} calls); {} candidates, {} ill-formed (not run), {} runs; {:.1f} s\n",
               p.phase, p.steps, p.calls, p.tried, p.ill_formed, p.runs, p.seconds);
  };
  // A recording is lifted back to its scenario's file, one step a call; a scenario is read.
  const fs::path input(args.input);
  fs::path anchor = input;  // what the text's relative paths are relative to
  std::string source;
  if (input.extension() == ".tdrec") {
    auto made_from = reduce::recorded_scenario(input, args.scenario);
    if (!made_from) return report_error(made_from.error());
    auto text = read_given_file(made_from->file, "scenario");
    if (!text) return report_error(text.error());
    auto lifted = reduce::lift_recording(input, *made_from, *text);
    if (!lifted) return report_error(lifted.error());
    source = std::move(*lifted);
    anchor = made_from->file;
  } else {
    auto text = read_given_file(input, "scenario");
    if (!text) return report_error(text.error());
    source = std::move(*text);
  }
  // A folder that would be refused at the end is refused before minutes of reducing.
  if (!args.out.empty() && !args.name.empty())
    if (auto ok = reduce::check_fixture_folder(args.out, args.name); !ok) return report_error(ok.error());
  auto reduced = reduce::reduce(std::move(source), anchor, options);
  if (!reduced) return report_error(reduced.error());

  const reduce::Bug bug{args.mutant, *knobs};
  auto made = reduce::fixture_text(*reduced, input.filename().string(), bug, args.check);
  if (!made) return report_error(made.error());
  const std::string& text = *made;
  auto fixture = scenario::load_text(text, anchor);
  if (!fixture) return report_error({ErrorKind::Fatal, "reduce: the result does not load: " + fixture.error().message});

  // Proven in every lane before anything is written.
  runner::RedOnceOptions proving;
  proving.run.report_dir = default_report_dir() / "reduce";
  auto proven = runner::red_once(runner::ScenarioSubject::borrowing(*fixture), proving);
  if (!proven) return report_error(proven.error());
  for (const auto& run : proven->runs) fmt::print("  [{}] {}: {}\n", run.lane, run.control, run.detail);
  if (!proven->passed()) {
    fmt::print("REDUCE FAIL {}/{}: the result is not red-once in every lane\n", fixture->group, fixture->name);
    for (const auto& problem : proven->problems) fmt::print("  {}\n", problem);
    fmt::print("{}", text);
    return kRed;
  }

  const fs::path out = args.out.empty() ? fs::path("fixtures") / fixture->name : fs::path(args.out);
  if (auto wrote = reduce::write_fixture(out, text, *fixture, *reduced, input.filename().string(), bug,
                                         runner::ledger_lines(*proven), args.ledger);
      !wrote)
    return report_error(wrote.error());
  const fs::path yaml = out / (fixture->name + ".yaml");
  fmt::print(
      "REDUCED {}: {} steps ({} calls) from {} ({} calls); {} candidates ({} ill-formed, not run), {} runs, "
      "{:.1f} s; red-once in every lane; wrote {}\n",
      proven->scenario, reduced->done.steps, reduced->done.calls, reduced->steps_before, reduced->calls_before,
      reduced->done.tried, reduced->done.ill_formed, reduced->done.runs, reduced->done.seconds, yaml.string());
  return kGreen;
}

}  // namespace tidemark::cli
