// `tidemark replay FILE.tdrec [--lane L] [--no-compare]`: a recording replayed in a lane.
#include <fmt/format.h>

#include "cli/commands.h"
#include "lanes/replay.h"

namespace tidemark::cli {

// Replays a recording in a lane; every reply must match the recorded one.
int replay_command(const ReplayArgs& args) {
  auto options = lane_options_from(args.lane);
  if (!options) return report_error(options.error());
  auto report = lanes::replay(args.file, *options, !args.no_compare, args.lane.mutant);
  if (!report) return report_error(report.error());
  double rate = report->seconds > 0 ? double(report->requests) / report->seconds : 0;
  if (report->divergence) {
    fmt::print("REPLAY DIVERGED {} [{}] at {}\n", report->scenario, args.lane.lane, *report->divergence);
    return kRed;
  }
  fmt::print("REPLAY OK {} [{}]: {} records, {} commands in {:.3f} s ({:.0f} commands/s); digest {}\n",
             report->scenario, args.lane.lane, report->records, report->requests, report->seconds, rate,
             report->digest.empty() ? "(no gauges and pixels read)" : report->digest);
  return kGreen;
}

}  // namespace tidemark::cli
