// Red-once: a scenario's green counts only when each of its controls (a mutant, a knob
// setting) makes exactly the named checks fail. The measured red and green values are kept
// in a ledger, a committed file diffed in review like any golden.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "runner/pipeline/subject.h"
#include "lanes/lanes.h"

namespace tidemark::runner {

// What one control did in one lane. Its effect on the checks is not a run's verdict
// (report::Verdict): a run that went red as the control names is the effect wanted.
struct ControlRun {
  enum class Effect {
    RedAsNamed,  // exactly the named checks failed
    StayedGreen,
    WrongRed,  // a crash, an error, or other checks failing
    Skipped,   // the scenario excludes this lane for this control
  };
  std::string control;  // "mutant=reclaim.frame_bucket", "knobs=wire_deferred_mb:0"
  std::string lane;
  Effect effect = Effect::Skipped;
  std::string detail;  // what happened: failed checks with values, the error, the skip reason
  // Ledger lines: one per expected check, "<red detail> | green <green detail>".
  std::vector<std::string> measured;
};

// How a control's run reads in red-once's output: "RED (as required)", "stayed green", ...
std::string_view effect_label(ControlRun::Effect effect);

struct RedOnceReport {
  std::string scenario;  // group/name, and the column when not the subject's own: "group/name@gl@virgl-zink-22.3.6"
  std::string backend;   // the column's backend, "gl@virgl-zink-22.3.6" on a driver build
  // Why no control proves the checks on this backend (the subject's `unproven:`): then none ran.
  std::string unproven;
  bool green_ok = true;  // the unmutated run was green in every lane
  std::vector<std::string> green_failures;
  std::vector<ControlRun> runs;
  std::vector<std::string> problems;      // wrong reds, controls red in no lane, ledger drift
  std::vector<std::string> lanes;         // the lanes it ran in: only their ledger lines are its to judge
  std::vector<report::RunRecord> greens;  // the runs without a control, a lane each
  bool passed() const { return problems.empty(); }
};

struct RedOnceOptions {
  std::vector<Lane> lanes{std::begin(kAllLanes), std::end(kAllLanes)};  // a subject in no lane runs once
  // Each run's options but its lane and variant: the server program and timeouts, the layer, the
  // drivers files, and the report folder, under which each control has a folder of its own.
  RunOptions run;
};

// The checks a control's run turned red. On a column where the green run is a known failure
// (expectations.txt), a check already red there counts only when the run got worse than the
// line's values (the run red on exactly the line's checks, not expected-red): a check already
// red cannot be proven by failing again, only by failing worse than its known value.
std::vector<std::string> turned_red(const report::RunRecord& red, const report::RunRecord& green);
// The checks a control must turn red against `green`: those it names, less the ones `green`
// already fails as known failures that did not get worse (in `turned`, turned_red's answer). A
// known failure with no value to go worse than (a waits or kmd check) cannot turn red on that
// column: its expectations line stands for it, and the control is held to the others.
std::vector<std::string> checks_to_turn(const std::vector<std::string>& named, const std::vector<std::string>& turned,
                                        const report::RunRecord& green);

// Runs the subject green, then under each control that applies on the column's backend, in each
// lane: green, then each control red on exactly the checks it names (or, a control that says so,
// the run itself failing). With expectations, a known failure's green run is its line, held: a
// control proves a check already red there only by making it worse than the line's values.
Result<RedOnceReport> red_once(const Subject& subject, const RedOnceOptions& options);

// The ledger: "<group>/<name> | <control> | <lane> | <check> | red <value> | green <value>",
// sorted. Lines of scenarios not in `reports` are kept as they are.
std::vector<std::string> ledger_lines(const RedOnceReport& report);
Result<std::vector<std::string>> read_ledger(const std::filesystem::path& file);
Status write_ledger(const std::filesystem::path& file, std::vector<std::string> lines);
// The ledger file's text: its header, then the lines sorted, each once.
std::string ledger_text(std::vector<std::string> lines);
// Whether a ledger line is the report's to judge or replace: its scenario, in a lane it ran in.
bool covers(const RedOnceReport& report, const std::string& ledger_line);
// The ledger with the lines `measured` covers (their scenarios, in the lanes they ran) replaced by `lines`.
std::vector<std::string> replace_ledger_lines(const std::vector<std::string>& ledger,
                                              const std::vector<RedOnceReport>& measured,
                                              std::vector<std::string> lines);
// Problems where the report's lines differ from the ledger's lines it covers.
std::vector<std::string> ledger_drift(const RedOnceReport& report, const std::vector<std::string>& ledger);

// Red-once over a set against its ledger: a scenario without controls fails (a green that never
// went red proves nothing), a ledger line that drifted is a problem; with `update_ledger` the
// ledger is rewritten instead, its lines of the scenarios and lanes measured replaced. With a
// report folder, what was measured is written there as red-once.json (report/red_once_record.h).
struct RedOnceSetOptions {
  RedOnceOptions red_once;
  std::filesystem::path ledger;
  bool update_ledger = false;
  std::function<void(const Subject&)> on_start;
  std::function<void(const RedOnceReport&)> on_done;  // each scenario, its problems final
};
struct RedOnceSet {
  size_t scenarios = 0;
  size_t failed = 0;
  size_t unproven = 0;  // passed with no control on this backend, as the subject says why
  bool ledger_written = false;
  std::vector<report::RunRecord> greens;  // every subject's runs without a control
};
Result<RedOnceSet> red_once_set(const Subjects& subjects, const RedOnceSetOptions& options);

}  // namespace tidemark::runner
