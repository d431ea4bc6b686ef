// `tidemark run FILE...`: each scenario in one lane, its verdict and what failed, and the summary.
#include <fmt/format.h>

#include <algorithm>

#include "cli/commands.h"
#include "layer/link.h"
#include "cli/command_line.h"
#include "core/files.h"
#include "report/baseline.h"
#include "report/journal.h"
#include "report/summary.h"
#include "runner/build_runs.h"
#include "runner/parity.h"
#include "runner/runner.h"
#include "runner/subject.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// A record's lines: the verdict, then what failed (and, with --verbose, what passed). With
// --quiet a green record prints nothing.
void print_record(const report::RunRecord& record, Progress& progress) {
  if (verbosity() == Verbosity::Quiet && record.verdict == report::Verdict::Green) return;
  progress.print(fmt::format("{:<5} {} ({:.2f} s) {} digest {}", report::verdict_label(record.verdict), record.test,
                             record.seconds, record.gauge_line, record.digest));
  if (record.verdict == report::Verdict::ExpectedRed)
    progress.print(fmt::format("      expected (expectations.txt): {}", record.why));
  else if (record.verdict == report::Verdict::UnexpectedPass)
    progress.print(fmt::format("      unexpected pass: {}", record.why));
  else if (record.verdict == report::Verdict::Crash)
    progress.print(fmt::format("      crash: {}", record.why));
  else if (record.verdict == report::Verdict::Flaky || record.verdict == report::Verdict::Nondeterministic ||
           record.verdict == report::Verdict::Skipped)
    progress.print(fmt::format("      {}", record.why));
  else if (record.verdict == report::Verdict::CouldNotRun || record.verdict == report::Verdict::NotJudged)
    progress.print(fmt::format("      error: {}", record.why));
  else if (record.verdict == report::Verdict::Red && !record.why.empty())
    progress.print(fmt::format("      {}", record.why));
  for (const auto& check : record.checks) {
    if (check.passed && verbosity() != Verbosity::Verbose) continue;
    progress.print(
        fmt::format("      {} {} `{}`: {}", check.passed ? "passed" : "failed", check.kind, check.check, check.detail));
    if (check.passed) continue;
    if (!check.where.empty()) progress.print(fmt::format("        at {}", check.where));
    for (const auto& artifact : check.artifacts) progress.print(fmt::format("        wrote {}", artifact));
  }
}

// The arguments of a run as its journal keeps them: the command line's, --resume and its folder left out.
std::vector<std::string> journaled_arguments() {
  std::vector<std::string> kept;
  const std::vector<std::string>& given = command_arguments();
  for (size_t k = 0; k < given.size(); ++k) {
    if (given[k] == "--resume") {
      ++k;
      continue;
    }
    if (!given[k].starts_with("--resume=")) kept.push_back(given[k]);
  }
  return kept;
}

// A run to go on with (--resume DIR): its journal, and the options to run with. Given only the
// folder, the options are the journal's; given more, they must be the same (checked with the rest
// of the header once the subjects are loaded).
struct Resumed {
  report::Journal journal;
  RunArgs args;
};

Result<std::optional<Resumed>> resumed_run(const RunArgs& given) {
  if (given.resume.empty()) return std::nullopt;
  TIDEMARK_TRY(journal, report::read_journal(report::journal_file(given.resume)));
  RunArgs args = given;
  if (given.inputs.empty()) {
    TIDEMARK_TRY(recorded, parse_run_arguments(journal.header.arguments));
    args = std::move(recorded);
    if (auto column = runner::backend_on_build(args.lane.backend)) args.lane.backend = column->backend;
  }
  args.resume = given.resume;
  args.report = given.resume;
  return std::optional(Resumed{std::move(journal), std::move(args)});
}

}  // namespace

int run_command(const RunArgs& given) {
  if (given.inputs.empty() && given.resume.empty())
    return report_error(
        {ErrorKind::BadInput, "run: expected scenario files or folders, or --resume DIR, found neither"});
  auto resumed = resumed_run(given);
  if (!resumed) return report_error(resumed.error());
  const RunArgs& args = *resumed ? (*resumed)->args : given;
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
  if (args.retry < 0)
    return report_error({ErrorKind::BadInput, fmt::format("--retry: expected >= 0, found {}", args.retry)});
  auto knobs = parse_knobs(args.knobs);
  if (!knobs) return report_error(knobs.error());
  // Scenarios and capture fixtures (*.capture.yaml), each loaded before anything runs.
  auto loaded = load_subjects(args.inputs, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  const runner::Subjects& subjects = loaded->subjects;
  runner::RunOptions options;
  options.column = {.backend = args.lane.backend, .lane = *lane_options, .build = {}};
  options.variant = {.mutant = args.lane.mutant, .knobs = *knobs, .fault = {}, .cut = {}};
  options.report_dir = args.report.empty() ? default_report_dir() : fs::path(args.report);
  options.validation = args.validation;
  options.repeat = args.repeat;
  options.retry = args.retry;
  options.isolation = !args.no_isolation;
  options.layer_dir = layer::layer_dir();
  options.drivers_files = drivers_files();
  std::vector<runner::Expectation> expectations;
  if (!args.expectations.empty()) {
    auto read = runner::load_expectations(args.expectations);
    if (!read) return report_error(read.error());
    expectations = std::move(*read);
    options.expectations = &expectations;
  }
  // Every option must suit every subject before anything runs (a knob it lacks, a backend it does not list).
  for (const auto& subject : subjects)
    if (auto ok = runner::check_options(*subject, options); !ok) return report_error(ok.error());
  auto baseline = load_baseline(args.baseline);
  if (!baseline) return report_error(baseline.error());

  // The journal: made new, or gone on with when resuming (after its run is checked to be this one).
  report::JournalHeader header{
      .arguments = *resumed && given.inputs.empty() ? (*resumed)->journal.header.arguments : journaled_arguments(),
      .cwd = fs::current_path().string(),
      .series = runner::run_series(args.lane.lane, args.knobs, options),
      .build = {},
      .subjects = {}};
  auto build = runner::build_of(options);
  if (!build) return report_error(build.error());
  header.build = *build;
  for (const auto& subject : subjects) {
    auto hash = subject->content_hash();
    if (!hash) return report_error(hash.error());
    header.subjects.push_back({subject->id(), *hash});
  }
  const fs::path journal_file = report::journal_file(options.report_dir);
  const std::map<std::string, report::RunRecord>* journaled = nullptr;
  if (*resumed) {
    if (auto same = report::check_same_run((*resumed)->journal.header, header, journal_file.string()); !same) {
      report_error(same.error());
      return kResumeRefused;
    }
    journaled = &(*resumed)->journal.records;
  } else if (auto made = make_directories(options.report_dir); !made) {
    return report_error(made.error());
  }
  auto journal =
      *resumed ? report::JournalWriter::resume(journal_file) : report::JournalWriter::create(journal_file, header);
  if (!journal) return report_error(journal.error());
  auto has_record = [&](const runner::Subject& subject) { return journaled && journaled->contains(subject.id()); };
  const size_t to_run =
      static_cast<size_t>(std::ranges::count_if(subjects, [&](const auto& s) { return !has_record(*s); }));
  if (*resumed)
    fmt::print("resuming {}: {} of {} subjects have a record in its journal; running {}\n", options.report_dir.string(),
               subjects.size() - to_run, subjects.size(), to_run);

  std::vector<report::RunRecord> records;
  runner::SubjectSeries series(subjects, [&](size_t k) -> Result<runner::RunOptions> {
    runner::RunOptions each = options;
    if (!args.record.empty()) {
      TIDEMARK_TRY(path, runner::recording_path(args.record, *subjects[k], subjects.size()));
      each.column.lane.record = path.string();
      each.column.lane.record_name = subjects[k]->id();
    }
    return each;
  });
  Progress progress = Progress::for_stdout("run", to_run, verbosity());
  for (size_t k = 0; k < subjects.size(); ++k) {
    const auto& subject = subjects[k];
    if (has_record(*subject)) {
      records.push_back(journaled->at(subject->id()));
      continue;
    }
    progress.start(fmt::format("{} ({})", subject->id(), subject->has_lanes() ? args.lane.lane : runner::kNoLane));
    auto record = series.run(k);
    if (!record) return report_error(record.error());
    print_record(*record, progress);
    progress.finish_item();
    if (auto kept = journal->add(subject->id(), *record); !kept) return report_error(kept.error());
    records.push_back(std::move(*record));
  }
  progress.close();
  const report::Origin origin{
      .command = "run", .series = runner::run_series(args.lane.lane, args.knobs, options), .shard = loaded->shard};
  auto held = hold_to_baseline(*baseline, records, origin);
  auto summary = report::write_summary(options.report_dir, origin, std::move(records), held);
  if (!summary) return report_error(summary.error());
  std::string others;
  if (summary->flaky) others += fmt::format(", {} flaky", summary->flaky);
  if (summary->skipped) others += fmt::format(", {} skipped", summary->skipped);
  fmt::print("{} green, {} red{}; report: {}\n", summary->green, summary->red, others,
             fs::absolute(options.report_dir / "summary.json").string());
  return summary->red != 0 ? kRed : summary->flaky != 0 ? kFlaky : kGreen;
}

}  // namespace tidemark::cli
