// The summary of a set of runs, as the files people and CI engines read: summary.json (the
// document every other view and `tidemark merge` start from), summary.html (for a person, in a
// browser) and junit.xml (for the CI engine's test view). A summary says where its runs came
// from: the command, what it ran apart from the shard (its series), and which shard it was, so
// that the summaries of a sharded run can be put back together and checked for gaps.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "report/run_record.h"

namespace tidemark {
class FileBatch;
}

namespace tidemark::report {

struct ShardOrigin {
  size_t index = 1;  // from 1
  size_t total = 1;
  std::string protocol;              // "--shard", "Bazel", "GoogleTest", "GitLab"
  size_t of = 0;                     // how many scenarios the whole selection holds
  std::string selection;             // a hash of the whole selection's names: every shard's must agree
  std::vector<std::string> members;  // this shard's scenarios (group/name)
};

struct Origin {
  std::string command;  // "run", "parity", "compare", "merge"
  std::string series;   // what was run apart from the shard: "run lane=spawn", ...
  std::optional<ShardOrigin> shard;
  std::string dir;                  // where that summary was, for a merged one's sources
  std::vector<Origin> merged_from;  // a merged summary's sources
};

// Parity: every run of one scenario on one backend, with the same knobs and mutant, must give
// one digest, whatever its lane and whichever machine (shard) ran it.
struct ParityCell {
  std::string test;
  std::string lane;
  std::string backend;
  std::string digest;
  Verdict verdict = Verdict::Red;
};
struct ParityRow {
  std::string subject;
  std::string variant;  // the effective knobs, and the mutant
  bool same = false;    // every cell has one digest
  std::vector<ParityCell> cells;
};

// The baseline a set of runs was held to (report/baseline.h): its file, and its records of the
// runs' series that no run matched ("Magma.Direct.Portable.name@gl"): gone since.
struct BaselineOrigin {
  std::string source;
  std::vector<std::string> gone;
  bool operator==(const BaselineOrigin&) const = default;
};

// summary.json: where the runs came from and their records; the counts, the flaky list and the
// parity rows follow from the records.
struct Summary {
  Origin origin;
  std::vector<RunRecord> results;
  size_t green = 0;    // records that pass (green or expected red)
  size_t red = 0;      // records that fail, flaky ones apart
  size_t flaky = 0;    // flaky records (failed, then green under --retry): listed with every try's digest
  size_t skipped = 0;  // records of subjects that did not run (skipped, not run): neither green nor red
  std::vector<ParityRow> parity;
  std::optional<BaselineOrigin> baseline;
};

// The summary of `results`: counts and parity rows filled in; each result's series is the origin's
// unless it has one.
Summary summarize(const Origin& origin, std::vector<RunRecord> results);

// Writes summary.json, summary.html and junit.xml into `dir`. The records' folders and files
// are kept relative to `dir`, so a report folder can be moved (a CI engine's artifacts are
// downloaded elsewhere). Returns the summary summary.json holds.
Result<Summary> write_summary(const std::filesystem::path& dir, const Origin& origin, std::vector<RunRecord> results,
                              std::optional<BaselineOrigin> baseline = std::nullopt);
// The same three files added to `batch`, for a caller that writes them together with others
// (rebase): nothing is written until the batch is committed.
Summary add_summary(FileBatch& batch, const std::filesystem::path& dir, const Origin& origin,
                    std::vector<RunRecord> results, std::optional<BaselineOrigin> baseline = std::nullopt);

// summary.json, strictly (report/json_fields.h); paths stay as written (relative to its folder).
Result<Summary> read_summary(const std::filesystem::path& file);
// The same from its text; `where` names it in errors (the summary fuzz target's entry).
Result<Summary> parse_summary(std::string_view text, const std::string& where);

// The views, from a summary (paths relative to `dir`).
std::string summary_html(const Summary& summary, const std::filesystem::path& dir);
std::string junit_xml(const Summary& summary);

// A hash of the names of a whole selection (sorted), as a shard's summary records it.
std::string selection_hash(std::vector<std::string> names);

}  // namespace tidemark::report
