// `tidemark parity FILE... [--replay] [--save-digests F | --against F]`: the library
// (runner/verbs/parity.h) runs every subject in every lane; this prints a row per subject, compares
// with saved digests and writes the summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/commands.h"
#include "core/files.h"
#include "report/summary.h"
#include "runner/verbs/parity.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

// Every scenario in every lane: the digests must agree. Prints one row per subject.
int parity_command(const ParityArgs& args) {
  auto loaded = load_subjects(args.inputs, args.shard, args.shard_durations);
  if (!loaded) return report_error(loaded.error());
  auto setup = run_setup(args.report, {}, args.baseline, args.time_bounds, args.no_isolation);
  if (!setup) return report_error(setup.error());
  std::map<std::string, std::string> saved;
  if (!args.against.empty()) {
    auto read = runner::read_digests(args.against);
    if (!read) return report_error(read.error());
    saved = std::move(*read);
  }
  const fs::path& report_dir = (*setup)->options.report_dir;
  size_t total = 0;
  for (const auto& subject : loaded->subjects) total += subject->info().backends.size();
  Progress progress = Progress::for_stdout(args.replay ? "parity with replay" : "parity", total, verbosity());
  std::map<std::string, std::string> digests;  // the subjects every lane agreed on
  size_t mismatched = 0, unlike_saved = 0, unfinished = 0;
  auto print_subject = [&](const runner::ParitySubject& subject) {
    if (!subject.same())
      for (const auto& [digest, lanes] : subject.lanes_by_digest)
        progress.print(fmt::format("  {}: {}", digest, fmt::join(lanes, ", ")));
    const std::string no_digest = fmt::format("no digest: did not finish in {}", fmt::join(subject.unfinished, ", "));
    if (!subject.unfinished.empty()) progress.print("  " + no_digest);
    mismatched += subject.same() ? 0 : 1;
    unfinished += subject.unfinished.empty() ? 0 : 1;
    if (!subject.same() || verbosity() != Verbosity::Quiet)
      progress.print(fmt::format("{} {}{}", subject.same() ? "SAME" : "DIFF", subject.name, subject.row));
    progress.finish_item();
    const std::string here = subject.same()                ? subject.lanes_by_digest.begin()->first
                             : !subject.unfinished.empty() ? "(" + no_digest + ")"
                                                           : "(lanes disagree)";
    if (subject.same()) digests[subject.name] = here;
    if (args.against.empty()) return;
    auto found = saved.find(subject.name);
    if (found != saved.end() && found->second == here) return;
    ++unlike_saved;
    progress.print(fmt::format("  against {}: {}, here {}", args.against,
                               found == saved.end() ? std::string("no digest saved") : "saved " + found->second, here));
  };
  auto ran = runner::parity(
      loaded->subjects, (*setup)->options, args.replay,
      [&](std::string_view name) { progress.start(std::string(name)); }, print_subject);
  if (!ran) return report_error(ran.error());
  progress.close();
  const report::Origin origin{
      .command = "parity", .series = args.replay ? "parity replay" : "parity", .shard = loaded->shard};
  auto summary = finish_runs(**setup, origin, std::move(ran->results));
  if (!summary) return report_error(summary.error());
  const bool worse = !std::ranges::all_of(summary->results, [](const auto& record) {
    return !record.baseline || record.baseline->movement != report::Movement::Worse;
  });
  if (!args.save_digests.empty())
    if (auto ok = write_file_atomically(args.save_digests, runner::digests_text(digests)); !ok)
      return report_error(ok.error());
  const size_t subjects = ran->subjects.size();
  fmt::print("{} of {} scenarios give one digest in every lane{}; report: {}\n", subjects - mismatched, subjects,
             unfinished == 0
                 ? ""
                 : fmt::format(" ({} did not finish in every lane: a run cut short has no digest)", unfinished),
             fs::absolute(report_dir / "summary.json").string());
  if (!args.against.empty())
    fmt::print("{} of {} scenarios match the digests in {}\n", subjects - unlike_saved, subjects, args.against);
  return mismatched == 0 && unlike_saved == 0 && !worse ? kGreen : kRed;
}

}  // namespace tidemark::cli
