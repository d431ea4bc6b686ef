#include "observe/observe.h"

#include "check/check.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>
#include <utility>

#include "observe/crash_notes.h"
#include "core/files.h"
#include "core/process.h"
#include "host/layer_sink.h"
#include "host/model_host.h"
#include "layer/link.h"
#include "layer/records.h"
#include "layer/tidemark_layer.h"
#include "observe/live_replay.h"
#include "report/json_fields.h"

extern char** environ;

namespace tidemark::observe {

namespace fs = std::filesystem;

std::string_view name_of(ProcessKind kind) {
  switch (kind) {
    case ProcessKind::Vulkan:
      return "vulkan";
    case ProcessKind::NoDevice:
      return "no-device";
    case ProcessKind::NotObserved:
      return "not-observed";
  }
  return "?";
}

bool Observation::made_device() const {
  return std::any_of(processes.begin(), processes.end(),
                     [](const Process& p) { return p.kind == ProcessKind::Vulkan; });
}

std::vector<std::pair<std::string, std::string>> layer_environment(const fs::path& layer_dir,
                                                                   const fs::path& layer_folder,
                                                                   const std::string& settings, const std::string& only,
                                                                   const ProcessEnvironment& beneath) {
  std::string add_path = layer_dir.string(), layers = TIDEMARK_LAYER_NAME;
  // append, not `":" + std::string(...)`: GCC 12 at -O3 warns on that (-Wrestrict, a false positive)
  if (auto theirs = value_in(beneath, "VK_ADD_LAYER_PATH")) add_path.append(":").append(*theirs);
  if (auto theirs = value_in(beneath, "VK_INSTANCE_LAYERS")) layers.append(":").append(*theirs);
  return {{"VK_ADD_LAYER_PATH", add_path},
          {"VK_INSTANCE_LAYERS", layers},
          {"TIDEMARK_LAYER_REPORT", layer_folder.string()},
          {"TIDEMARK_LAYER_SETTINGS", settings},
          {"TIDEMARK_OBSERVER_PID", fmt::format("{}", ::getpid())},
          {"TIDEMARK_LAYER_ONLY", only}};
}

namespace {

std::optional<TidemarkLayerStatus> last_status(const fs::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  TidemarkLayerStatus status{};
  const bool whole = ::pread(fd, &status, sizeof status, 0) == static_cast<ssize_t>(sizeof status);
  ::close(fd);
  return whole ? std::optional(status) : std::nullopt;
}

// A status file's gauges: its destroyed devices' and its live ones', summed as layer.json's "all".
ObservedGauges status_gauges(const TidemarkLayerStatus& status) {
  TidemarkLayerGauges all = status.gone;
  for (uint32_t i = 0; i < std::min<uint32_t>(status.devices, TIDEMARK_STATUS_DEVICES); ++i)
    layer::sum_into(all, status.live[i]);
  return layer::to_observed(all);
}

// What the processes' status files say now.
Live read_live(const fs::path& layer_folder) {
  Live live;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layer_folder, ec)) {
    ++live.processes;
    if (auto status = last_status(entry.path() / "status")) {  // a moment's reading, not a consistent one
      live.calls += status->calls;
      for (uint32_t i = 0; i < std::min<uint32_t>(status->devices, TIDEMARK_STATUS_DEVICES); ++i)
        live.live_buffers += status->live[i].buffers.live;
    }
  }
  return live;
}

}  // namespace

uint64_t ActivityReader::read() {
  uint64_t sum = 0;
  for (const fs::path& folder : folders_) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      auto status = last_status(entry.path() / "status");
      if (!status) continue;
      const TidemarkLayerActivity& activity = status->activity;
      sum += activity.progress;
      uint64_t& seen = seen_[entry.path().string()];
      if (activity.calls != seen) {
        seen = activity.calls;
        last_ = fmt::format("{} (call {} on its device, in {})", crash_notes::text_of(activity.last_call),
                            activity.device_call, entry.path().filename().string());
        asked_again_ = crash_notes::text_of(activity.asked_again);
      }
    }
  }
  return sum;
}

std::optional<report::DeviceLostRecord> noted_lost_device(const fs::path& activity_folder,
                                                          const std::set<std::string>& earlier) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(activity_folder, ec))
    if (!earlier.contains(entry.path().filename().string())) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  for (const auto& folder : folders) {
    auto status = last_status(folder / "status");
    if (!status) continue;
    for (uint32_t i = 0; i < std::min<uint32_t>(status->devices, TIDEMARK_STATUS_DEVICES); ++i)
      if (const TidemarkLayerGauges& device = status->live[i]; device.lost_answers > 0)
        return report::DeviceLostRecord{.call = std::string(lost_call_name(device.first_lost_call)),
                                        .submit_or_wait = device.first_lost_at,
                                        .answers = device.lost_answers,
                                        .last_step = {}};
  }
  return std::nullopt;
}

StatusNow read_status(const fs::path& layer_folder) {
  std::error_code ec;
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(layer_folder, ec)) folders.push_back(entry.path());
  std::sort(folders.begin(), folders.end());
  StatusNow now;
  TidemarkLayerGauges all{};
  for (const auto& folder : folders) {
    ++now.processes;
    auto status = last_status(folder / "status");
    if (!status) continue;
    layer::sum_into(all, status->gone);
    for (uint32_t i = 0; i < std::min<uint32_t>(status->devices, TIDEMARK_STATUS_DEVICES); ++i)
      layer::sum_into(all, status->live[i]);
    if (now.driver.empty() && status->driver_known) now.driver = layer::driver_text(status->driver);
  }
  now.gauges = layer::to_observed(all);
  return now;
}

namespace {

// The program's whole environment: what is beneath the layer, the layer's over it, then what the
// options set (a server's socket).
ProcessEnvironment program_environment(const Options& options, const fs::path& layer_folder) {
  const ProcessEnvironment beneath = options.beneath ? *options.beneath : this_environment();
  return with_settings(with_settings(beneath, layer_environment(options.layer_dir, layer_folder, options.settings,
                                                                options.only, beneath)),
                       options.environment);
}

struct ProgramEnd {
  uint32_t pid = 0;
  int wait_status = 0;  // as waitpid() gave it
  std::optional<report::TimeoutRecord> timeout;
};

// Waits for the program within its bounds; past one, its whole tree is killed.
std::optional<report::TimeoutRecord> wait_bounded(ChildProcess& child, const Options& options,
                                                  const fs::path& layer_folder) {
  std::vector<fs::path> watched{layer_folder};
  if (!options.watched_beside.empty()) watched.push_back(options.watched_beside);
  ActivityReader activity(std::move(watched));
  BoundsWatch watch(options.bounds);
  while (!child.wait_for(watch.next_check())) {
    const auto passed = watch.check(activity.read());
    if (!passed) continue;
    report::TimeoutRecord timeout{.limit = *passed,
                                  .limit_seconds = watch.limit_seconds(*passed),
                                  .after_seconds = watch.elapsed_seconds(),
                                  .idle_seconds = watch.idle_seconds(),
                                  .last_step = {},
                                  .last_vulkan_call = activity.last_call(),
                                  .last_wire_command = {},
                                  .asked_again = *passed == TimeLimit::Inactivity ? activity.asked_again() : ""};
    (void)kill_tree(child.pid(), kKilledTreeEndsWithin);
    child.wait();
    return timeout;
  }
  return std::nullopt;
}

// Runs the program; while it runs, `on_live` hears the status files four times a second.
Result<ProgramEnd> run_program(const Options& options, const fs::path& layer_folder) {
  // The program's output to a file of the report when asked (a capture's replayer), else ours.
  auto child = ChildProcess::spawn({.program = options.command.front(),
                                    .args = {options.command.begin() + 1, options.command.end()},
                                    .inherit_env = false,
                                    .set_env = settings_of(program_environment(options, layer_folder)),
                                    .stderr_path = options.output.string(),
                                    .stdout_too = true,
                                    .truncate = true,
                                    .keep_last = options.output.empty() ? 0 : options.output_kept});
  // A program that cannot start is the command line's fault; a report file that cannot be made is not.
  if (!child)
    return fail(child.error().kind == ErrorKind::Environment ? ErrorKind::BadInput : child.error().kind,
                "observe: " + child.error().message);
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::jthread status;
  if (options.on_live)
    status = std::jthread([&] {
      const auto started = std::chrono::steady_clock::now();
      std::unique_lock lock(mutex);
      while (!ended.wait_for(lock, std::chrono::milliseconds(250), [&] { return done; })) {
        Live live = read_live(layer_folder);
        live.elapsed = std::chrono::steady_clock::now() - started;
        options.on_live(live);
      }
    });
  ProgramEnd end;
  end.timeout = wait_bounded(*child, options, layer_folder);
  {
    std::lock_guard lock(mutex);
    done = true;
  }
  ended.notify_all();
  end.wait_status = child->wait();
  end.pid = static_cast<uint32_t>(child->pid());
  return end;
}

// A record in the layer's folder that does not read as the layer writes it. The layer puts each
// record in place whole (written beside its name, then renamed), so such a file was written by
// someone else: the observed program (it can write wherever its user can, and its environment
// names the folder). That is bad data from the program under observation, so bad input (exit 2)
// that says so: not an I/O failure (exit 4: the file was read), nor the machine's (exit 3).
// Unless the device holding it is full: then the layer's own write was cut (the machine's, exit 3).
std::unexpected<Error> planted(const fs::path& file, const std::string& what) {
  if (auto full = full_device_error(file.parent_path())) return std::unexpected(std::move(*full));
  return fail(ErrorKind::BadInput, fmt::format("observe: {}: the observed program wrote or changed this record (the "
                                               "Tidemark layer never writes one so)",
                                               what));
}
std::unexpected<Error> bad_record(const fs::path& file, const std::string& what) {
  return planted(file, fmt::format("{}: {}", file.string(), what));
}

Result<nlohmann::json> read_json(const fs::path& file) {
  auto text = read_given_file(file, "layer record");
  if (!text) return planted(file, text.error().message);
  auto json = report::parse_json(*text, file.string(), "a JSON object written by the layer");
  if (!json) return planted(file, json.error().message);
  if (!json->is_object()) return bad_record(file, fmt::format("expected a JSON object, found {}", json->type_name()));
  return json;
}

template <class Gauges>
Gauges summed(const std::vector<Process>& processes, Gauges Process::*field) {
  std::map<std::string, int64_t> sums;
  // The first call answered VK_ERROR_DEVICE_LOST is the first process's that had one, not a sum.
  auto first_lost = [&](const std::string& name) { return name == "vklostcall" || name == "vklostat"; };
  for (const Process& process : processes) {
    if (process.kind != ProcessKind::Vulkan) continue;
    const bool none_lost_yet = !sums.contains("vklostcall") || sums["vklostcall"] == 0;
    for (const auto& [name, value] : named(process.*field))
      if (!first_lost(name))
        sums[name] += value;
      else if (none_lost_yet)
        sums[name] = value;
  }
  if constexpr (std::is_same_v<Gauges, KernelGauges>)
    return kernel_from_named(sums);
  else
    return observed_from_named(sums);
}

std::string base_name(const std::vector<std::string>& command) {
  if (command.empty()) return "?";
  return fs::path(command[0]).filename().string();
}

}  // namespace

Result<Gathered> gather(const fs::path& layer_folder, uint32_t root) { return gather(layer_folder, root, {}); }

Result<Gathered> gather(const fs::path& layer_folder, uint32_t root, Followed live) {
  std::vector<Process> processes;
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(layer_folder, ec))
    if (entry.is_directory()) folders.push_back(entry.path());
  if (ec) return fail(ErrorKind::Io, fmt::format("observe: cannot read {}: {}", layer_folder.string(), ec.message()));
  std::sort(folders.begin(), folders.end());
  std::map<uint32_t, layer::ProcessRecord::Ancestor> ancestors;
  std::vector<std::pair<size_t, fs::path>> with_events;  // (index in processes, its events file), in folder order
  for (const fs::path& folder : folders) {
    if (!fs::exists(folder / "process.json")) continue;
    TIDEMARK_TRY(json, read_json(folder / "process.json"));
    auto record = layer::process_record_from_json(json);
    if (!record) return bad_record(folder / "process.json", record.error());
    Process process;
    process.pid = record->pid;
    process.parent = record->parent;
    process.command = record->command;
    process.executable = record->executable;
    process.forked_from = record->forked_from;
    process.folder = folder.filename().string();
    for (const auto& ancestor : record->ancestors) ancestors.emplace(ancestor.pid, ancestor);
    if (!record->observed) {
      process.kind = ProcessKind::NotObserved;
      processes.push_back(std::move(process));
      continue;
    }
    if (fs::exists(folder / "layer.json")) {
      TIDEMARK_TRY(layer, read_json(folder / "layer.json"));
      auto report = layer::layer_report_from_json(layer);
      if (!report) return bad_record(folder / "layer.json", report.error());
      process.reported = true;
      process.devices = static_cast<uint32_t>(report->devices.size());
      for (const auto& device : report->devices) process.drivers.push_back(device.driver);
      process.libraries.assign(report->libraries.begin(), report->libraries.end());
      process.observed = layer::to_observed(report->all);
      process.layer = std::move(layer);
    } else if (auto last = last_status(folder / "status")) {
      // Killed, or ended by _exit: its counts as of its last call (its events file may lack the
      // last records it had buffered).
      process.observed = status_gauges(*last);
      process.devices = last->devices;
    }
    if (fs::exists(folder / "events.bin")) with_events.emplace_back(processes.size(), folder / "events.bin");
    processes.push_back(std::move(process));  // Vulkan or not once its events are read
  }
  // The tree's map on a second thread while each process's own host replays its events here:
  // the two share nothing, and each sees its events in the same order as one after the other.
  // The tree goes on from what the follower fed only when that was the first folder, as that
  // process: else it starts again (made on the thread that feeds it).
  std::unique_ptr<TreeFeed> tree = std::move(live.tree);
  if (tree &&
      (with_events.empty() || tree->folders() != std::vector<std::string>{processes[with_events[0].first].folder}))
    tree.reset();
  Status tree_fed;
  {
    std::jthread feeding([&] {
      if (!tree) tree = std::make_unique<TreeFeed>();
      for (const auto& [index, file] : with_events)
        if (tree_fed = tree->feed(processes[index].folder, processes[index].pid, file); !tree_fed) return;
    });
    for (const auto& [index, file] : with_events) {
      Process& process = processes[index];
      auto found = live.replays.find(process.folder);
      std::unique_ptr<ProcessReplay> replay = found != live.replays.end() && found->second->pid() == process.pid
                                                  ? std::move(found->second)
                                                  : std::make_unique<ProcessReplay>(process.pid);
      TIDEMARK_CHECK(replay->catch_up(file));
      TIDEMARK_CHECK(replay->finish(process, file.parent_path() / "trace.pftrace"));
    }
  }
  TIDEMARK_CHECK(tree_fed);
  for (Process& process : processes)
    if (process.kind != ProcessKind::NotObserved)
      process.kind = process.devices > 0 ? ProcessKind::Vulkan : ProcessKind::NoDevice;
  // The processes between the program and those that loaded the layer (a shell, xvfb-run): they
  // made no device; the layer's processes named them while they were alive.
  std::set<uint32_t> known;
  for (const Process& process : processes) known.insert(process.pid);
  for (const auto& [pid, ancestor] : ancestors) {
    if (pid == 0 || known.contains(pid)) continue;
    Process process;
    process.pid = pid;
    process.parent = ancestor.parent;
    process.command = ancestor.command;
    process.kind = ProcessKind::NoDevice;
    processes.push_back(std::move(process));
    known.insert(pid);
  }
  // The tree's order: the program first, then each process after its parent, by pid.
  std::sort(processes.begin(), processes.end(), [&](const Process& a, const Process& b) {
    if ((a.pid == root) != (b.pid == root)) return a.pid == root;
    return std::tie(a.pid, a.folder) < std::tie(b.pid, b.folder);
  });
  TIDEMARK_TRY(map, tree->host().kernel_dump());
  return Gathered{std::move(processes), std::move(map)};
}

Result<Observation> observe(const Options& options) {
  if (options.command.empty()) return fail(ErrorKind::BadInput, "observe: expected a program after --, found none");
  const fs::path layer_folder = options.report / "layer";
  // A report folder used before holds only this run's processes. The old layer folder is moved
  // aside at once and removed on a thread while the program starts: removing a folder of traces
  // takes about a millisecond, which the program would wait for. Folders left aside by an
  // observe that was killed go too.
  std::error_code ec;
  const std::string aside_prefix = "layer.old-";
  const fs::path aside = options.report / fmt::format("{}{}", aside_prefix, ::getpid());
  fs::rename(layer_folder, aside, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) fs::remove_all(layer_folder, ec);
  std::jthread clearing([report = options.report, aside_prefix] {
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(report, ignored))
      if (entry.path().filename().string().starts_with(aside_prefix)) fs::remove_all(entry.path(), ignored);
  });
  TIDEMARK_CHECK(make_directories(layer_folder));
  LiveReplays replays(layer_folder);  // each process's events replayed as they land
  TIDEMARK_TRY(ran, run_program(options, layer_folder));
  Followed live = replays.stop();
  Observation observation;
  observation.command = options.command;
  observation.settings = options.settings;
  observation.only = options.only;
  observation.pid = ran.pid;
  observation.exit_code = exit_code_of(ran.wait_status);
  observation.wait_status = ran.wait_status;
  observation.timeout = std::move(ran.timeout);
  TIDEMARK_TRY(gathered, gather(layer_folder, observation.pid, std::move(live)));
  observation.processes = std::move(gathered.processes);
  observation.kernel_map = std::move(gathered.kernel_map);
  if (std::none_of(observation.processes.begin(), observation.processes.end(),
                   [&](const Process& p) { return p.pid == observation.pid; })) {
    Process program;  // it never loaded the layer, and nothing under it did
    program.pid = observation.pid;
    program.parent = static_cast<uint32_t>(::getpid());
    program.command = options.command;
    observation.processes.insert(observation.processes.begin(), std::move(program));
  }
  if (options.beside) {
    TIDEMARK_TRY(beside, options.beside(observation.timeout.has_value()));
    for (auto& process : beside.processes) {
      process.beside = true;
      observation.processes.push_back(std::move(process));
    }
    observation.kernel_map += beside.kernel_map;
  }
  observation.whole_observed = summed(observation.processes, &Process::observed);
  observation.whole_kernel = summed(observation.processes, &Process::kernel);
  return observation;
}

namespace {

std::map<std::string, int64_t> values_of(const ObservedGauges& observed, const KernelGauges& kernel,
                                         const NamedGauges* wire) {
  std::map<std::string, int64_t> values;
  for (const auto& [name, value] : named(observed)) values[name] = value;
  for (const auto& [name, value] : named(kernel)) values[name] = value;
  if (wire)
    for (const auto& [name, value] : *wire) values[name] = value;
  return values;
}

// The one evaluator of a gauge bound (check/check.h), over one process's gauges or the tree's.
BoundOutcome judge_one(const scenario::GaugeCheck& bound, const std::map<std::string, int64_t>& values,
                       std::string scope, std::string where) {
  BoundOutcome judged{bound.expr.text(), std::move(scope), false, "", std::move(where)};
  auto outcome = check::check_gauge(bound, values, {});
  judged.passed = outcome && outcome->passed;
  judged.detail = outcome ? outcome->detail : outcome.error().message;
  return judged;
}

}  // namespace

std::vector<BoundOutcome> judge(const Observation& observation, const scenario::GaugeBounds& bounds) {
  std::vector<BoundOutcome> outcomes;
  const NamedGauges* wire = observation.wire ? &*observation.wire : nullptr;
  for (const auto& bound : bounds.each) {
    bool any = false;
    for (const Process& process : observation.processes) {
      if (process.kind != ProcessKind::Vulkan) continue;
      any = true;
      const std::string name = base_name(process.command);
      outcomes.push_back(judge_one(bound, values_of(process.observed, process.kernel, process.beside ? wire : nullptr),
                                   fmt::format("pid {} ({})", process.pid, name), name));
    }
    if (!any)
      outcomes.push_back({bound.expr.text(), "each", false, "no observed process made a Vulkan device", "each"});
  }
  for (const auto& bound : bounds.whole)
    outcomes.push_back(
        judge_one(bound, values_of(observation.whole_observed, observation.whole_kernel, wire), "whole", "whole"));
  return outcomes;
}

report::ReasonedVerdict verdict_of(const Observation& observation, const std::vector<BoundOutcome>& outcomes) {
  if (observation.timeout)
    return {report::Verdict::Timeout,
            fmt::format("the program (pid {}) {}", observation.pid, report::describe(*observation.timeout))};
  const std::string ended = describe_wait_status(observation.wait_status);
  for (const Process& process : observation.processes)
    if (auto lost = report::device_lost_in(report::gauge_values(named(process.observed))))
      return {report::Verdict::DeviceLost,
              fmt::format("pid {} ({}): {}; then the program (pid {}) {}", process.pid, process.executable,
                          report::describe(*lost), observation.pid, ended)};
  if (WIFSIGNALED(observation.wait_status))
    return {report::Verdict::Crash, fmt::format("the program (pid {}) {}", observation.pid, ended)};
  if (observation.exit_code != 0) return {report::Verdict::Red, fmt::format("the program {}", ended)};
  if (!observation.made_device())
    return {report::Verdict::NotJudged, "no process made a Vulkan device under the layer: its gauges would all read 0"};
  const auto failed = std::count_if(outcomes.begin(), outcomes.end(), [](const BoundOutcome& v) { return !v.passed; });
  if (failed > 0) return {report::Verdict::Red, fmt::format("{} of its bounds failed", failed)};
  return {report::Verdict::Green, {}};
}

int exit_code(const Observation& observation, const std::vector<BoundOutcome>& outcomes) {
  if (observation.timeout) return kTimedOutExitCode;
  if (observation.exit_code != 0) return observation.exit_code;
  if (verdict_of(observation, outcomes).verdict == report::Verdict::DeviceLost) return 1;
  if (!observation.made_device()) return 3;
  return std::all_of(outcomes.begin(), outcomes.end(), [](const BoundOutcome& v) { return v.passed; }) ? 0 : 1;
}

report::ObservationRecord observation_record(const Observation& observation,
                                             const std::vector<BoundOutcome>& outcomes) {
  auto values = [](const auto& gauges) { return report::gauge_values(named(gauges)); };
  report::ObservationRecord record{.command = observation.command,
                                   .exit_code = observation.exit_code,
                                   .pid = observation.pid,
                                   .settings = observation.settings,
                                   .only = observation.only};
  for (const Process& process : observation.processes) {
    report::ObservedProcessRecord& out = record.processes.emplace_back();
    out.pid = process.pid;
    out.parent = process.parent;
    out.command = process.command;
    out.executable = process.executable;
    out.kind = name_of(process.kind);
    out.folder = process.folder.empty() ? "" : "layer/" + process.folder;
    out.forked_from = process.forked_from;
    if (process.kind == ProcessKind::Vulkan)
      out.vulkan = {process.devices,          process.reported,       process.events,
                    values(process.observed), values(process.kernel), "layer/" + process.folder + "/trace.pftrace"};
  }
  record.whole_observed = values(observation.whole_observed);
  record.whole_kernel = values(observation.whole_kernel);
  record.kernel_map = observation.kernel_map;
  if (observation.wire) record.wire_gauges = report::gauge_values(*observation.wire);
  record.server_ended = observation.server_ended;
  record.timeout = observation.timeout;
  for (const BoundOutcome& outcome : outcomes)
    record.checks.push_back({outcome.check, outcome.scope, outcome.passed, outcome.detail});
  const report::ReasonedVerdict came_to = verdict_of(observation, outcomes);
  record.verdict = std::string(report::verdict_name(came_to.verdict));
  record.why = came_to.why;
  return record;
}

Status write_report(const Observation& observation, const std::vector<BoundOutcome>& outcomes, const fs::path& report) {
  std::optional<fs::path> program_trace;  // the first Vulkan process's, also the report's own trace.pftrace
  for (const Process& process : observation.processes) {
    if (process.kind != ProcessKind::Vulkan) continue;
    const fs::path placed = report / "layer" / process.folder / "trace.pftrace";
    std::error_code ec;
    if (!fs::equivalent(process.trace_file, placed, ec)) {
      // A process observed beside the program's tree (a server's) has its folder elsewhere.
      TIDEMARK_CHECK(make_directories(placed.parent_path()));
      TIDEMARK_CHECK(link_or_copy_file(process.trace_file, placed));
    }
    if (!program_trace) program_trace = placed;
  }
  if (program_trace) TIDEMARK_CHECK(link_or_copy_file(*program_trace, report / "trace.pftrace"));
  return report::write_observation_record(report / "observation.json", observation_record(observation, outcomes));
}

}  // namespace tidemark::observe
