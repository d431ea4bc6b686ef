// Isolation: a subject whose driver would load into Tidemark's own process runs in a child, so a
// driver that crashes ends the child, not the suite's run; in every lane, so that time limits are
// watched and trees killed one way. The child is a forked worker of the run loop (core/worker.h:
// it has loaded no driver, and keeps the options and registries without a codec); one child runs
// the subjects in turn and is replaced when it dies. A dead child is a crash record
// (observe/crash_notes.h), a limit passed a timeout; `run --jobs N` keeps N (runner/pipeline/schedule.h).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "core/error.h"
#include "core/time_bounds.h"
#include "report/run_record.h"

namespace tidemark::crash_notes {
struct Notes;
}

namespace tidemark::runner {

struct RunOptions;
struct PreparedRun;
class Subject;

// The device the layer in an isolated subject's child saw lost in this run (its notes), if it did;
// `subject_file` names the step then.
std::optional<report::DeviceLostRecord> noted_device_lost(const crash_notes::Notes& notes,
                                                          const std::string& subject_file);

// In an isolated subject's child: the device the layer in a server this run started (a spawn or
// tcp lane's tidemark-server, where the device is) saw lost, from its status file in the servers'
// activity folder, if it did; `notes` and `subject_file` name the step then.
std::optional<report::DeviceLostRecord> servers_lost_device(const crash_notes::Notes& notes,
                                                            const std::string& subject_file);

// The limits a child's run of `subject` is watched under: the subject's own (runner/pipeline/subject.h's
// time_bounds) where the child drives it; where its run watches its own program (a capture's replay,
// under observe's bounds in the child), those plus kBackstopSeconds, so that the run's own watch,
// which names the program and what went before (a device lost, then a replayer spinning), ends it
// first and the child is killed only when stuck outside that watch. The margin holds a renderer
// server's start (its 20 s bound), its stop (two 10 s graces) and the tree's kill (2 s).
inline constexpr double kBackstopSeconds = 60;
TimeBounds child_bounds(const PreparedRun& run);

// How the child ended when it gave no record: the crash record and its words, its time, and
// the device the layer saw lost before, if it did.
struct ChildDied {
  report::CrashRecord crash;
  std::string why;
  std::optional<report::DeviceLostRecord> device_lost;
  double seconds = 0;
};

// How a run that passed a time limit ended: its child's tree killed, the timeout record and its words.
struct TimedOut {
  report::TimeoutRecord timeout;
  std::string why;
  double seconds = 0;
};

// Runs of subjects in one child of this process, one after another: forked at the first run, and
// again at the run after a child that died. The runs share the child's process as they would share
// Tidemark's with --no-isolation (the loader's drivers opened once, and what else a process keeps),
// so isolation costs a fork and one cold start per child, not one per subject. `pipeline(k)` runs
// the kth subject in the child, after the fork: what it reads was made before it.
class IsolatedRuns {
 public:
  using Pipeline = std::function<Result<report::RunRecord>(size_t index)>;
  explicit IsolatedRuns(Pipeline pipeline);
  IsolatedRuns(const IsolatedRuns&) = delete;
  IsolatedRuns& operator=(const IsolatedRuns&) = delete;
  ~IsolatedRuns();  // the child is told there is no more, and reaped

  using Answer = std::variant<report::RunRecord, ChildDied, TimedOut>;
  // The kth run's record or error, how its child died, or how it passed `bounds`. `subject_file`
  // names its last step.
  Result<Answer> run(size_t index, const std::string& subject_file, const TimeBounds& bounds);

  // The same in parts, for a caller that waits on several children at once: `send` asks the child
  // (forked first when there is none) for the kth run and starts watching `bounds`; poll() on
  // `socket()` (readable when the answer is there or the child has ended) for at most
  // `next_check()`, and `check_bounds` after a wait that found nothing: a limit passed kills the
  // child's tree and is the run's answer; else `receive` takes the answer once it is readable.
  Status send(size_t index, const TimeBounds& bounds);
  int socket() const;  // -1 when no run is under way
  std::chrono::milliseconds next_check() const;
  Result<std::optional<Answer>> check_bounds(const std::string& subject_file);
  Result<Answer> receive(const std::string& subject_file);

 private:
  Status start();

  Pipeline pipeline_;
  struct Child;
  std::unique_ptr<Child> child_;
  std::chrono::steady_clock::time_point sent_;
  std::optional<BoundsWatch> watch_;  // the limits of the run under way
};

}  // namespace tidemark::runner
