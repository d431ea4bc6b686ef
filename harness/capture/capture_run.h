// A capture fixture run: its replayer under `tidemark observe`'s machinery (the Tidemark layer
// beneath, a model host per process), its checks judged, and the result as a run record, so the
// summary, JUnit, the baseline and the expectations take it as they take a scenario's. Lanes do
// not apply (the replayer is a program of its own, not a session): a record says lane "capture".
// Red-once for a capture: each control's fault or driver build must make exactly the checks it
// names red (or, for `replay`, the replay itself fail).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "capture/capture_fixture.h"
#include "core/error.h"
#include "report/compare.h"
#include "report/run_record.h"
#include "runner/expectations.h"

namespace tidemark::capture {

struct RunOptions {
  std::filesystem::path report_dir;  // the run's folder is <report_dir>/capture/<group>/<name>
  std::filesystem::path layer_dir;   // where the layer and its manifest are
  std::string fault;                 // a control's fault; empty: none
  // The driver build the replay runs on, named in one of drivers_files; empty: this process's
  // (its environment as it is). The replayer alone runs under the build's environment.
  std::string build;
  std::vector<std::filesystem::path> drivers_files;
  int repeat = 1;  // > 1: every replay must give the same gauges (one digest)
  // Known failures: a line for the fixture's backend (gl for an apitrace, vulkan for a GFXR
  // capture) and id, or for the driver build the process runs on, judges its run.
  const std::vector<runner::Expectation>* expectations = nullptr;
};

// "Capture.<Group>.<name>": the test name a capture fixture's run has.
std::string test_name(const CaptureFixture& fixture);

// The replay, judged: green when it replayed (exit 0, a Vulkan device under the layer) and every
// check held; red when a check failed; could-not-run when the replay failed. Writes result.json,
// observation.json and trace.pftrace in its folder.
Result<report::RunRecord> run_capture(const CaptureFixture& fixture, const RunOptions& options);

// Red-once of a capture fixture: one problem per control that was not red exactly as it names.
struct ControlOutcome {
  Control control;
  bool red_as_named = false;
  std::string detail;  // what failed under it
};
struct RedOnce {
  std::vector<ControlOutcome> outcomes;
  std::vector<std::string> problems;  // not green without a fault, no controls, a control not red as named
  bool passed() const { return problems.empty(); }
};
// Green without a fault, then each control red exactly as it names.
Result<RedOnce> red_once_capture(const CaptureFixture& fixture, const RunOptions& options);

// `tidemark compare` of capture fixtures: each fixture a row, each column its replay on a driver
// build (BACKEND@BUILD, or BACKEND for this process's) when BACKEND is the capture's own (gl for
// an apitrace, vulkan for a GFXR capture); another backend's column does not apply (a not-judged
// cell that says why), and a row no column judged fails the comparison. Every layer gauge in each cell, each cell held
// to the row's first. The records (a column on a build named "...@gl@mesa-25.0.7", as build runs are) go to the
// summary.
struct CaptureComparison {
  std::vector<report::CompareRow> rows;
  std::vector<report::RunRecord> records;
  bool failed = false;  // a cell was not green (or an expected red that turned green)
};
Result<CaptureComparison> compare_captures(const std::vector<CaptureFixture>& fixtures,
                                           const std::vector<std::string>& columns, const RunOptions& options,
                                           const std::function<void(const report::CompareRow&)>& on_row = {});

// The fixture as lint holds expectations lines to it: its id, backend and check ids.
runner::OtherSubject lint_subject(const CaptureFixture& fixture);

}  // namespace tidemark::capture
