#include "capture/capture_subject.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "capture/trace_calls.h"
#include "core/digest.h"
#include "core/files.h"
#include "core/process.h"
#include "core/worker.h"
#include "doctor/doctor.h"
#include "drivers/driver_builds.h"
#include "observe/observe.h"
#include "report/json_fields.h"
#include "runner/pipeline/build_runs.h"
#include "renderer/renderer_server.h"
#include "check/run_checks.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

namespace {

// A replay's server runs in a folder of its own under the temporary folder: its socket's path is short.
constexpr std::string_view kReplayFolder = "replay";
constexpr std::string_view kReplayServer = "server";

// The digest of a replay (core/digest.h's recipe): every gauge of the layer and the kernel
// model, summed over the tree, and the wire's when a tap stood between the replay and its server
// (as a session's run digest has them). A replay has no image or trace of Tidemark's own.
std::string replay_digest(const observe::Observation& observation) {
  RunDigestInputs inputs;
  inputs.add_gauges(GaugeSource::KernelModel, named(observation.whole_kernel));
  inputs.add_gauges(GaugeSource::Layer, named(observation.whole_observed));
  if (observation.wire) inputs.add_gauges(GaugeSource::Wire, *observation.wire);
  return inputs.digest();
}

// The replayer's environment: on a column's build, the build's (drivers::environment_for, as
// every process on a build has it), else this process's. The replayer's own settings are
// defaults: one the build (`held`, the column's or this process's) sets is the build's, as
// virgl's GALLIUM_DRIVER=virpipe is the build where the replayer's zink is not.
ProcessEnvironment replay_environment(const Replayer& replayer, const drivers::NamedBuild* build,
                                      const std::optional<drivers::DriverBuild>& held) {
  const ProcessEnvironment current = this_environment();
  const ProcessEnvironment on_build = build ? drivers::environment_for(build->builds, build->build, current) : current;
  const std::set<std::string> owned = held ? drivers::owned_variables(*held) : std::set<std::string>();
  std::vector<std::pair<std::string, std::string>> defaults;
  for (const auto& setting : replayer.environment)
    if (!owned.contains(setting.first)) defaults.push_back(setting);
  return with_settings(on_build, defaults);
}

// A replay on a driver build is held to the build's identity in two halves, as the replayer is
// not Tidemark and GL strings can be read only inside a context. The build's environment is
// checked whole by a Tidemark worker started under it (core/worker.h) asked to examine its gl
// backend (doctor::ExamineRequest), which reads every field, once per build in this process; then
// each replay process that made a Vulkan device is held to the Vulkan half as the layer read it
// there: its driver and the libraries it mapped. On a build with a server the Vulkan half is the
// server's: the replay's processes talk to it and make no Vulkan device (one that does ran its GL
// in its own process, not the build's client), and the server's processes are held to it.
Status check_build_environment(const drivers::DriverBuild& build, const fs::path& log) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, Status> checked;
  const std::lock_guard lock(mutex);
  const auto key = std::make_pair(build.where.file, build.name);
  if (auto found = checked.find(key); found != checked.end()) return found->second;
  TIDEMARK_TRY(named, drivers::find_build({build.where.file}, build.name));
  TIDEMARK_TRY(worker, runner::start_on_build(named, log));
  TIDEMARK_TRY(reply, worker.ask(doctor::to_json(doctor::ExamineRequest{.backends = {"gl"}}).dump(),
                                 {.wall = kDefaultWallSeconds, .inactivity = 0}));
  std::string said;
  if (const auto* end = std::get_if<WorkerEnd>(&reply)) {
    said = fmt::format("it {}", describe(*end));
  } else {
    TIDEMARK_TRY(json, report::parse_json(std::get<std::string>(reply), "examination", "an examination"));
    TIDEMARK_TRY(examination, doctor::examination_from_json(json));
    if (!examination.lacks_what_is_needed()) return checked.emplace(key, Status()).first->second;
    for (const doctor::Finding& finding : examination.findings)
      if (finding.needed && !finding.present) said = doctor::describe(finding);
  }
  const Status status = fail(ErrorKind::Environment,
                             fmt::format("capture: driver build '{}' is not the build it names: Tidemark's examination "
                                         "of backend gl under it ({}; all it said is in {})",
                                         build.name, said, log.string()));
  return checked.emplace(key, status).first->second;
}

Status check_replay_driver(const observe::Observation& observation, const drivers::DriverBuild& build) {
  drivers::DriverBuild vulkan_half = build;
  vulkan_half.identity.gl_version.reset();
  vulkan_half.identity.gl_renderer.reset();
  for (const auto& process : observation.processes) {
    if (process.kind != observe::ProcessKind::Vulkan) continue;
    if (build.server && !process.beside)
      return fail(ErrorKind::Environment,
                  fmt::format("driver build '{}' ({}): expected the replay's processes to reach Vulkan through "
                              "its server only, found a Vulkan device made in the replay's process {} ({}) on '{}': "
                              "its GL ran in that process, not through the build's client",
                              build.name, format_location(build.where), process.pid, process.executable,
                              fmt::join(process.drivers, "', '")));
    if (!process.reported) continue;
    const std::string reader =
        process.beside
            ? fmt::format("the layer beneath the replay's server, {} (pid {})", process.executable, process.pid)
            : fmt::format("the replay's process {} ({})", process.pid, process.executable);
    for (const auto& driver : process.drivers)
      TIDEMARK_CHECK(drivers::check_identity(vulkan_half, {.reader = reader,
                                                           .gl_version = {},
                                                           .gl_renderer = {},
                                                           .vulkan_driver = driver,
                                                           .mapped = process.libraries,
                                                           .loaded_whole_driver = false}));
  }
  return {};
}

// The server a replay talks to, if its build names one: the column's build's (`named`), else the
// build this process runs under's.
Result<std::optional<renderer::ServerSpec>> replay_server(const std::optional<drivers::NamedBuild>& named) {
  if (!named) return renderer::active_server();
  if (!named->build.server) return std::optional<renderer::ServerSpec>();
  TIDEMARK_TRY(spec, renderer::server_of(named->builds, named->build, this_environment()));
  return std::optional(std::move(spec));
}

// One fixture's replay on one build under one fault, its command made once.
class CaptureRun final : public runner::SubjectRun {
 public:
  CaptureRun(const CaptureFixture& fixture, std::filesystem::path folder, std::string replayer,
             std::vector<std::string> command, ProcessEnvironment environment,
             std::optional<drivers::DriverBuild> build, std::optional<renderer::ServerSpec> server,
             const runner::RunOptions& options)
      : fixture_(fixture),
        folder_(std::move(folder)),
        replayer_(std::move(replayer)),
        command_(std::move(command)),
        environment_(std::move(environment)),
        build_(std::move(build)),
        server_(std::move(server)),
        options_(options) {}

  fs::path folder() const override { return folder_; }

  Result<std::string> once(const fs::path& dir) override {
    // A replay always has a folder: the layer's files land there, under a scratch folder when the run keeps none.
    if (dir.empty()) return fail(ErrorKind::BadInput, fixture_.id() + ": a capture's replay needs a report folder");
    if (build_) TIDEMARK_CHECK(check_build_environment(*build_, dir / "build-check.log"));
    std::vector<std::string> command = command_;
    if (options_.variant.cut == kSetupCut) {
      // The replayer's last argument is the capture: its setup calls alone, cut here.
      TIDEMARK_TRY(calls, list_calls(fixture_.capture, dir / "calls.dump"));
      TIDEMARK_CHECK(trim_capture(fixture_.capture, split_units(calls).setup, dir / "setup.trace"));
      command.back() = (dir / "setup.trace").string();
    }
    const fs::path observed = dir / "observed";
    std::error_code ec;
    fs::remove_all(observed, ec);
    // On a build with a server, each replay has a server of its own, the layer beneath it under
    // the replay's fault, its processes observed beside the replay's; its log kept in observed/.
    std::optional<TemporaryFolder> server_folder;
    if (server_) {
      TIDEMARK_TRY(made, TemporaryFolder::make(kReplayFolder));
      server_folder.emplace(std::move(made));
    }
    const TimeBounds bounds = apply(apply(TimeBounds{}, fixture_.time_bounds), options_.time_bounds);
    auto observation = renderer::observe({.command = command,
                                          .settings = options_.variant.fault,
                                          .only = "",
                                          .report = observed,
                                          .layer_dir = options_.layer_dir,
                                          .on_live = {},
                                          .output = dir / "replay.log",
                                          .beneath = environment_,
                                          .environment = {},
                                          .beside = {},
                                          .bounds = bounds,
                                          .watched_beside = {},
                                          .output_kept = kLogKept},
                                         server_, server_folder ? server_folder->path() / kReplayServer : fs::path());
    if (server_folder)  // the server's log is kept with the replay's, as far as it can be
      (void)link_or_copy_file(server_folder->path() / kReplayServer / "server.log", observed / "server.log");
    if (!observation) return std::unexpected(observation.error());
    server_folder_ = std::move(server_folder);  // the server's traces stay until the run is kept
    if (build_) TIDEMARK_CHECK(check_replay_driver(*observation, *build_));
    verdicts_ = observe::judge(*observation, fixture_.bounds);
    last_ = std::move(*observation);
    return replay_digest(*last_);
  }

  Result<runner::Reading> read(const std::vector<std::string>& digests, report::RunRecord& record) override {
    record.observed_gauges = report::gauge_values(named(last_->whole_observed));
    record.kernel_gauges = report::gauge_values(named(last_->whole_kernel));
    record.gauge_line = gauge_line(last_->whole_observed);
    if (last_->wire) record.wire_gauges = report::gauge_values(*last_->wire);
    const std::vector<std::string> checks = fixture_.checks();
    for (const auto& verdict : verdicts_) {
      const auto index = std::find(checks.begin(), checks.end(), verdict.check) - checks.begin();
      record.checks.push_back({.id = check_id(static_cast<size_t>(index)),
                               .kind = "gauge",
                               .check = verdict.check,
                               .passed = verdict.passed,
                               .detail = fmt::format("{}: {}", verdict.where, verdict.detail),
                               .where = fixture_.file.string(),
                               .artifacts = {}});
    }
    if (auto determinism = check::check_determinism(digests))
      record.checks.push_back({.id = determinism->id.str(),
                               .kind = std::string(scenario::to_string(determinism->id.kind)),
                               .check = determinism->text,
                               .passed = determinism->passed,
                               .detail = determinism->detail,
                               .where = {},
                               .artifacts = {}});
    if (last_->timeout) {
      record.timeout = last_->timeout;
      return runner::Reading{.stopped = report::Verdict::Timeout,
                             .why = fmt::format("the replay ({}) {}; it and every process it started were killed",
                                                replayer_, report::describe(*last_->timeout))};
    }
    // A server that ended mid-replay is named, as a session names it: its exit or signal, and the
    // last wire command the tap saw.
    const std::string server_end = last_->server_ended.empty() ? "" : "; " + last_->server_ended;
    if (WIFSIGNALED(last_->wait_status)) {  // the replayer crashed: beneath it, a driver did
      record.crash = report::CrashRecord{.process = report::CrashedProcess::Subject,
                                         .pid = last_->pid,
                                         .signal = WTERMSIG(last_->wait_status),
                                         .ended = describe_wait_status(last_->wait_status),
                                         .last_step = {},
                                         .last_wire_command = {}};
      // Its words name no pid: a ledger keeps them.
      return runner::Reading{.stopped = report::Verdict::Crash,
                             .why = fmt::format("the replay ({}) {}{}", replayer_, record.crash->ended, server_end)};
    }
    if (last_->exit_code != 0 || !server_end.empty())
      return runner::Reading{
          .stopped = report::Verdict::CouldNotRun,
          .why = fmt::format("the replay ({}) exited {}{}", replayer_, last_->exit_code, server_end)};
    if (!last_->made_device())
      return runner::Reading{
          .stopped = report::Verdict::NotJudged,
          .why = fmt::format("the replay ({}){} made no Vulkan device under the layer: its gauges would all read 0",
                             replayer_, server_ ? fmt::format(" and its server ({})", server_->command.front()) : "")};
    // A device that made nothing replayed nothing: every upper bound would hold of it. The sums are
    // the replay's processes' and its server's (on a build with one, the only device).
    const ObservedGauges& whole = last_->whole_observed;
    if (whole.vkbufsmade == 0 && whole.vkimagespk == 0 && whole.vksubmits == 0)
      return runner::Reading{
          .stopped = report::Verdict::NotJudged,
          .why = fmt::format("the replay ({}) made a Vulkan device but no buffer, image or submit through it: it "
                             "replayed nothing its bounds could judge",
                             replayer_)};
    return runner::Reading{};
  }

  Status keep(const fs::path& dir, const report::RunRecord&) override {
    return observe::write_report(*last_, verdicts_, dir / "observed");
  }

 private:
  const CaptureFixture& fixture_;
  fs::path folder_;
  std::string replayer_;  // the replaying program, as records and messages name it
  std::vector<std::string> command_;
  ProcessEnvironment environment_;  // beneath the layer's
  std::optional<drivers::DriverBuild> build_;
  std::optional<renderer::ServerSpec> server_;    // the build's server, started for each replay
  std::optional<TemporaryFolder> server_folder_;  // the last replay's server's
  const runner::RunOptions& options_;
  std::optional<observe::Observation> last_;
  std::vector<observe::BoundOutcome> verdicts_;
};

}  // namespace

std::string test_name(const CaptureFixture& fixture) {
  return fmt::format("Capture.{}.{}", runner::camel_case(fixture.group), fixture.name);
}

namespace {

std::vector<runner::SubjectControl> controls_of(const CaptureFixture& fixture) {
  const std::vector<std::string> checks = fixture.checks();
  std::vector<runner::SubjectControl> controls;
  for (const auto& control : fixture.controls) {
    runner::SubjectControl& each = controls.emplace_back();
    each.label = control.describe();
    each.variant.fault = control.fault;
    each.variant.cut = control.cut;
    each.build = control.build;
    each.where = control.where;
    if (control.fails == std::vector<std::string>{std::string(kReplayFails)}) {
      each.run_fails = true;
      continue;
    }
    for (size_t k = 0; k < checks.size(); ++k)
      if (std::find(control.fails.begin(), control.fails.end(), checks[k]) != control.fails.end())
        each.fails.push_back(check_id(k));
  }
  return controls;
}

// What the fixture is: its YAML and its capture (hashed byte for byte: what it is when it runs).
runner::SubjectInfo info_of(const CaptureFixture& fixture) {
  runner::SubjectInfo info{.id = fixture.id(),
                           .kind = "capture fixture",
                           .group = fixture.group,
                           .file = fixture.file,
                           .content = {fixture.file, fixture.capture},
                           .test_family = "Capture",
                           .test_stem = fmt::format("{}.{}", runner::camel_case(fixture.group), fixture.name),
                           .labels = {"capture", "integration-magma-" + fixture.group},
                           .in_lanes = false,
                           .starts_builds = true,
                           .backends = {backend_of(fixture)},
                           .other_backends = runner::OtherBackends::Listed,
                           .checks = {},
                           .controls = controls_of(fixture),
                           .unproven = {},
                           .red_once_test_name = "RedOnce." + test_name(fixture),
                           .red_once_labels = {"red-once", "capture"},
                           .is_long = false,
                           .time_bounds = fixture.time_bounds};
  for (size_t k = 0; k < fixture.checks().size(); ++k) info.checks.push_back({check_id(k), {}});
  return info;
}

}  // namespace

CaptureSubject::CaptureSubject(CaptureFixture fixture) : Subject(info_of(fixture)), fixture_(std::move(fixture)) {}

Result<std::unique_ptr<runner::SubjectRun>> CaptureSubject::prepare(const runner::RunOptions& options,
                                                                    report::RunRecord& record) const {
  const std::string own = backend_of(fixture_);
  const std::string backend = options.column.backend.empty() ? own : options.column.backend;
  if (backend != own)
    return fail(ErrorKind::BadInput, fmt::format("the capture ({}) replays on {} only", kind_name(fixture_.kind), own));
  // What a session takes does not reach a replay: refused rather than ignored.
  const lanes::LaneOptions& lane = options.column.lane;
  const std::pair<bool, std::string> sessions_only[] = {
      {!options.variant.mutant.empty(), "--mutant"},
      {!options.variant.knobs.empty(), "--knob"},
      {!lane.record.empty(), "--record"},
      {lane.lane != Lane::Monolith, fmt::format("--lane {}", lane_name(lane.lane))},
      {!lane.connect.empty(), "--connect"},
      {lane.kill_server_at_frame != 0, "--kill-server-at-frame"},
      {options.validation, "--validation (the replay runs under the Tidemark layer only)"}};
  for (const auto& [given, option] : sessions_only)
    if (given)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: expected a capture's options (its controls are layer faults; it has no lane), "
                              "found {} (a session's: give the capture fixtures apart)",
                              fixture_.id(), option));
  std::string folder = fixture_.name;
  if (!options.variant.cut.empty() && (options.variant.cut != kSetupCut || fixture_.kind != CaptureKind::Apitrace))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected the cut setup of an apitrace capture, found '{}' of {}",
                                                 fixture_.id(), options.variant.cut, kind_name(fixture_.kind)));
  for (const std::string& variant :
       {options.variant.fault, options.variant.cut.empty() ? std::string() : "replay-" + options.variant.cut,
        options.column.build})
    if (!variant.empty()) {
      std::string text = variant;
      std::replace(text.begin(), text.end(), '=', '-');
      folder += "@" + text;
    }
  const Replayer replayer = replayer_for(fixture_);
  std::optional<drivers::NamedBuild> on_build;
  if (!options.column.build.empty()) {
    TIDEMARK_TRY(found, drivers::find_build(options.drivers_files, options.column.build));
    on_build = std::move(found);
  }
  TIDEMARK_TRY(active, drivers::active_build());
  const std::string suffix = runner::column_suffix(own, backend, options.column.build);
  record.test = capture::test_name(fixture_) + suffix;
  record.subject = fixture_.id() + suffix;
  record.file = fixture_.file.string();
  record.column = {own, options.column.build};
  const std::string build = on_build ? on_build->build.name : active ? active->name : "";
  record.driver =
      build.empty() ? replayer.command.front() : fmt::format("{} (replayed by {})", build, replayer.command.front());
  if (!options.variant.fault.empty()) record.mutant = "fault=" + options.variant.fault;
  if (!options.variant.cut.empty()) record.mutant = "replay=" + options.variant.cut;
  record.lane.name = std::string(runner::kNoLane);
  // The build the replay must have run on: the column's, else the one this process runs on.
  std::optional<drivers::DriverBuild> held = on_build ? on_build->build : active;
  TIDEMARK_TRY(server, replay_server(on_build));
  if (server) TIDEMARK_CHECK(TemporaryFolder::room_for(kReplayFolder, fs::path(kReplayServer) / renderer::kSocketName));
  std::unique_ptr<runner::SubjectRun> prepared = std::make_unique<CaptureRun>(
      fixture_, fs::path(runner::kNoLane) / fixture_.group / folder, replayer.command.front(), replayer.command,
      replay_environment(replayer, on_build ? &*on_build : nullptr, held), std::move(held), std::move(server), options);
  return prepared;
}

Result<report::RunRecord> run_capture(const CaptureFixture& fixture, const runner::RunOptions& options) {
  return runner::run(CaptureSubject(fixture), options);
}

}  // namespace tidemark::capture
