// `tidemark bisect`: the driver build or commit that made a subject bad. The candidates
// (candidates.h) are searched (search.h) by a judge that runs the subject on each through the
// one pipeline (runner/verbs/compare.h: a build's runs in a process of its own under its environment,
// its identity checked), `repeat` times, and holds the runs to the predicate.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bisect/document.h"
#include "bisect/search.h"
#include "core/error.h"
#include "core/lane.h"
#include "report/baseline.h"
#include "report/run_record.h"

namespace tidemark::bisect {

// What makes a candidate bad.
struct Predicate {
  enum class Kind { Red, Gauge, Verdict, Digest } kind = Kind::Red;
  std::string check;  // Red: only this check (its id, "gauge[0]"); empty: any check or a verdict not green
  std::string gauge;  // Gauge: this gauge worse (its catalogue's direction) than `value` beyond the tolerance
  std::optional<int64_t> value;                      // none: the good end's value
  report::Tolerance tolerance_given;                 // beyond the value: worse
  report::Verdict verdict = report::Verdict::Crash;  // Verdict: a run with this verdict
  std::string text() const;                          // for a person: "vkbufspk worse than 4107+5%"
};

// From the command line's words: --check ID, --gauge G with --worse-than VALUE[+N|+N%] (VALUE a
// number or `good`: the good end's), --verdict NAME, --digest; at most one. Bad input names the option.
Result<Predicate> parse_predicate(const std::string& check, const std::string& gauge, const std::string& worse_than,
                                  const std::string& verdict, bool digest);

// A candidate's runs judged: one record per repeat (each a process of its own on its build).
// Skip when nothing ran or any repeat could not run; nondeterministic when the repeats disagree.
struct JudgedRuns {
  Judged judged;
  std::vector<std::string> digests;
};
JudgedRuns judge_records(const std::vector<report::RunRecord>& records, const Predicate& predicate,
                         const report::RunRecord* good_end);

struct BisectOptions {
  std::vector<std::string> subject;  // one scenario or capture fixture
  std::string backend = "gl";        // each candidate's column is BACKEND@BUILD
  Lane lane = Lane::Monolith;
  Predicate predicate;
  int repeat = 1;
  std::filesystem::path report_dir;
  std::filesystem::path layer_dir;
  std::vector<std::filesystem::path> drivers_files;  // --drivers: builds a candidate's entry may name (a server's)
  // An ordered list of builds ...
  std::vector<std::filesystem::path> builds;
  std::string only;
  // ... or a git range.
  std::filesystem::path repo;
  std::string good, bad, build_command;
  std::filesystem::path cache;  // empty: $XDG_CACHE_HOME/tidemark/bisect (else ~/.cache/...)
  // A capture fixture's subject: cut it (capture/capture_reduce.h) to a fixture red on the first
  // bad and green on the last good, written under <report_dir>/reduced/. Without it, only offered.
  bool reduce = false;
  // A git range: candidates built at once while one is judged (the one judged next among them);
  // 1: each built when it is judged.
  unsigned jobs = 1;
};

// Where built revisions are kept when --cache is not given.
std::filesystem::path default_cache();

// Runs the bisect; `on_judged` hears each candidate as it is judged. Writes bisect.json and
// bisect.html in the report folder. The ends not good and bad: bad input naming which.
Result<BisectDocument> run_bisect(const BisectOptions& options,
                                  const std::function<void(const BisectDocument&, const TriedCandidate&)>& on_judged);

}  // namespace tidemark::bisect
