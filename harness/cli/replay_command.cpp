// `tidemark replay FILE.tdrec [--lane L] [--no-compare]`: a recording replayed in a lane, as `run`
// runs it (runner::run): in a child of its own within its time limits, its crash or hang a verdict.
#include <fmt/format.h>

#include "cli/commands.h"
#include "layer/link.h"
#include "report/run_record.h"
#include "runner/kinds/recording_subject.h"
#include "runner/pipeline/subject.h"

namespace tidemark::cli {

// Replays a recording in a lane; every reply must match the recorded one.
int replay_command(const ReplayArgs& args) {
  auto lane = lane_options_from(args.lane);
  if (!lane) return report_error(lane.error());
  auto mutant = parse_mutant_option(args.lane.mutant);
  if (!mutant) return report_error(mutant.error());
  auto subject = runner::RecordingSubject::load(args.file);
  if (!subject) return report_error(subject.error());
  auto setup = runner::RunSetup::make({.report_dir = {},
                                       .expectations = {},
                                       .baseline = {},
                                       .tolerances = {},
                                       .time_bounds = args.time_bounds,
                                       .isolation = !args.no_isolation,
                                       .layer_dir = layer::layer_dir(),
                                       .drivers_files = drivers_files()});
  if (!setup) return report_error(setup.error());
  runner::RunOptions& options = (*setup)->options;
  options.column = {.backend = args.lane.backend, .lane = *lane, .build = {}};
  options.variant.mutant = std::move(*mutant);
  options.compare_replies = !args.no_compare;
  auto record = runner::run(**subject, options);
  if (!record) return report_error(record.error());
  const std::string replies = record->checks.empty() ? "" : record->checks.front().detail;
  if (record->verdict == report::Verdict::Green) {
    fmt::print("REPLAY OK {} [{}]: {} in {:.3f} s; digest {}\n", record->subject, args.lane.lane, replies,
               record->seconds, record->digest.empty() ? "(no gauges and pixels read)" : record->digest);
    return kGreen;
  }
  if (record->verdict == report::Verdict::Red && !replies.empty())
    fmt::print("REPLAY DIVERGED {} [{}] at {}\n", record->subject, args.lane.lane, replies);
  else  // a crash, a timeout, a lost device, a lane that could not run it
    fmt::print("REPLAY {} {} [{}]: {}\n", report::verdict_label(record->verdict), record->subject, args.lane.lane,
               record->why);
  return kRed;
}

}  // namespace tidemark::cli
