#include "cli/run_support.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command_line.h"
#include "core/files.h"
#include "runner/pipeline/build_runs.h"
#include "runner/kinds/scenario_subject.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

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

// What the run about to start is, as a journal's header says it.
Result<report::JournalHeader> header_of(const RunArgs& given, const std::optional<Resumed>& resumed,
                                        const RunArgs& args, const runner::RunOptions& options,
                                        const runner::Subjects& subjects) {
  report::JournalHeader header{
      .arguments = resumed && given.inputs.empty() ? resumed->journal.header.arguments : journaled_arguments(),
      .cwd = fs::current_path().string(),
      .series = runner::run_series(args.lane.lane, args.knobs, options),
      .build = {},
      .subjects = {}};
  TIDEMARK_TRY(build, runner::build_of(options));
  header.build = build;
  for (const auto& subject : subjects) {
    TIDEMARK_TRY(hash, content_hash(subject->info()));
    header.subjects.push_back({subject->info().id, hash});
  }
  return header;
}

}  // namespace

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
  else if (report::not_ran(record.verdict) || record.verdict == report::Verdict::Flaky ||
           record.verdict == report::Verdict::Nondeterministic)
    progress.print(fmt::format("      {}", record.why));
  else if (record.verdict == report::Verdict::DeviceLost)
    progress.print(fmt::format("      device lost: {}", record.why));
  else if (record.verdict == report::Verdict::Timeout)
    progress.print(fmt::format("      timeout: {}", record.why));
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

Result<std::optional<Resumed>> resumed_run(const RunArgs& given) {
  if (given.resume.empty()) return std::nullopt;
  TIDEMARK_TRY(journal, report::read_journal(report::journal_file(given.resume)));
  RunArgs args = given;
  if (given.inputs.empty()) {
    // Its options are the journal's: one given beside --resume alone would be ignored, so it is
    // refused (given with the paths, the whole command line is checked against the journal's).
    TIDEMARK_TRY(beside, run_options_given(command_arguments()));
    std::erase(beside, "--resume");
    if (!beside.empty())
      return fail(ErrorKind::BadInput,
                  fmt::format("--resume {}: expected no other option of run (a resumed run takes its options from "
                              "its journal; give its whole command line with --resume to check them), found {}",
                              given.resume, fmt::join(beside, ", ")));
    TIDEMARK_TRY(recorded, parse_run_arguments(journal.header.arguments));
    args = std::move(recorded);
    args.lane.backend = report::Column::parse(args.lane.backend).backend;
  }
  args.resume = given.resume;
  args.report = given.resume;
  return std::optional(Resumed{std::move(journal), std::move(args)});
}

std::expected<RunJournal, int> open_journal(const RunArgs& given, const std::optional<Resumed>& resumed,
                                            const RunArgs& args, const runner::RunOptions& options,
                                            const runner::Subjects& subjects) {
  auto header = header_of(given, resumed, args, options, subjects);
  if (!header) return std::unexpected(report_error(header.error()));
  const fs::path file = report::journal_file(options.report_dir);
  if (!resumed) {
    if (auto made = make_directories(options.report_dir); !made) return std::unexpected(report_error(made.error()));
    auto made = report::JournalWriter::create(file, *header);
    if (!made) return std::unexpected(report_error(made.error()));
    return RunJournal{std::move(*made), nullptr};
  }
  if (auto same = report::check_same_run(resumed->journal.header, *header, file.string()); !same) {
    report_error(same.error());
    return std::unexpected(kResumeRefused);
  }
  auto writer = report::JournalWriter::resume(file);
  if (!writer) return std::unexpected(report_error(writer.error()));
  const size_t done = resumed->journal.records.size();
  fmt::print("resuming {}: {} of {} subjects have a record in its journal; running {}\n", options.report_dir.string(),
             done, subjects.size(), subjects.size() - done);
  return RunJournal{std::move(*writer), &resumed->journal.records};
}

}  // namespace tidemark::cli
