// A run's journal, journal.jsonl in the report folder: what `tidemark run` has finished so far, so
// that `run --resume DIR` after a kill runs only the subjects without a record. A header line (what
// was run, on which build, the subjects' hashes), then one finished subject's record a line (a later
// line for a subject replaces an earlier one). Each line is one O_APPEND write, fdatasync'd before
// the next subject starts: a killed Tidemark loses at most the subject in flight.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/process.h"
#include "report/run_record.h"

namespace tidemark::report {

// A subject of the run as its header names it: its id, and its content hash when the run started.
struct JournalSubject {
  std::string id;
  std::string hash;
  bool operator==(const JournalSubject&) const = default;
};

struct JournalHeader {
  std::vector<std::string> arguments;    // the command's arguments after its word, as given
  std::string cwd;                       // where they were given (their relative paths are relative to it)
  std::string series;                    // what the run was apart from its shard (runner::run_series)
  std::string build;                     // the driver build it ran on; empty: this process's environment
  std::vector<JournalSubject> subjects;  // in the run's order
  bool operator==(const JournalHeader&) const = default;
};

struct Journal {
  JournalHeader header;
  std::map<std::string, RunRecord> records;  // by subject id
};

// The journal's file in a report folder.
std::filesystem::path journal_file(const std::filesystem::path& report_dir);

// Reads a journal strictly (report/json_fields.h); `where` names it in errors. A last line with no
// newline (torn as the machine went down) is dropped and its subject runs again; a malformed line
// before it is an error.
Result<Journal> parse_journal(std::string_view text, const std::string& where);
Result<Journal> read_journal(const std::filesystem::path& file);

// Whether a run about to go on with `recorded` (read from `where`) is the run it journals: the same
// arguments, folder, series, driver build and subjects with the same content. Else an error naming
// the first difference, the journal's value and the run's.
Status check_same_run(const JournalHeader& recorded, const JournalHeader& now, const std::string& where);

// Appends records to a journal, each line written whole and synced (see above).
class JournalWriter {
 public:
  // A new journal at `file` (one there already is replaced) holding `header`.
  static Result<JournalWriter> create(const std::filesystem::path& file, const JournalHeader& header);
  // The journal at `file`, to go on with. A torn last line is cut off first, so that the next
  // record starts a line of its own.
  static Result<JournalWriter> resume(const std::filesystem::path& file);
  Status add(const std::string& id, const RunRecord& record);

 private:
  JournalWriter(std::filesystem::path file, UniqueFd fd) : file_(std::move(file)), fd_(std::move(fd)) {}
  Status append_line(const std::string& line);
  std::filesystem::path file_;
  UniqueFd fd_;
};

}  // namespace tidemark::report
