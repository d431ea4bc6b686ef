// Runs held to a baseline: the records of an earlier run (a report folder's summary.json, or a
// merged one from CI) against which every gauge of every run is judged. Runs are deterministic,
// so a gauge that moves at all has moved for a reason: which way is worse comes from the gauge
// catalogues (core/gauges.h), and how far it may go before it is red is a tolerance per gauge
// (default 0). A run worse than its baseline fails the set however its checks went; one better
// is reported as improved; a run with no baseline record is new, and a baseline record of the
// same series with no run is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "report/run_record.h"
#include "report/summary.h"

namespace tidemark::report {

// How far a gauge may get worse before it is red: the larger of the two allowances.
struct Tolerance {
  int64_t absolute = 0;
  double percent = 0;  // of the baseline value
};
using Tolerances = std::map<std::string, Tolerance>;

// "devbytespk=1048576" or "wlivepk=5%": a gauge of a catalogue and its tolerance. Bad input names
// what was expected.
Status add_tolerance(Tolerances& tolerances, std::string_view text);

// One gauge: Same (or worse within its tolerance), Improved, Changed (no worse direction) or Worse.
Movement judge_gauge(std::string_view gauge, int64_t baseline, int64_t now, const Tolerances& tolerances);

// The change from `before` to `now` for a person: "+50%", "-24%", "+0.4%", or "+7" from 0.
std::string change_text(int64_t before, int64_t now);
// "devbytespk 12582912 vs baseline 8388608 (+50%)"
std::string describe(const GaugeMove& move);

// Every gauge of `now` the baseline record also has, judged; the moves are the gauges that moved.
BaselineJudgement judge(const RunRecord& now, const RunRecord& baseline, const Tolerances& tolerances);

// What a run is held to: the baseline's runs, where they came from, and the tolerances.
struct Baseline {
  Summary summary;
  std::string source;
  Tolerances tolerances;
};

// `path` (a summary.json, or a report folder holding one) with `tolerances` (GAUGE=N or GAUGE=P%
// each); nullopt when `path` is empty (then a tolerance is bad input: there is nothing to hold to).
Result<std::optional<Baseline>> load_baseline(const std::string& path, const std::vector<std::string>& tolerances);

// Judges each record of a run from `origin` (a record without a series is of the origin's)
// against the baseline record of the same test, mutant and knobs (no such record: New); returns
// what its summary names: the source, and the baseline's records of the same series (and, for a
// shard, of its scenarios) that no record matched.
BaselineOrigin hold_to_baseline(std::vector<RunRecord>& records, const Origin& origin, const Baseline& baseline);

// For a person: each run that moved (WORSE/MOVED with its moves, NEW), each one GONE, then the
// tally ("baseline SOURCE: 1 worse, 0 improved, ...").
std::vector<std::string> baseline_lines(const std::vector<RunRecord>& records, const BaselineOrigin& held);

}  // namespace tidemark::report
