// What `tidemark run` (run_commands.cpp) keeps beside its loop: a record's lines in the terminal,
// and its journal (report/journal.h): the run `--resume DIR` goes on with, and the journal of the
// run about to start.
#pragma once

#include <expected>
#include <map>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "core/progress.h"
#include "report/journal.h"
#include "runner/pipeline/subject.h"

namespace tidemark::cli {

// A record's lines: the verdict, then what failed (and, with --verbose, what passed). With
// --quiet a green record prints nothing.
void print_record(const report::RunRecord& record, Progress& progress);

// A run to go on with (--resume DIR): its journal, and the options to run with. Given only the
// folder, the options are the journal's; given more, they must be the same (open_journal checks
// them with the rest of its header once the subjects are loaded).
struct Resumed {
  report::Journal journal;
  RunArgs args;
};
// None without --resume.
Result<std::optional<Resumed>> resumed_run(const RunArgs& given);

struct RunJournal {
  report::JournalWriter writer;
  const std::map<std::string, report::RunRecord>* done = nullptr;  // resuming: the journaled records
};
// The journal of the run about to start: made new in `options.report_dir`, or (resuming) the
// resumed one, once its header is checked to be this run's (and said so). When it cannot be, the
// error is printed and the exit code given (kResumeRefused: another run).
std::expected<RunJournal, int> open_journal(const RunArgs& given, const std::optional<Resumed>& resumed,
                                            const RunArgs& args, const runner::RunOptions& options,
                                            const runner::Subjects& subjects);

}  // namespace tidemark::cli
