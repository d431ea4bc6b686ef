// `tidemark observe`'s work as a library: run any program (and whatever it starts) under
// VK_LAYER_TIDEMARK_observe, then gather every process's record the layer wrote, replay each
// observed process's events into a model host of its own (the kernel's GPU-memory map entry for
// that pid, its backend queue, its run trace), and judge gauge bounds per process and over the
// whole tree. The CLI parses, calls observe() and judge(), prints and maps the exit code.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/gauges.h"
#include "core/process.h"
#include "core/time_bounds.h"
#include "report/observation_record.h"
#include "report/run_record.h"
#include "scenario/gauge_bounds.h"

namespace tidemark::observe {

// What a process in the tree was to the layer.
enum class ProcessKind {
  Vulkan,       // observed, made at least one Vulkan device
  NoDevice,     // made none: a shell, a wrapper, a program that only enumerated
  NotObserved,  // loaded the layer but --only names other programs: its calls passed through
};
std::string_view name_of(ProcessKind kind);

struct Process {
  uint32_t pid = 0, parent = 0;
  std::vector<std::string> command;
  std::string executable;
  ProcessKind kind = ProcessKind::NoDevice;
  std::string folder;        // its folder under the layer's report ("" for a process that never loaded the layer)
  uint32_t forked_from = 0;  // a forked copy of that process (its counts include what it inherited)
  bool beside = false;       // observed beside the program's tree (Options::beside: its renderer server's)
  bool reported = false;     // its layer.json was written (false: it ended without one, killed or by _exit: its
                             // gauges are then those of its status file, as of its last intercepted change)
  uint32_t devices = 0;
  std::vector<std::string> drivers;  // each device's Vulkan driver as the layer read it (layer.json; "" not known)
  std::vector<std::filesystem::path> libraries;  // the shared libraries it had mapped (layer.json)
  ObservedGauges observed{};
  KernelGauges kernel{};
  int64_t events = 0;
  std::filesystem::path trace_file;  // its run trace (Perfetto), saved in its folder of the layer's report
  nlohmann::json layer;              // its layer.json as written
};

struct Observation {
  std::vector<std::string> command;
  std::string settings;            // the layer's settings text
  std::string only;                // the --only pattern ("" for every process)
  uint32_t pid = 0;                // the program's
  int exit_code = 0;               // the program's own (128 + N for signal N)
  int wait_status = 0;             // the program's, as waitpid() gave it
  std::vector<Process> processes;  // in pid order within the tree's order of appearance
  // The whole tree: every observed process's gauges summed. A peak is then the sum of the
  // processes' peaks: an upper bound of what the tree held at once (processes that ran one after
  // the other count as if together), never less than any process's own.
  ObservedGauges whole_observed{};
  KernelGauges whole_kernel{};
  // One kernel GPU-memory map for the tree, each observed process's memory under its pid, as the
  // GpuMem reader dumps it at the end (a process that freed everything has no entry left).
  std::string kernel_map;
  // The wire between the program and its renderer server, when a tap stood on it
  // (renderer::observe): its gauges by the catalogue's names, judged with the server's and the
  // whole's; and the note of the server's end when it ended while its client still talked to it.
  std::optional<NamedGauges> wire;
  std::string server_ended;
  // The program passed a time limit (Options::bounds) and its whole tree was killed: which limit,
  // when, and the last call the layer saw in it; `exit_code` is then the program's SIGKILL.
  std::optional<report::TimeoutRecord> timeout;
  bool made_device() const;
};

// What gather() reads of a layer's folder: its processes, and the tree's kernel map.
struct Gathered {
  std::vector<Process> processes;
  std::string kernel_map;  // Observation::kernel_map
};

// Live figures while the program runs, for a status line.
struct Live {
  std::chrono::steady_clock::duration elapsed{};
  uint64_t calls = 0;
  int64_t live_buffers = 0;
  size_t processes = 0;  // processes that have loaded the layer so far
};

struct Options {
  std::vector<std::string> command;
  std::string settings;                      // checked with layer::parse_settings by the caller
  std::string only;                          // an fnmatch pattern on a process's executable or argv[0] file name
  std::filesystem::path report;              // the folder to write; the layer's files go in report/layer
  std::filesystem::path layer_dir;           // where the layer and its manifest are
  std::function<void(const Live&)> on_live;  // called about four times a second while it runs
  std::filesystem::path output;              // the program's stdout and stderr go here; empty: this process's
  // The program's environment beneath the layer's (a driver build's: drivers::environment_for);
  // none: this process's.
  std::optional<ProcessEnvironment> beneath;
  std::vector<std::pair<std::string, std::string>> environment;  // set for the program over the layer's
  // Processes observed beside the program's tree (a renderer server it talked to, started with
  // the layer beneath it): called once the program has ended (`cut_short`: killed at a time
  // limit, so nothing of it is waited for); what it gathers joins the observation, in the sums
  // over the whole.
  std::function<Result<Gathered>(bool cut_short)> beside;
  // The program's time limits, watched over the calls its processes' layers count (and those of
  // `watched_beside`'s processes: a renderer server's layer folder).
  TimeBounds bounds;
  std::filesystem::path watched_beside;
  // With `output`: it keeps only about the program's last this many bytes (a log: a replayer's),
  // as ChildProcess::Options::keep_last; 0: whole (the program's output is read as data).
  size_t output_kept = 0;
};

// What the processes' layers under some folders have done so far, for a run's bounds: each
// process's folder there holds its `status` file (the layer's TidemarkLayerStatus, whose activity
// is all a run's bounds read): their progress summed (calls that changed something), the last
// call of the process whose calls moved last ("vkQueueSubmit (call 3001 on its device, in
// 4242)", the process's folder named), and what that process asked again since its last progress.
class ActivityReader {
 public:
  explicit ActivityReader(std::vector<std::filesystem::path> folders) : folders_(std::move(folders)) {}
  uint64_t read();
  const std::string& last_call() const { return last_; }
  const std::string& asked_again() const { return asked_again_; }  // layer::asked_again

 private:
  std::vector<std::filesystem::path> folders_;
  std::map<std::string, uint64_t> seen_;
  std::string last_, asked_again_;
};

// The first lost device the layers of a TIDEMARK_LAYER_ACTIVITY folder's processes noted in their
// status files (a device's gauges as of its last VK_ERROR_DEVICE_LOST answer), leaving out the
// processes' folders named in `earlier` (an earlier run's servers); its last_step left empty.
std::optional<report::DeviceLostRecord> noted_lost_device(const std::filesystem::path& activity_folder,
                                                          const std::set<std::string>& earlier);

// What the status files of a layer folder's processes say now (a moment's reading: read it at a
// point where they do nothing, as after a round trip that waited for them): their gauges summed,
// and the Vulkan driver beneath the first device of the first process (by folder) that made one.
struct StatusNow {
  ObservedGauges gauges{};
  std::string driver;  // layer::driver_text; empty: no device yet
  size_t processes = 0;
};
StatusNow read_status(const std::filesystem::path& layer_folder);

// The variables that put the Tidemark layer beneath every Vulkan instance of a process whose
// environment is otherwise `beneath` (the layers and layer paths it names kept, after ours): where
// the layer is, where it writes its records (`layer_folder`), its settings and the programs it
// observes (`only`, "" for all).
std::vector<std::pair<std::string, std::string>> layer_environment(const std::filesystem::path& layer_dir,
                                                                   const std::filesystem::path& layer_folder,
                                                                   const std::string& settings, const std::string& only,
                                                                   const ProcessEnvironment& beneath);

// Runs the program to its end and gathers what the layer saw. An error only when the program
// cannot be started or the report cannot be written or read; a program that failed is an
// Observation with its exit code.
Result<Observation> observe(const Options& options);

// Gathers the process records in `layer_folder` (what observe() does after the program ended):
// `root` is the program's pid, the top of the tree. The tree's kernel map is filled in the same
// pass over each process's events.
Result<Gathered> gather(const std::filesystem::path& layer_folder, uint32_t root);
// The same, going on from what was replayed while the program ran (live_replay.h): each
// process's replay, by folder, and the tree's map as far as it was fed.
class ProcessReplay;
class TreeFeed;
using ProcessReplays = std::map<std::string, std::unique_ptr<ProcessReplay>>;
struct Followed {
  ProcessReplays replays;
  std::unique_ptr<TreeFeed> tree;  // null: none fed
};
Result<Gathered> gather(const std::filesystem::path& layer_folder, uint32_t root, Followed live);

// How one bound came out over one scope (a check's outcome, check/check.h, with its scope).
struct BoundOutcome {
  std::string check;  // the comparison's text
  std::string scope;  // "pid 1234 (name)" or "whole"
  bool passed = false;
  std::string detail;  // "vkbufspk = 3005, bound 64" (check/check.h's evaluator), or why it could not be judged
  std::string where;   // the scope without what changes from run to run: "name" or "whole"
};
// Bounds under `expect:` hold for each observed Vulkan process; those under `whole:` for the
// tree's sums. The wire's gauges are read with those of each process beside the program (its
// server: the wire's far end) and the whole's.
std::vector<BoundOutcome> judge(const Observation& observation, const scenario::GaugeBounds& bounds);

// What an observation comes to, as a run's verdict: timeout when the program passed a time limit
// (its tree killed), device-lost when the layer saw a call of any process answered
// VK_ERROR_DEVICE_LOST (whatever the program did next), crash when the program died by a signal,
// red when it failed or a bound did, not-judged when no process made a device, else green; and
// why, in words.
report::ReasonedVerdict verdict_of(const Observation& observation, const std::vector<BoundOutcome>& outcomes);

// The command's exit code: 124 (kTimedOutExitCode, as timeout(1)'s) when the program passed a time
// limit (killed: Observation::timeout); the program's own when it failed; 3 when it succeeded but
// no process made a Vulkan device under the layer; 1 when a bound failed or the device was lost;
// else 0.
inline constexpr int kTimedOutExitCode = 124;
int exit_code(const Observation& observation, const std::vector<BoundOutcome>& outcomes);

// The observation as its document holds it (report/observation_record.h).
report::ObservationRecord observation_record(const Observation& observation, const std::vector<BoundOutcome>& outcomes);

// Writes observation.json, each Vulkan process's trace.pftrace in its folder and the program's
// (the first process that made a device) as report/trace.pftrace.
Status write_report(const Observation& observation, const std::vector<BoundOutcome>& outcomes,
                    const std::filesystem::path& report);

}  // namespace tidemark::observe
