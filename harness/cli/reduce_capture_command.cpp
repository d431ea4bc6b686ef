// `tidemark reduce CAPTURE.capture.yaml --check C (--fault F | --bug-build B) [--fix-build A]`: an
// apitrace capture cut down to the fewest calls besides its setup that keep the defect, written
// as a capture fixture whose control is the bug.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>

#include <atomic>
#include <chrono>

#include "capture/capture_reduce.h"
#include "cli/commands.h"
#include "drivers/driver_builds.h"
#include "layer/link.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int reduce_capture_command(const ReduceArgs& args) {
  if (!args.mutant.empty() || !args.knobs.empty() || !args.ledger.empty() || !args.scenario.empty())
    return report_error({ErrorKind::BadInput,
                         "reduce: a capture's bug is --fault or --bug-build (its fix --fix-build); "
                         "expected no --mutant, --knob, --ledger or --scenario, found one"});
  if (args.fault.empty() == args.bug_build.empty())
    return report_error(
        {ErrorKind::BadInput, fmt::format("reduce: expected one bug for a capture, --fault or --bug-build, "
                                          "found {}",
                                          args.fault.empty() ? "neither" : "both")});
  for (const auto& [build, option] : {std::pair{args.bug_build, "--bug-build"}, {args.fix_build, "--fix-build"}})
    if (!build.empty())
      if (auto named = drivers::check_named_build(drivers_files(), build, option); !named)
        return report_error(named.error());
  auto fixture = capture::load_capture_fixture(args.input);
  if (!fixture) return report_error(fixture.error());
  const std::string name = args.name.empty() ? fixture->name + "-reduced" : args.name;
  // Checked before anything is made after it: the work folder is under this command's own report folder.
  if (auto named = capture::check_fixture_name(name, "--name"); !named) return report_error(named.error());
  const fs::path out = args.out.empty() ? fs::path("captures") / name : fs::path(args.out);
  capture::CaptureReduceOptions options{
      .check = args.check,
      .bug = {.fault = args.fault, .build = args.fault.empty() ? args.bug_build : args.fix_build},
      .fix = {.fault = {}, .build = args.fix_build},
      .drivers_files = drivers_files(),
      .layer_dir = layer::layer_dir(),
      .work_dir = default_report_dir("reduce") / name,
      .jobs = args.jobs,
      .progress = {}};
  if (args.budget_seconds > 0) options.budget = std::chrono::seconds(args.budget_seconds);
  // The first Ctrl-C ends the search with the best cut so far, which is still proven and
  // written; a second one (the handler resets itself) ends tidemark at once.
  static std::atomic<bool> interrupted{false};
  struct sigaction on_interrupt {};
  on_interrupt.sa_handler = [](int) { interrupted = true; };
  on_interrupt.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &on_interrupt, nullptr);
  options.interrupted = [] { return interrupted.load(); };
  // Progress on stderr, a line each time the best candidate shrinks or the phase changes.
  std::string last_phase;
  size_t last_kept = 0;
  options.progress = [&](const capture::ReduceProgress& p) {
    if (p.phase == last_phase && p.kept == last_kept) return;
    last_phase = p.phase;
    last_kept = p.kept;
    fmt::print(stderr, "reduce: {:<17} {} units besides setup; {} candidates, {} replays; {:.1f} s\n", p.phase, p.kept,
               p.tried, p.replays, p.seconds);
  };
  auto reduced = capture::reduce_capture(*fixture, options);
  if (!reduced) return report_error(reduced.error());
  auto written = capture::write_reduction(*fixture, *reduced, options, name, out);
  if (!written) return report_error(written.error());
  for (const auto& run : written->red_once.runs)
    fmt::print("  [{}] {}: {} — {}\n", run.lane, run.control, runner::effect_label(run.effect), run.detail);
  const auto& done = reduced->done;
  fmt::print(
      "REDUCED {}: {} calls besides its {} setup calls ({}) from {} calls; {} candidates, {} replays, {:.1f} s; "
      "red under {}, green under {}; wrote {}{}\n",
      fixture->id(), reduced->kept.size(), reduced->setup_calls,
      reduced->kept.empty() ? "setup alone" : capture::kept_summary(reduced->kept), reduced->calls_before, done.tried,
      done.replays, done.seconds, options.bug.describe(), options.fix.describe(), written->fixture.string(),
      reduced->stopped.empty()
          ? ""
          : fmt::format(" (stopped early, as {}: the best cut so far, not 1-minimal)", reduced->stopped));
  return kGreen;
}

}  // namespace tidemark::cli
