// A test subject, and the one pipeline every subject reaches a run record by: subject x column
// (backend, lane, driver build) x variant (mutant, knobs, layer fault) -> report::RunRecord. A subject
// knows its names, checks and one run; the report folder, --repeat, digests, verdict, expectations
// line and result.json are written here once, for every subject.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/lane.h"
#include "lanes/lanes.h"
#include "report/run_record.h"
#include "runner/expectations.h"

namespace tidemark::runner {

// Where a subject runs. A capture's replay is a program of its own: lanes do not apply to it.
struct Column {
  std::string backend;      // empty: the subject's own
  lanes::LaneOptions lane;  // how a scenario's session is reached
  std::string build;        // a driver build of drivers_files; empty: this process's environment
};

// What a control changes for one run.
struct Variant {
  std::string mutant;                    // a fault compiled into the reclaim model
  std::map<std::string, int64_t> knobs;  // knob values over the scenario's
  std::string fault;                     // the Tidemark layer's fault settings ("hold_frees")
  std::string cut;                       // a capture's replay of part of it ("setup")
};

struct RunOptions {
  Column column;
  Variant variant;
  std::filesystem::path report_dir;  // empty: write nothing
  bool validation = false;           // Vulkan validation; any message is red
  int repeat = 1;                    // > 1: more than one digest makes the run nondeterministic
  int retry = 0;  // a run that fails by what it did (report::retries) is tried up to this many times more
  // Called after every `probe_every`-th backend call with the calls so far and the lane (its
  // server's pid): a soak samples memory there. Nothing it sees enters a result or a digest.
  uint64_t probe_every = 0;
  std::function<void(uint64_t calls, const LaneTraffic& lane)> probe;
  // Known failures (expectations.txt): a run they name is judged against them.
  const std::vector<Expectation>* expectations = nullptr;
  // A subject whose driver loads into this process (runner/isolation.h) runs in a child of it, its
  // crash a verdict; `run` sets it unless --no-isolation. Callers that run subjects from threads
  // of their own, or keep what a probe saw, leave it off.
  bool isolation = false;
  // The command line's time limits (--timeout, --inactivity-timeout), over the subject's own and
  // the defaults (core/time_bounds.h): an isolated run's child, a replay's program.
  TimeBoundsOverride time_bounds;
  std::filesystem::path layer_dir;                   // where the Tidemark layer is (a replay runs under it)
  std::vector<std::filesystem::path> drivers_files;  // where a column's or a control's build is named
  bool compare_replies = true;  // a recording's replay checks every reply (`replay --no-compare`: not)
};

// A control: the variant (or driver build) under which exactly the checks it names must go red.
struct SubjectControl {
  std::string label;  // "mutant=reclaim.frame_bucket", "knobs=wire_deferred_mb:0", "fault=hold_frees"
  Variant variant;
  std::string build;               // a driver build the checks are red on; empty: the column's
  std::vector<std::string> fails;  // check ids ("gauge[0]")
  bool run_fails = false;          // instead: the run itself must not complete (a replay exiting non-zero)
  std::map<std::string, std::string> skip_lanes;  // lane -> why the control does not apply there
  std::vector<std::string> backends;              // the backends it proves the checks on; empty: every one
  SourceLocation where;
};

// Whether `control` proves its checks on `backend` (which stands in for `stands_for`, if any:
// gl-native for gl).
bool control_applies(const SubjectControl& control, const std::string& backend, const std::string& stands_for);

// What `backend` stands in for among a subject's controls: `stands_for` (its registry entry's),
// unless the subject lists `backend` by name among `listed`, its backends: then only controls
// naming it apply, as lint holds it (gl-llvmpipe beside gl takes no fault of the layer beneath
// gl's Vulkan, which nothing beneath llvmpipe reaches). Empty: it stands in for none.
std::string stands_for_among(const std::vector<std::string>& listed, const std::string& backend,
                             const std::string& stands_for);

// What the last of a run's repeats read, beyond the gauges and checks it wrote into the record.
struct Reading {
  // The run stopped before its checks could say anything: could-not-run (a step failed),
  // not-judged (nothing it gives can be judged) or timeout (a replay passed a time limit: the
  // record's `timeout` is set), with why.
  std::optional<report::Verdict> stopped;
  std::string why;
};

// One run of a subject, its names resolved once (the backend, the knobs, the mutant, the build).
class SubjectRun {
 public:
  virtual ~SubjectRun() = default;
  // The run's folder under the report folder: <lane>/<group>/<name>[@backend], capture/<group>/<name>[@fault].
  virtual std::filesystem::path folder() const = 0;
  // Runs once and gives the run's digest. Errors are bad input or a missing environment only:
  // the code under test failing is a reading.
  virtual Result<std::string> once(const std::filesystem::path& dir) = 0;
  // After the last repeat: the record's readings (gauges, checks, lane, hashes, driver), given
  // every repeat's digest.
  virtual Result<Reading> read(const std::vector<std::string>& digests, report::RunRecord& record) = 0;
  // What the run leaves beside result.json (PNGs, the trace, logs).
  virtual Status keep(const std::filesystem::path& dir, const report::RunRecord& record) = 0;
};

class Subject {
 public:
  virtual ~Subject() = default;
  virtual std::string id() const = 0;         // group/name
  virtual std::string_view kind() const = 0;  // what messages call it: "scenario", "capture fixture", "recording"
  virtual std::string group() const = 0;
  virtual const std::filesystem::path& file() const = 0;
  // What the subject is when it runs, hashed (XXH3): `rebase` refuses a report made of another.
  virtual Result<std::string> content_hash() const = 0;
  // Whether it runs in Tidemark's lanes (a scenario) or in none (a capture's replay).
  virtual bool has_lanes() const = 0;
  // Whether a run on a driver build starts from this process (a replayer started under the
  // build's environment), or needs a tidemark process of its own under it (a session's driver
  // is loaded into the process that runs it).
  virtual bool takes_builds() const = 0;
  // The backends it names, its own first: what parity and compare run it on unless told.
  virtual std::vector<std::string> backends() const = 0;
  // Its test name in `lane` on `backend`: Magma.<Lane>.<Group>.<name>[@backend], Capture.<Group>.<name>.
  virtual std::string test_name(Lane lane, const std::string& backend) const = 0;
  // Its check ids, in order, as expectations lines and controls name them, and what the file
  // wrote for one (a gauge check's expression), for messages.
  virtual std::vector<std::string> check_ids() const = 0;
  virtual std::string check_text(const std::string& id) const { return id; }
  // Whether a run on `backend` (an expectations line's) can judge it: else why not.
  virtual Status takes_backend(const std::string& backend, const api::BackendRegistry& backends) const;
  virtual std::vector<SubjectControl> controls() const = 0;
  // Backends it runs on where no control can prove its checks, each with why (a scenario's `unproven:`).
  virtual std::map<std::string, std::string> unproven() const { return {}; }
  // How CTest names and labels it (runner/ctest_registrations.h): its run test's labels in `lane`
  // (a subject in no lane: any), its red-once test's name and labels, and whether it is long (a
  // soak: its controls are proven in the monolith lane where every lane is asked).
  virtual std::vector<std::string> test_labels(Lane lane) const = 0;
  virtual std::string red_once_test_name() const = 0;
  virtual std::vector<std::string> red_once_labels() const = 0;
  virtual bool is_long() const { return false; }
  // Its own time limits, where its file sets them (`timeout`, `inactivity_timeout`).
  virtual TimeBoundsOverride time_bounds() const { return {}; }
  // A run with `options`, its names resolved, and the record's identity filled in (test,
  // subject, file, backend, mutant, knobs, the gauges its checks read). Bad input is an error.
  virtual Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const = 0;
};

using Subjects = std::vector<std::unique_ptr<Subject>>;

// Every subject once: a file named twice (given again, found again under a folder, a link to it)
// is kept the first time only, so it runs once; two files with one test name would run into one
// report folder, and are bad input naming both. Every command's subjects pass through here.
Result<Subjects> distinct_subjects(Subjects subjects);

// The lane name of a subject in no lane of Tidemark's (a capture's replay): records and ledger lines say it.
inline constexpr std::string_view kNoLane = "capture";

// What names a run in a column after its subject: "@BACKEND@BUILD" on a driver build, "@BACKEND"
// on another backend than `own`, else nothing (test names, subjects and report folders end so).
std::string column_suffix(const std::string& own, const std::string& backend, const std::string& build);

// The pipeline: prepares the run, runs it `repeat` times, reads it, judges it (the verdict, then
// the expectations line for its backend, id and driver build), and with a report folder writes
// what it leaves and result.json last (its presence means complete). With `options.isolation`, a
// subject whose driver loads into this process runs so in a child (runner/isolation.h): a child
// that dies is a crash record, judged and written by this process. Repeats that give more than
// one digest make the run nondeterministic. An expectations line saying `skip` makes a skipped
// record and runs nothing. With `options.retry`, a failed run is tried again up to that many
// times: green after a failure is flaky, and the record (the last try's) lists every try.
Result<report::RunRecord> run(const Subject& subject, const RunOptions& options);

// --retry, for whatever runs a subject's tries (`run`, the schedule): whether a run whose tries so
// far are `tries` gets another (the last failed by what it did, report::retries, and fewer than
// 1 + options.retry were made).
bool tries_again(const RunOptions& options, const std::vector<report::RunRecord>& tries);
// The record of a run's tries: the last try's; after more than one, with every try's verdict and
// digest and the seconds of all, green after a failure flaky (judged against its expectations
// line again), failed every time its verdict with the tries in its why; result.json rewritten.
Result<report::RunRecord> record_of_tries(const Subject& subject, const RunOptions& options,
                                          std::vector<report::RunRecord> tries);

// Why the expectations line for the subject's run with `options` says `skip` in place of its check
// ids ("skipped, as FILE:LINE:COLUMN says: REASON"): none when no line does. Such a run is not
// made: its record is did_not_run's, verdict skipped.
Result<std::optional<std::string>> expected_skip(const Subject& subject, const RunOptions& options);

// The limits a run of `subject` with `options` is held to: the defaults, the subject's own, the
// command line's.
TimeBounds time_bounds(const Subject& subject, const RunOptions& options);

// Whether `options` suit the subject (its knobs, its backends, what its kind takes): bad input
// naming what does not, before anything runs.
Status check_options(const Subject& subject, const RunOptions& options);

// The record of a subject that did not run (`verdict` skipped or not-run, runner/schedule.h): its
// identity as its run's would be, and why. Nothing ran, so it has no gauges, digest or folder.
Result<report::RunRecord> did_not_run(const Subject& subject, const RunOptions& options, report::Verdict verdict,
                                      std::string why);

// The record of a run `backend` could not judge (`why`: it lacks what a check reads, a golden
// does not decode, ...): not-judged, or an expected red when an expectations line says
// `not-judged` for it. Nothing ran, so it has no gauges, digest or report folder.
Result<report::RunRecord> not_judged(const Subject& subject, const RunOptions& options, const std::string& backend,
                                     const Error& why);

// A subject whose session's driver is loaded into this process (a scenario, a recording) runs on
// a column's build only in a process running that build (runner/build_runs.h reaches one).
Status check_build_is_this_process(const Subject& subject, const std::string& build);

// The driver build a run's expectations lines and names are of: the column's, else the one this
// process runs on (empty: none).
Result<std::string> build_of(const RunOptions& options);

// The ids of a record's checks that failed, each once, in order.
std::vector<std::string> failed_checks(const report::RunRecord& record);

}  // namespace tidemark::runner
