// `tidemark run FILE...`: each scenario in one lane, its verdict and what failed, and the summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <thread>

#include "cli/commands.h"
#include "cli/run_support.h"
#include "layer/link.h"
#include "layer/settings.h"
#include "report/baseline.h"
#include "report/summary.h"
#include "runner/verbs/parity.h"
#include "runner/kinds/scenario_subject.h"
#include "runner/pipeline/schedule.h"
#include "runner/pipeline/selection.h"
#include "runner/pipeline/subject.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// --digests, read before anything runs: the digests of plain runs, so no knob, mutant or fault beside it.
Result<std::optional<std::map<std::string, std::string>>> committed_digests(const RunArgs& args) {
  if (args.digests.empty()) return std::nullopt;
  if (!args.knobs.empty() || !args.lane.mutant.empty() || !args.faults.empty())
    return fail(ErrorKind::BadInput,
                fmt::format("--digests: expected runs with no --knob, --mutant or --fault (the committed digests are "
                            "of plain runs), found {}",
                            !args.knobs.empty()         ? "--knob"
                            : !args.lane.mutant.empty() ? "--mutant"
                                                        : "--fault"));
  TIDEMARK_TRY(digests, runner::read_digests(args.digests));
  return std::optional(std::move(digests));
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
  auto knobs = parse_knobs(args.knobs);
  if (!knobs) return report_error(knobs.error());
  auto mutant = parse_mutant_option(args.lane.mutant);
  if (!mutant) return report_error(mutant.error());
  // Scenarios and capture fixtures (*.capture.yaml), each loaded before anything runs.
  auto loaded = load_subjects(args.inputs, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  const runner::Subjects& subjects = loaded->subjects;
  auto setup = run_setup(args.report, args.expectations, args.baseline, args.time_bounds, args.no_isolation);
  if (!setup) return report_error(setup.error());
  runner::RunOptions& options = (*setup)->options;
  options.column = {.backend = args.lane.backend, .lane = *lane_options, .build = {}};
  const std::string fault = fmt::format("{}", fmt::join(args.faults, ","));
  if (auto parsed = layer::parse_settings(fault); !parsed)
    return report_error({ErrorKind::BadInput, fmt::format("--fault: {}", parsed.error())});
  options.variant = {.mutant = std::move(*mutant), .knobs = *knobs, .fault = fault, .cut = {}};
  options.validation = args.validation;
  options.repeat = args.repeat;
  options.retry = args.retry;
  auto committed = committed_digests(args);
  if (!committed) return report_error(committed.error());

  auto filter = runner::load_test_filter(args.schedule.skip_files, args.schedule.include_files);
  if (!filter) return report_error(filter.error());
  // Every run prepared before anything runs: an option that does not suit a subject (a knob it
  // lacks, a backend it does not list) is bad input before the report folder's first write.
  std::vector<runner::PreparedRun> prepared;
  for (const auto& subject : subjects) {
    runner::RunOptions each = options;
    if (!args.record.empty()) {
      auto path = runner::recording_path(args.record, *subject, subjects.size());
      if (!path) return report_error(path.error());
      each.column.lane.record = path->string();
      each.column.lane.record_name = subject->info().id;
    }
    auto run = runner::prepare_run(*subject, each);
    if (!run) return report_error(run.error());
    prepared.push_back(std::move(*run));
  }
  // The report folder's first write: every input above is read and checked before it.
  auto journal = open_journal(given, *resumed, args, options, subjects);
  if (!journal) return journal.error();
  runner::Schedule schedule{
      .jobs = args.schedule.jobs ? args.schedule.jobs : std::max(1u, std::thread::hardware_concurrency()),
      .shuffle = {},
      .max_fails = args.schedule.max_fails,
      .filter = &*filter,
      .done = journal->done};
  if (args.schedule.shuffle >= 0) schedule.shuffle = static_cast<uint64_t>(args.schedule.shuffle);
  const size_t journaled = journal->done ? journal->done->size() : 0;
  Progress progress = Progress::for_stdout("run", subjects.size() - journaled, verbosity());
  auto name = [&](size_t k) {
    return fmt::format("{} ({})", subjects[k]->info().id,
                       subjects[k]->info().in_lanes ? args.lane.lane : runner::kNoLane);
  };
  // The status line names the subjects under way; a record prints as it ends.
  runner::ScheduleEvents events;
  events.running = [&](const std::vector<size_t>& running) {
    std::vector<std::string> names;
    for (size_t k : running) names.push_back(name(k));
    progress.start(fmt::format("{}", fmt::join(names, ", ")));
  };
  std::optional<Error> unjournaled;  // the first record the journal could not keep: the run's error at its end
  events.finished = [&](size_t k, const report::RunRecord& record) {
    print_record(record, progress);
    progress.finish_item();
    if (auto kept = journal->writer.add(subjects[k]->info().id, record); !kept && !unjournaled)
      unjournaled = kept.error();
  };
  auto ran = runner::run_scheduled(prepared, schedule, events);
  if (!ran) return report_error(ran.error());
  if (unjournaled) return report_error(*unjournaled);
  std::vector<report::RunRecord> records = std::move(*ran);
  progress.close();
  const report::Origin origin{
      .command = "run", .series = runner::run_series(args.lane.lane, args.knobs, options), .shard = loaded->shard};
  if (*committed) {
    runner::hold_to_digests(records, **committed);
    for (const auto& record : records)
      if (auto changed = report::digest_change(record); !changed.empty())
        fmt::print(
            "DIGEST CHANGED {}: {} (a change of digests is deliberate: {} updated in the same commit, "
            "saying why)\n",
            record.test, changed, args.digests);
  }
  auto summary = finish_runs(**setup, origin, std::move(records));
  if (!summary) return report_error(summary.error());
  fmt::print("{} green, {} red{}{}; report: {}\n", summary->green, summary->red,
             summary->flaky ? fmt::format(", {} flaky", summary->flaky) : "",
             summary->skipped ? fmt::format(", {} skipped or not run", summary->skipped) : "",
             fs::absolute(options.report_dir / "summary.json").string());
  return summary->red != 0 ? kRed : summary->flaky != 0 ? kFlaky : kGreen;
}

}  // namespace tidemark::cli
