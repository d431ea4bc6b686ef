// Isolation: a subject whose driver would be loaded into Tidemark's own process (a scenario or a
// recording in the monolith or split lane, on any backend, through all its --repeat runs) runs in
// a child process, so a driver that crashes ends the child and not the run of the suite.
//
// The child is a fork() of the run loop, not a re-exec of tidemark: the parent has loaded no
// driver yet (every session is opened in a child) and holds its options, expectations and
// registries in memory, which the child keeps without a codec for each; a fork costs a few
// milliseconds where an exec would re-read the drivers file, the scenario and the expectations.
// The parent's only other thread is the status line's ticker (core/progress.h), which the child
// never touches. The child runs the subject's whole pipeline (its repeats, readings, verdict and
// result.json), hands its record back through the build answer's codec (runner/build_runs.h) in a
// memory file, and leaves by _exit: nothing of the driver's runs at exit. It notes what it does
// in memory it shares with the parent (core/crash_notes.h): a child that dies is a crash record
// naming its signal, its pid, its last step, and a renderer server that ended under it.
#pragma once

#include <functional>
#include <string>
#include <variant>

#include "core/error.h"
#include "report/run_record.h"

namespace tidemark::runner {

struct RunOptions;
class Subject;

// Whether a run of `subject` with `options` loads its driver into this process: isolated unless
// the options say not.
bool drives_here(const Subject& subject, const RunOptions& options);

// How the child ended when it gave no record: the crash record and its words, and its time.
struct ChildDied {
  report::CrashRecord crash;
  std::string why;
  double seconds = 0;
};

// Runs `pipeline` in a child: its record or error, or how the child died. `subject_file` names
// the step the child noted last.
Result<std::variant<report::RunRecord, ChildDied>> run_in_child(
    const std::function<Result<report::RunRecord>()>& pipeline, const std::string& subject_file);

}  // namespace tidemark::runner
