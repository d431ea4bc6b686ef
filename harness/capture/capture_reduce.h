// `tidemark reduce CAPTURE.capture.yaml --check C`: an apitrace capture cut to the fewest calls
// besides its setup that keep a driver's defect, by delta debugging (reduce/ddmin.h) over the
// units trace_calls.h may leave out. A cut is kept when the check is red under the bug and green
// under the fix, so it still tells them apart, as a control must. Bounded: when the budget is
// spent or the run is interrupted, the best cut so far is the result.
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "capture/capture_fixture.h"
#include "capture/capture_subject.h"
#include "runner/verbs/red_once.h"
#include "core/error.h"
#include "report/run_record.h"

namespace tidemark::capture {

// One side of the judgement: a layer fault on a driver build ("" for each: none, this process's).
struct Side {
  std::string fault;
  std::string build;
  std::string describe() const;  // "fault=hold_frees on mesa-22.3.6", "no fault", ...
};

struct ReduceProgress {
  std::string phase;   // "setup alone", "frames", "calls"
  size_t tried = 0;    // candidates judged (each distinct one once)
  size_t replays = 0;  // replays made (two for a candidate red under the bug)
  size_t kept = 0;     // the best candidate's calls besides setup
  size_t calls = 0;    // and all its calls
  double seconds = 0;
};

struct CaptureReduceOptions {
  std::string check;  // a check of the fixture, as written or gauge[K] (check[K], as fixtures once named it)
  Side bug, fix;
  std::vector<std::filesystem::path> drivers_files;
  std::filesystem::path layer_dir;
  std::filesystem::path work_dir;  // the candidates and their replays
  unsigned jobs = 0;               // candidates judged at once; 0: one per core
  std::function<void(const ReduceProgress&)> progress;
  // The search's wall-clock budget: no candidate is started after it (the result's own replays
  // still are). Ten minutes: the 6 000-respecify capture's window is found in under two.
  std::chrono::seconds budget{600};
  std::function<bool()> interrupted;  // true once the user asked to stop (the CLI's SIGINT)
};

struct CaptureReduction {
  std::filesystem::path trace;  // the reduced capture, in work_dir
  std::string check;            // as written
  bool whole = false;           // the check is on the process tree (whole:), not each process
  size_t calls_before = 0, removable_before = 0, setup_calls = 0;
  std::vector<std::string> kept;       // the functions of the calls kept besides setup, in order
  report::RunRecord bug_run, fix_run;  // the reduced capture's replays
  ReduceProgress done;
  std::string stopped;  // why the search ended early ("the budget of 600 s was spent"); empty: it ran to its end
};

// "4 glBufferData, glDrawArrays": the functions of `kept`, each with its count, in order of first call.
std::string kept_summary(const std::vector<std::string>& kept);

// Errors: a capture that is not an apitrace one, a check the fixture does not have, bug and fix
// the same, or a capture that is not interesting to begin with (with what each side gave).
Result<CaptureReduction> reduce_capture(const CaptureFixture& fixture, const CaptureReduceOptions& options);

// The reduction as a capture fixture NAME.capture.yaml beside NAME.trace in `out`: the check, and
// the bug as its control (its fault, or its build); proven red-once on the fix's build before
// anything is written in `out` (a name taken there is refused).
struct WrittenReduction {
  std::filesystem::path fixture, trace;
  runner::RedOnceReport red_once;
};
Result<WrittenReduction> write_reduction(const CaptureFixture& from, const CaptureReduction& reduction,
                                         const CaptureReduceOptions& options, const std::string& name,
                                         const std::filesystem::path& out);

}  // namespace tidemark::capture
