// `tidemark parity`'s work: every scenario on each of its backends in every lane (and, asked, the
// monolith session recorded and replayed in every lane), every capture fixture replayed twice:
// each subject must give one digest.
// Beside it the digests file, what one build saves and another compares with.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "runner/kinds/scenario_subject.h"

namespace tidemark::runner {

// One subject (group/name, @backend on another than its own) and where each digest came from.
struct ParitySubject {
  std::string name;
  std::map<std::string, std::vector<std::string>> lanes_by_digest;  // digest (or "diverged: ...") -> lanes
  // The lanes whose run did not finish (report::finished), with its verdict: "monolith (timeout)".
  // Such a run has no digest to agree on, so the subject does not agree.
  std::vector<std::string> unfinished;
  std::string row;  // " monolith=d1 split=d1 ... replay-tcp=d1", as printed
  bool same() const { return lanes_by_digest.size() == 1 && unfinished.empty(); }
};

struct ParityRun {
  std::vector<ParitySubject> subjects;
  std::vector<report::RunRecord> results;  // every lane's run, for the summary
};

// A subject in no lane of Tidemark's (a capture's replay) is replayed this many times instead:
// its replays must agree.
inline constexpr int kReplaysCompared = 2;

// Runs them with `base`'s report folder, isolation and time limits; `on_start` hears each subject's
// name before it runs, `on_done` each subject after.
Result<ParityRun> parity(const Subjects& subjects, const RunOptions& base, bool with_replay,
                         const std::function<void(std::string_view)>& on_start = {},
                         const std::function<void(const ParitySubject&)>& on_done = {});

// A digests file: "# comment" lines, then "group/name digest" per subject, sorted. Reading names
// the file, line and what was found on a bad line; writing says which compiler and mutant
// setting made it.
Result<std::map<std::string, std::string>> read_digests(const std::filesystem::path& file);
std::string digests_text(const std::map<std::string, std::string>& digests);
// Each record that has a digest held to the committed `digests` (its committed_digest set, "" when
// they hold none for its subject): report::digest_change says which moved.
void hold_to_digests(std::vector<report::RunRecord>& records, const std::map<std::string, std::string>& digests);

// --record PATH: a .tdrec file for one scenario (of `scenarios`), or a folder of <group>/<name>.tdrec.
Result<std::filesystem::path> recording_path(const std::string& record, const Subject& subject, size_t subjects);

}  // namespace tidemark::runner
