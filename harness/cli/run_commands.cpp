// `tidemark run FILE...`: each scenario in one lane, its verdict and what failed, and the summary.
#include <fmt/format.h>

#include "cli/commands.h"
#include "capture/capture_run.h"
#include "layer/link.h"
#include "report/baseline.h"
#include "report/summary.h"
#include "runner/parity.h"
#include "runner/runner.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// A result's lines: the verdict, then what failed (and, with --verbose, what passed). With
// --quiet a green result prints nothing.
void print_result(const runner::RunResult& result, Progress& progress) {
  if (verbosity() == Verbosity::Quiet && result.verdict == report::Verdict::Green) return;
  const std::string_view verdict = report::verdict_label(result.verdict);
  progress.print(fmt::format("{:<5} {} ({:.2f} s) {} digest {}", verdict, result.test_name, result.seconds,
                             gauge_line(result.gauges), result.digest));
  if (result.verdict == report::Verdict::ExpectedRed)
    progress.print(fmt::format("      expected (expectations.txt): {}", result.why));
  if (result.verdict == report::Verdict::UnexpectedPass)
    progress.print(fmt::format("      unexpected pass: {}", result.why));
  if (result.error)
    progress.print(fmt::format("      error: {}", result.error->message));
  else if (result.verdict == report::Verdict::Red && !result.why.empty())
    progress.print(fmt::format("      {}", result.why));
  for (const auto& outcome : result.outcomes) {
    if (outcome.passed) {
      if (verbosity() == Verbosity::Verbose)
        progress.print(fmt::format("      passed {} `{}`: {}", scenario::to_string(outcome.id.kind), outcome.text,
                                   outcome.detail));
      continue;
    }
    progress.print(
        fmt::format("      failed {} `{}`: {}", scenario::to_string(outcome.id.kind), outcome.text, outcome.detail));
    if (!outcome.where.file.empty()) progress.print(fmt::format("        at {}", format_location(outcome.where)));
    for (const auto& artifact : outcome.artifacts) progress.print(fmt::format("        wrote {}", artifact.string()));
  }
}

// A capture fixture's run: its verdict, and each check that failed (or why it could not run).
void print_capture(const report::RunRecord& record, Progress& progress) {
  if (verbosity() == Verbosity::Quiet && record.verdict == report::Verdict::Green) return;
  progress.print(fmt::format("{:<5} {} ({:.2f} s) replayed by {} digest {}", report::verdict_label(record.verdict),
                             record.test, record.seconds, record.driver, record.digest));
  if (!record.why.empty()) progress.print(fmt::format("      {}", record.why));
  for (const auto& check : record.checks)
    if (!check.passed || verbosity() == Verbosity::Verbose)
      progress.print(fmt::format("      {} `{}`: {}", check.passed ? "passed" : "failed", check.check, check.detail));
}

}  // namespace

int run_command(const RunArgs& args) {
  auto lane_options = lane_options_from(args.lane);
  if (!lane_options) return report_error(lane_options.error());
  bool owns_a_server =
      (lane_options->lane == Lane::Spawn || lane_options->lane == Lane::Tcp) && args.lane.connect.empty();
  if (args.kill_server_at_frame != 0 && !owns_a_server)
    return report_error(
        {ErrorKind::BadInput, fmt::format("--kill-server-at-frame: expected --lane spawn or tcp with a "
                                          "server of this run's own, found --lane {}{}",
                                          args.lane.lane, args.lane.connect.empty() ? "" : " --connect")});
  lane_options->kill_server_at_frame = args.kill_server_at_frame;
  if (args.repeat < 1)
    return report_error({ErrorKind::BadInput, fmt::format("--repeat: expected >= 1, found {}", args.repeat)});
  auto knobs = parse_knobs(args.knobs);
  if (!knobs) return report_error(knobs.error());
  // Capture fixtures (*.capture.yaml) run beside the scenarios, each loaded before anything runs.
  std::optional<report::ShardOrigin> shard;
  auto subjects = load_subjects(args.inputs, args.shard, args.shard_durations, &shard);
  if (!subjects) return report_error(subjects.error());
  const std::vector<capture::CaptureFixture>& captures = subjects->captures;
  const std::vector<scenario::Scenario>* scenarios = &subjects->scenarios;
  // Every override must be valid for every scenario before anything runs.
  for (const auto& scenario : *scenarios)
    if (auto ok = runner::effective_knobs(scenario, *knobs); !ok) return report_error(ok.error());

  runner::RunOptions options;
  options.knob_overrides = *knobs;
  options.report_dir = args.report.empty() ? default_report_dir() : fs::path(args.report);
  options.validation = args.validation;
  options.repeat = args.repeat;
  options.lane = *lane_options;
  options.backend = args.lane.backend;
  options.mutant = args.lane.mutant;
  std::vector<runner::Expectation> expectations;
  if (!args.expectations.empty()) {
    auto loaded = runner::load_expectations(args.expectations);
    if (!loaded) return report_error(loaded.error());
    expectations = std::move(*loaded);
    options.expectations = &expectations;
  }

  auto baseline = report::load_baseline(args.baseline, args.tolerances);
  if (!baseline) return report_error(baseline.error());

  std::vector<runner::RunResult> results;
  Progress progress = Progress::for_stdout("run", scenarios->size() + captures.size(), verbosity());
  for (const auto& scenario : *scenarios) {
    progress.start(fmt::format("{}/{} ({})", scenario.group, scenario.name, args.lane.lane));
    if (!args.record.empty()) {
      auto path = runner::recording_path(args.record, scenario, scenarios->size());
      if (!path) return report_error(path.error());
      options.lane.record = path->string();
      options.lane.record_name = scenario.id();
    }
    auto result = runner::run(scenario, options);
    if (!result) return report_error(result.error());
    print_result(*result, progress);
    progress.finish_item();
    results.push_back(std::move(*result));
  }
  std::vector<report::RunRecord> records = runner::run_records(results);
  // Lanes do not apply to a capture: its replayer is a program of its own under the layer.
  for (const auto& fixture : captures) {
    progress.start(fmt::format("{} (replayed, capture lane)", fixture.id()));
    auto record = capture::run_capture(fixture, {.report_dir = options.report_dir,
                                                 .layer_dir = layer::layer_dir(),
                                                 .drivers_files = drivers_files(),
                                                 .repeat = args.repeat,
                                                 .expectations = options.expectations});
    if (!record) return report_error(record.error());
    print_capture(*record, progress);
    progress.finish_item();
    records.push_back(std::move(*record));
  }
  progress.close();
  const report::Origin origin{
      .command = "run", .series = runner::run_series(args.lane.lane, args.knobs, options), .shard = shard};
  std::optional<report::BaselineOrigin> held;
  if (*baseline) {
    held = report::hold_to_baseline(records, origin, **baseline);
    for (const auto& line : report::baseline_lines(records, *held)) fmt::print("{}\n", line);
  }
  auto summary = report::write_summary(options.report_dir, origin, std::move(records), held);
  if (!summary) return report_error(summary.error());
  fmt::print("{} green, {} red; report: {}\n", summary->green, summary->red,
             fs::absolute(options.report_dir / "summary.json").string());
  return summary->red == 0 ? kGreen : kRed;
}

}  // namespace tidemark::cli
