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
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/lane.h"
#include "core/mutants.h"
#include "lanes/lanes.h"
#include "report/run_record.h"
#include "runner/pipeline/expectations.h"

namespace tidemark::runner {

// Where a subject runs. A capture's replay is a program of its own: lanes do not apply to it.
struct Column {
  std::string backend;      // empty: the subject's own
  lanes::LaneOptions lane;  // how a scenario's session is reached
  std::string build;        // a driver build of drivers_files; empty: this process's environment
};

// What a control changes for one run.
struct Variant {
  MutantChoice mutant;                   // a fault compiled into the reclaim model, looked up once
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
  // A subject whose driver loads into this process (runner/pipeline/isolation.h) runs in a child of it, its
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

// A check as expectations lines and controls name it ("gauge[0]"), and what the file wrote for it.
struct SubjectCheck {
  std::string id;
  std::string text;
};

// Which backends other than its own a subject runs on.
enum class OtherBackends {
  Listed,           // those it lists
  ListedOrStandIn,  // those it lists, and any backend Tidemark has that stands in for one (gl-native for gl)
  Any,              // any backend Tidemark has (a scenario that lists none)
};

// What a subject is, filled when it loads: every command reads it, none asks which kind it is.
struct SubjectInfo {
  std::string id;    // group/name
  std::string kind;  // what messages call it: "scenario", "capture fixture", "recording"
  std::string group;
  std::filesystem::path file;
  std::vector<std::filesystem::path> content;  // the files it runs, hashed in order: `rebase` refuses another's report
  // Test names are FAMILY[.Lane].STEM[@column]: Magma.Spawn.WireBuffers.x, Replay.Tcp.x, Capture.Group.x.
  std::string test_family;
  std::string test_stem;
  std::vector<std::string> labels;  // CTest labels beside its lane's
  bool in_lanes = true;             // a capture's replay is a program of its own: no lane applies
  // A run on a driver build starts here (a replayer under the build's environment); else it needs a
  // tidemark process of its own under the build (a session's driver loads into the process running it).
  bool starts_builds = false;
  std::vector<std::string> backends;  // its own first: what parity and compare run it on unless told
  OtherBackends other_backends = OtherBackends::Listed;
  std::vector<SubjectCheck> checks;
  std::vector<SubjectControl> controls;
  std::map<std::string, std::string> unproven;  // backend -> why no control can prove its checks there
  std::string red_once_test_name;
  std::vector<std::string> red_once_labels;
  bool is_long = false;            // a soak: its controls are proven in the monolith lane only
  TimeBoundsOverride time_bounds;  // its file's own limits
};

// A subject: what it is, and its one behaviour, a run with `options`: the run, and the record's
// identity filled in (test, subject, file, column, mutant, knobs, the gauges its checks read).
// Bad input is an error. The pipeline prepares each run once.
class Subject {
 public:
  explicit Subject(SubjectInfo info) : info_(std::move(info)) {}
  virtual ~Subject() = default;
  const SubjectInfo& info() const { return info_; }
  virtual Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions& options, report::RunRecord& record) const = 0;

 private:
  SubjectInfo info_;
};

// Its test name in `lane` on `backend` (empty: its own).
std::string test_name(const SubjectInfo& subject, Lane lane, const std::string& backend);
std::string camel_case(std::string_view kebab);  // "wire-buffers" -> "WireBuffers"
// Its run test's CTest labels in `lane` (a subject in no lane: any).
std::vector<std::string> test_labels(const SubjectInfo& subject, Lane lane);
std::vector<std::string> check_ids(const SubjectInfo& subject);
std::string check_text(const SubjectInfo& subject, const std::string& id);  // the id when it has no text
// Whether a run on `backend` (an expectations line's, a control's) can judge it: else why not.
Status takes_backend(const SubjectInfo& subject, const std::string& backend, const api::BackendRegistry& backends);
// What the subject is when it runs, hashed (XXH3) over its files; empty for one made from text.
Result<std::string> content_hash(const SubjectInfo& subject);

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

// A run prepared once, before anything runs: its subject, its options (held in place: the run
// refers to them), the record's identity and the run itself.
struct PreparedRun {
  const Subject* subject = nullptr;
  std::unique_ptr<const RunOptions> options;
  report::RunRecord identity;
  std::unique_ptr<SubjectRun> run;
};

// Prepares the subject's run with `options`: bad input naming what does not suit it (a knob it
// lacks, a backend it does not list, what its kind does not take), before anything runs.
Result<PreparedRun> prepare_run(const Subject& subject, const RunOptions& options);
// Whether `options` suit the subject, for commands that vary them per run later (red-once).
Status check_options(const Subject& subject, const RunOptions& options);

// Whether a run goes to a child of this process (runner/pipeline/isolation.h): every run of a command
// asked to isolate its runs, whatever the subject, so one policy serves `run` and the schedule.
bool runs_in_child(const RunOptions& options);

// The pipeline: runs the prepared run `repeat` times, reads it, judges it (the verdict, then the
// expectations line for its column and id), and with a report folder writes what it leaves and
// result.json last (its presence means complete). In a child when runs_in_child: a child that dies
// is a crash record, judged and written here. Repeats that give more than one digest make the run
// nondeterministic. An expectations line saying `skip` makes a skipped record and runs nothing.
// With `options.retry`, a failed run is tried again up to that many times: green after a failure is
// flaky, and the record (the last try's) lists every try.
Result<report::RunRecord> run(PreparedRun& prepared);
Result<report::RunRecord> run(const Subject& subject, const RunOptions& options);  // prepared, then run

// --retry, for whatever runs a subject's tries (`run`, the schedule): whether a run whose tries so
// far are `tries` gets another (the last failed by what it did, report::retries, and fewer than
// 1 + options.retry were made).
bool tries_again(const RunOptions& options, const std::vector<report::RunRecord>& tries);
// The record of a run's tries: the last try's; after more than one, with every try's verdict and
// digest and the seconds of all, green after a failure flaky (judged against its expectations line
// again), failed every time its verdict with the tries in its why; result.json rewritten.
Result<report::RunRecord> record_of_tries(const PreparedRun& prepared, std::vector<report::RunRecord> tries);

// Why the expectations line for the run says `skip` in place of its check ids ("skipped, as
// FILE:LINE:COLUMN says: REASON"): none when no line does. Such a run is not made.
Result<std::optional<std::string>> expected_skip(const PreparedRun& prepared);

// The limits a run is held to: the defaults, the subject's own, the command line's.
TimeBounds time_bounds(const PreparedRun& prepared);

// The record of a run that was not made (`verdict` skipped or not-run, runner/pipeline/schedule.h): its
// identity, and why. Nothing ran, so it has no gauges, digest or folder.
report::RunRecord did_not_run(const PreparedRun& prepared, report::Verdict verdict, std::string why);

// The record of a run `backend` could not judge (`why`: it lacks what a check reads, a golden
// does not decode, ...): not-judged, or an expected red when an expectations line says
// `not-judged` for it. Nothing ran, so it has no gauges, digest or report folder.
Result<report::RunRecord> not_judged(const Subject& subject, const RunOptions& options, const std::string& backend,
                                     const Error& why);

// A subject whose session's driver is loaded into this process (a scenario, a recording) runs on
// a column's build only in a process running that build (runner/pipeline/build_runs.h reaches one).
Status check_build_is_this_process(const Subject& subject, const std::string& build);

// The driver build a run's expectations lines and names are of: the column's, else the one this
// process runs on (empty: none).
Result<std::string> build_of(const RunOptions& options);

// The ids of a record's checks that failed, each once, in order.
std::vector<std::string> failed_checks(const report::RunRecord& record);

}  // namespace tidemark::runner
