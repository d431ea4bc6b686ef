// The tidemark commands, one function each; main.cpp wires them to the command line.
// Exit codes: 0 all green, 1 any red, 2 bad input, 3 environment missing, 4 I/O or internal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/baseline.h"
#include "subjects/subjects.h"
#include "core/error.h"
#include "core/mutants.h"
#include "core/progress.h"
#include "report/summary.h"
#include "runner/pipeline/run_setup.h"
#include "runner/kinds/scenario_subject.h"
#include "scenario/scenario.h"
#include "lanes/lanes.h"

namespace tidemark::cli {

// kFlaky: `run --retry`: nothing failed but runs that failed and then went green (flaky).
// kResumeRefused: `run --resume`: the journal's run is not the one asked for (other scenarios,
// scenario files changed since, other options, another driver build or folder).
enum Exit { kGreen = 0, kRed = 1, kBadInput = 2, kEnvironment = 3, kInternal = 4, kFlaky = 5, kResumeRefused = 6 };

// --quiet / --verbose, for every command (main.cpp sets it before the command runs).
Verbosity& verbosity();
// --drivers, for every command (main.cpp sets it): where a driver build named anywhere is found.
std::vector<std::filesystem::path>& drivers_files();
// The command's arguments after its word, as given (main.cpp sets it): a run's journal keeps them.
std::vector<std::string>& command_arguments();

int exit_code(const Error& error);
// Prints `tidemark: <message>` and returns the error's exit code.
int report_error(const Error& error);
// Loads every file before anything runs: nothing runs on a half-valid set.
Result<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& inputs);
// A command's subjects: its scenarios (this process's shard of them, said on stderr) and capture
// fixtures (subjects/subjects.h), every one loaded before anything runs.
Result<subjects::Loaded> load_subjects(const std::vector<std::string>& inputs, const std::string& shard = {},
                                       const std::string& durations = {});
// run's schedule: what it skips, in which order, how many at once, when it stops (runner/pipeline/schedule.h).
struct ScheduleArgs {
  std::vector<std::string> skip_files, include_files;  // test-name patterns (runner/pipeline/selection.h)
  unsigned jobs = 0;                                   // subjects at once; 0: one per core
  int64_t shuffle = -1;                                // a seed of the order; -1: the selection's
  size_t max_fails = 0;                                // 0: no limit
};

// --baseline and --tolerance: every command that runs subjects holds their records to an earlier run.
struct BaselineArgs {
  std::string baseline;                 // a report folder or summary.json every gauge is held to
  std::vector<std::string> tolerances;  // GAUGE=N or GAUGE=P%
};

// A verb's runs set up from the options every such verb takes (runner/pipeline/run_setup.h), read before
// anything runs: `report` empty is a folder of its own under reports/.
Result<std::unique_ptr<runner::RunSetup>> run_setup(const std::string& report, const std::string& expectations,
                                                    const BaselineArgs& baseline, const TimeBoundsOverride& bounds,
                                                    bool no_isolation);
// The records held to the setup's baseline (its lines printed) and the summary written.
Result<report::Summary> finish_runs(const runner::RunSetup& setup, const report::Origin& origin,
                                    std::vector<report::RunRecord> records);
// reports/<kind>-<UTC time>.
std::filesystem::path default_report_dir(std::string_view kind = "run");

// `--knob NAME=VALUE` arguments, each value an integer.
Result<std::map<std::string, int64_t>> parse_knobs(const std::vector<std::string>& knobs);

// Each command's options, one struct each; main.cpp registers them.

// What every command that opens a lane takes (run, replay): registered by one helper.
struct LaneArgs {
  std::string lane = "monolith";
  std::string server_program;
  std::string connect;
  std::string token_file;
  int handshake_timeout_ms = 20000;
  int reply_timeout_ms = 60000;
  std::string mutant;
  std::string backend;  // empty: the scenario's own (its first `backends:` entry, else vulkan)
};

struct RunArgs {
  std::vector<std::string> inputs;
  std::string shard;            // --shard I/N
  std::string shard_durations;  // a previous summary.json, to balance the shards by time
  std::vector<std::string> knobs;
  std::string report;
  int repeat = 1;
  int retry = 0;       // a failed run is tried up to N times more: green after a failure is flaky
  std::string resume;  // a killed run's report folder: run what its journal has no record of
  bool validation = false;
  std::string record;
  uint32_t kill_server_at_frame = 0;
  bool no_isolation = false;        // a driver in this process runs in Tidemark's own, not a child (for gdb)
  TimeBoundsOverride time_bounds;   // --timeout, --inactivity-timeout
  std::string expectations;         // known failures (expectations.txt)
  std::string digests;              // committed digests (parity --save-digests) each run's digest is held to
  std::vector<std::string> faults;  // the layer's, under a capture fixture's replay (layer/settings.h)
  ScheduleArgs schedule;
  BaselineArgs baseline;
  LaneArgs lane;
};

struct ReplayArgs {
  std::string file;
  bool no_compare = false;
  bool no_isolation = false;       // the replay in Tidemark's own process (for gdb)
  TimeBoundsOverride time_bounds;  // --timeout, --inactivity-timeout
  LaneArgs lane;
};

struct ListArgs {
  std::vector<std::string> inputs;
  std::string shard;            // --shard I/N
  std::string shard_durations;  // a previous summary.json, to balance the shards by time
  std::string ctest_file;
  std::string tidemark;
  std::string report_root;
  std::string ledger;                 // given: a red-once test per scenario checks its controls against it
  std::string expectations;           // passed to every registered run
  std::string digests;                // passed to every registered run (run --digests)
  std::vector<std::string> lanes;     // the lanes registered (default: all four)
  std::vector<std::string> backends;  // in place of each scenario's own backends
  std::vector<std::string> labels;    // more labels on every registered test
};

struct RedOnceArgs {
  std::vector<std::string> inputs;
  std::string shard;            // --shard I/N
  std::string shard_durations;  // a previous summary.json, to balance the shards by time
  std::vector<std::string> lanes;
  std::string ledger = "red_once/ledger.txt";
  bool update_ledger = false;
  std::string backend;       // the column: BACKEND, or BACKEND@BUILD (main.cpp enters the build)
  std::string expectations;  // known failures (expectations.txt)
  std::string report;
  BaselineArgs baseline;           // the green runs held to it
  bool no_isolation = false;       // every run in Tidemark's own process (for gdb)
  TimeBoundsOverride time_bounds;  // --timeout, --inactivity-timeout
};

struct ParityArgs {
  std::vector<std::string> inputs;
  std::string shard;            // --shard I/N
  std::string shard_durations;  // a previous summary.json, to balance the shards by time
  std::string report;
  bool replay = false;
  std::string save_digests;  // write "group/name digest" lines for another build to compare with
  std::string against;       // a file written by --save-digests: every digest must match it
  BaselineArgs baseline;
  bool no_isolation = false;       // every run in Tidemark's own process (for gdb)
  TimeBoundsOverride time_bounds;  // --timeout, --inactivity-timeout
};

struct SoakArgs {
  std::string file;
  std::vector<std::string> lanes;  // empty: all four
  uint64_t every = 10000;
  std::string report;
  // Per million calls after warm-up. RSS: the source report's own slope after its fix, +3 MiB per 10 s at
  // 1.3 M calls in 96 s (22.2 MiB per million calls): a soak must at least beat the anchor.
  // Ours is not zero and is not a leak: the live heap is flat (heaptrack, 5.2 M calls: peak 78.1 ->
  // 78.6 MB), lavapipe's queue thread swings it between 40 and 78 MB as it runs submits, and glibc touches
  // pages of that arena for the first time for a while; the slope falls from ~10 MiB per million
  // calls over the first 1.3 M to ~1.4 at 4-5 M.
  double max_rss_slope_kib = 22.2 * 1024;
  double max_maps_slope = 16;
};

struct BenchArgs {
  std::vector<std::string> inputs;
  int repeat = 3;
  std::string report;
  std::string floor;    // the bare Vulkan program (default: tidemark-vulkan-floor beside tidemark)
  std::string history;  // a JSON-lines file the results are appended to (nightly)
  std::string label;    // what this run is (a commit), kept in the history
};

struct FixtureArgs {
  std::string review_id;
  std::string root = "fixtures";
};

struct ReduceArgs {
  std::string input;
  std::string check;
  std::string mutant;
  std::vector<std::string> knobs;
  std::string out;       // the fixture folder to write
  std::string name;      // the result's name; default the input's
  std::string ledger;    // also merge the result's rows into this ledger
  std::string scenario;  // a recording's scenario file (default: found by its header's name)
  unsigned jobs = 0;
  std::string fault, bug_build, fix_build;  // a capture's bug and fix
  int64_t budget_seconds = 0;               // a capture's search budget; 0: not given (the library's default)
};
int reduce_capture_command(const ReduceArgs& args);

int run_command(const RunArgs& args);
int parity_command(const ParityArgs& args);
int replay_command(const ReplayArgs& args);
int bench_command(const BenchArgs& args);
int soak_command(const SoakArgs& args);
int red_once_command(const RedOnceArgs& args);
int fixture_new_command(const FixtureArgs& args);
int reduce_command(const ReduceArgs& args);
int mutants_command();
int backends_command();
struct ObserveArgs {
  std::vector<std::string> command;  // the program and its arguments
  std::string report;                // keep result.json, trace.pftrace and the layer's files here
  std::string expect;                // a YAML file of gauge bounds
  std::vector<std::string> faults;   // hold_frees, never_done, shadow_copies, fail_allocation=N
  std::string completion;            // deterministic (default) or real
  std::string only;                  // observe only the programs whose file name matches (fnmatch)
  TimeBoundsOverride time_bounds;    // --timeout, --inactivity-timeout
};
int observe_command(const ObserveArgs& args);
struct CompareArgs {
  std::vector<std::string> inputs;
  std::vector<std::string> backends;  // empty: each scenario's own list; BACKEND@BUILD: on a driver build
  std::string expectations;
  std::string report;
  std::string lane = "monolith";
  BaselineArgs baseline;
  bool no_isolation = false;       // every run in Tidemark's own process (for gdb)
  TimeBoundsOverride time_bounds;  // --timeout, --inactivity-timeout
};
int compare_command(const CompareArgs& args);

struct BisectArgs {
  std::vector<std::string> subject;                   // one scenario or capture fixture
  std::vector<std::string> builds;                    // drivers files or folders of them, oldest first
  std::string only;                                   // the builds whose name this regular expression finds
  std::string repo, good, bad, build_command, cache;  // a git range built by a command
  std::string backend = "gl";
  std::string lane = "monolith";
  std::string check, gauge, worse_than, verdict;  // the predicate (none: any check red)
  bool digest = false;
  int repeat = 1;
  std::string report;
  bool reduce = false;  // a capture: cut it to what tells the first bad from the last good
  unsigned jobs = 1;    // a git range: builds at once, the next candidates built while one is judged
};
int bisect_command(const BisectArgs& args);

struct CaptureArgs {
  std::vector<std::string> command;
  bool vulkan = false;
  std::string out = "captures";
  std::string name;
  std::string group = "captures";
};
int capture_command(const CaptureArgs& args);

struct RebaseArgs {
  std::string report;
  std::string baseline;
  std::string expectations;
  std::string ledger;
  bool goldens = false;
  bool dry_run = false;
};
int rebase_command(const RebaseArgs& args);
// One line per finding; exit 3 when a selected backend lacks something (doctor/doctor.h).
int doctor_command(const std::vector<std::string>& backends);
int lint_command(const std::vector<std::string>& inputs, const std::string& expectations);
// Prints a trace's tracks and rows as imported; exit 2 when part of it does not decode.
int trace_command(const std::string& file);
int list_command(const ListArgs& args);
struct MergeArgs {
  std::vector<std::string> dirs;
  std::string out;
};
// Exit 0 when every result is green and every scenario gives one digest, 1 when not, 2 when
// the folders are not the whole of a sharded run (a shard missing or given twice, ...).
int merge_command(const MergeArgs& args);

// Shared by the commands that open lanes.
Result<Lane> parse_lane_option(const std::string& name);
// --lane, --server-program, --connect (+ token), --handshake-timeout-ms. --mutant and --backend
// are the session's (RunOptions): the subject's prepare resolves the backend.
Result<lanes::LaneOptions> lane_options_from(const LaneArgs& args);
// --mutant, looked up once: bad input when this build's catalogue lacks it.
Result<MutantChoice> parse_mutant_option(const std::string& name);

}  // namespace tidemark::cli
