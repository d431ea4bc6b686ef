#include "runner/kinds/scenario_subject.h"

#include "session/builtin_backends.h"
#include "session/session.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <sys/wait.h>

#include "core/digest.h"
#include "core/files.h"
#include "core/mutants.h"
#include "drivers/driver_builds.h"
#include "report/baseline.h"
#include "runner/kinds/digest.h"
#include "runner/kinds/read_back.h"
#include "check/png.h"

namespace tidemark::runner {

namespace fs = std::filesystem;
using scenario::Scenario;

bool is_fixture(const scenario::Scenario& scenario) {
  return scenario.file.parent_path().parent_path().filename() == "fixtures";
}

bool is_soak(const scenario::Scenario& scenario) { return scenario.file.parent_path().filename() == "soak"; }

namespace {

// The spawn or tcp lane's server that died by a signal under a run, whose step failed with `error`
// (the step's place, then the channel's words: the signal and the server's last lines).
report::CrashRecord lane_server_crash(const ProcessDeath& death, const std::string& error) {
  return report::CrashRecord{.process = report::CrashedProcess::LaneServer,
                             .pid = death.pid,
                             .signal = WTERMSIG(death.wait_status),
                             .ended = describe_wait_status(death.wait_status),
                             .last_step = error.substr(0, error.find(": the ")),
                             .last_wire_command = {}};
}

Result<SingleRun> run_once(const Scenario& scenario, const session::ResolvedConfig& resolved,
                           const lanes::LaneOptions& lane, const RunOptions& options, std::vector<std::string>& log) {
  auto session = lanes::open_lane(lane, resolved, [&log](const std::string& line) { log.push_back(line); });
  if (!session && session.error().kind == ErrorKind::Environment) return std::unexpected(session.error());

  SingleRun result;
  if (!session) {
    result.error = session.error();
    return result;
  }
  // A scenario that asks for the impossible (a draw of a buffer with no store, a band past
  // the end) is bad input, and a machine that cannot write what the run records is an I/O
  // error: neither is a red result. Only the code under test failing is.
  auto not_red = [](const Error& error) {
    return error.kind == ErrorKind::Environment || error.kind == ErrorKind::BadInput || error.kind == ErrorKind::Io;
  };
  auto probe = [&](uint64_t calls) { options.probe(calls, (*session)->report()); };
  if (auto done = drive(scenario, (*session)->device(), (*session)->model(), result.read, options.probe_every, probe);
      !done) {
    if (not_red(done.error())) return std::unexpected(done.error());
    result.error = done.error();
    if (auto death = (*session)->server_death(); death && WIFSIGNALED(death->wait_status))
      result.crash = lane_server_crash(*death, done.error().message);
    else if (reads_observed_gauges(scenario) && !result.read.observed_gauges)
      // What the layer saw until the step failed: a lost device is told by its gauges (runner/pipeline/subject.h).
      if (auto observed = (*session)->model().observed_gauges()) result.read.observed_gauges = *observed;
  }
  result.lane = (*session)->report();
  result.driver = (*session)->device().driver();
  if (auto closed = (*session)->close(); !closed && not_red(closed.error())) return std::unexpected(closed.error());
  return result;
}

// The scenario's checks and the runner's own against the last run's read-back.
// A backend that reports itself samples its device bytes (the target besides them); a real
// driver's account is the layer's count, which holds the target, sampled with the map.
check::CounterTracks counter_tracks(const api::BackendEntry& backend) {
  if (backend.reports_itself) return {.device_bytes = api::kDeviceBytesTrack, .map_entry = api::kMapEntryTrack};
  return {.device_bytes = api::kLayerBytesTrack, .map_entry = api::kMapEntryTrack, .target_in_device_bytes = true};
}

Result<std::vector<check::Outcome>> evaluate(const Scenario& scenario, const api::BackendEntry& backend,
                                             MutantId mutant, const KnobValues& knobs, const fs::path& dir,
                                             const std::vector<std::string>& digests, const SingleRun& run,
                                             const RunOptions& options) {
  check::RunContext context;
  context.completed = !run.error;
  context.knobs = check::Values(knobs.begin(), knobs.end());
  context.artifact_dir = dir;
  context.mutant = mutant;
  context.lane = options.column.lane.lane;
  context.traffic = run.lane;
  context.validation = options.validation;
  context.digests = digests;
  context.counter_tracks = counter_tracks(backend);
  return check::evaluate(scenario, run.read, context);
}

}  // namespace

// On a build whose driver's Vulkan device lives in its renderer server, the server's layer asks the
// session's kernel model as it goes, over the kernel channel (renderer/kernel_channel_server.h): the
// kernel driver's queues and faults (kmd, kgsl) answer its submits and waits as they happen. Its
// memory reaches the model only at the run's read-backs (renderer/server_records.h): the GPU-memory
// map, its views and the trace's GPU Memory track hold the server's memory by then, so reconcile
// and the memory half's gauges judge it, but a GPU-memory step mid-run would read a map not yet
// fed. Such a scenario is not run, and says why.
Status check_build_feeds_the_model(const Scenario& scenario) {
  TIDEMARK_TRY(active, drivers::active_build());
  if (!active || !active->server || !scenario.has_kernel_step(true)) return {};
  return fail(ErrorKind::BadInput,
              fmt::format("{}: its workload steps the kernel model's GPU memory mid-run; driver build '{}' renders in "
                          "its server, whose memory reaches the session's kernel model only through its records, read "
                          "at the run's read-back, never while the run goes on",
                          scenario.id(), active->name));
}

// A backend judges a scenario only with every kind of gauge its checks read.
Status check_backend_judges(const Scenario& scenario, const api::BackendEntry& backend) {
  for (const auto& [kind, use] : scenario.gauge_uses()) {
    if (backend.gives(kind)) continue;
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a gauge the {} backend gives ({}), found '{}', a {} gauge",
                            format_location(use.where), backend.name, backend.gauge_kinds(), use.name,
                            kGaugeKindNames[static_cast<size_t>(kind)]));
  }
  return {};
}

std::string default_backend(const Scenario& scenario) {
  return scenario.backends.empty() ? std::string(api::kDefaultBackend) : scenario.backends.front();
}

std::string backend_suffix(const Scenario& scenario, std::string_view backend) {
  return column_suffix(default_backend(scenario), std::string(backend), "");
}

std::string subject_name(const Scenario& scenario, std::string_view backend) {
  return scenario.id() + backend_suffix(scenario, backend);
}

std::string run_series(std::string_view lane, std::vector<std::string> knobs, const RunOptions& options) {
  std::string series = fmt::format("run lane={}", lane);
  if (!options.column.backend.empty()) series += " backend=" + options.column.backend;
  if (!options.variant.mutant.empty()) series += " mutant=" + options.variant.mutant.name;
  std::sort(knobs.begin(), knobs.end());
  for (const auto& knob : knobs) series += " knob=" + knob;
  if (options.repeat > 1) series += fmt::format(" repeat={}", options.repeat);
  if (options.retry > 0) series += fmt::format(" retry={}", options.retry);
  if (options.validation) series += " validation";
  return series;
}

Result<std::map<std::string, int64_t>> effective_knobs(const Scenario& scenario,
                                                       const std::map<std::string, int64_t>& overrides) {
  return resolve_knobs(
      {{&scenario.session.knobs, format_location({scenario.file.string(), 1, 1})}, {&overrides, "--knob"}});
}

namespace {

// Whether the scenario can be judged on backend `name` (`entry` its registry entry, if any): it
// lists none, lists it, or lists what it stands in for (gl-native for gl).
bool scenario_takes(const Scenario& scenario, const api::BackendEntry* entry, const std::string& name) {
  const auto& listed = scenario.backends;
  auto lists = [&](const std::string& each) { return std::find(listed.begin(), listed.end(), each) != listed.end(); };
  return listed.empty() || lists(name) || (entry && !entry->stands_for.empty() && lists(entry->stands_for));
}

}  // namespace

// The backend a run uses, its entry looked up once: the command line's, else the scenario's first.
// One the scenario does not list, and that stands in for none it lists, cannot judge it.
Result<const api::BackendEntry*> backend_for(const Scenario& scenario, const std::string& chosen,
                                             const api::BackendRegistry& registry) {
  const std::string name = chosen.empty() ? default_backend(scenario) : chosen;
  auto entry = registry.lookup(name);
  if (!entry && !chosen.empty()) return fail(ErrorKind::BadInput, "--backend: " + entry.error().message);
  if (!chosen.empty() && !scenario_takes(scenario, entry ? *entry : nullptr, chosen))
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a backend the scenario lists ({}), found --backend {}",
                            format_location(scenario.backends_where), fmt::join(scenario.backends, ", "), chosen));
  return entry;
}

namespace {

// A scenario's run in one lane on one backend, its session resolved once. One that cannot start
// (a mutant this build lacks) says why each time it is made.
class ScenarioRun final : public SubjectRun {
 public:
  ScenarioRun(const Scenario& scenario, session::ResolvedConfig resolved, std::optional<Error> cannot_start,
              const RunOptions& options, lanes::LaneOptions lane)
      : scenario_(scenario),
        resolved_(std::move(resolved)),
        cannot_start_(std::move(cannot_start)),
        options_(options),
        lane_(std::move(lane)) {}

  fs::path folder() const override {
    // A backend other than the scenario's own has a folder of its own: nothing is written over.
    return fs::path(lane_name(lane_.lane)) / scenario_.group /
           (scenario_.name + backend_suffix(scenario_, resolved_.config.backend));
  }

  Result<std::string> once(const fs::path& dir) override {
    dir_ = dir;
    if (!dir.empty() && lane_.server_log.empty()) lane_.server_log = (dir / "server.log").string();
    log_.clear();
    if (!cannot_start_) {
      TIDEMARK_TRY(once, run_once(scenario_, resolved_, lane_, options_, log_));
      last_ = std::move(once);
    } else {
      last_ = SingleRun{};
      last_.error = *cannot_start_;
    }
    return run_digest(last_.read);
  }

  Result<Reading> read(const std::vector<std::string>& digests, report::RunRecord& record) override {
    const check::ReadBack& read = last_.read;
    record.gauges = report::gauge_values(named(read.gauges));
    if (read.kernel_gauges) record.kernel_gauges = report::gauge_values(named(*read.kernel_gauges));
    if (read.observed_gauges) record.observed_gauges = report::gauge_values(named(*read.observed_gauges));
    if (read.wire_gauges) record.wire_gauges = report::gauge_values(*read.wire_gauges);
    record.gauge_line = gauge_line(read.gauges);
    record.validation_messages = read.validation_messages;
    record.lane = last_.lane;
    record.pixel_hash = pixel_hash(read.image);
    record.trace_hash = trace_hash(read.trace);
    TIDEMARK_TRY(driver, driver_identity());
    record.driver = std::move(driver);
    TIDEMARK_TRY(outcomes, evaluate(scenario_, *resolved_.backend, resolved_.mutant, resolved_.knobs, dir_, digests,
                                    last_, options_));
    auto absolute = [](const fs::path& path) { return fs::absolute(path).lexically_normal().string(); };
    for (const auto& outcome : outcomes) {
      report::CheckRecord check{.id = outcome.id.str(),
                                .kind = std::string(scenario::to_string(outcome.id.kind)),
                                .check = outcome.text,
                                .passed = outcome.passed,
                                .detail = outcome.detail,
                                .where = outcome.where.file.empty() ? std::string() : format_location(outcome.where),
                                .artifacts = {}};
      for (const auto& artifact : outcome.artifacts) check.artifacts.push_back(absolute(artifact));
      record.checks.push_back(std::move(check));
    }
    if (!last_.error) return Reading{};
    if (last_.crash) {
      record.crash = last_.crash;
      const std::string& error = last_.error->message;
      const size_t said = error.find("; it said: ");  // the server's last words, as the channel read them
      return Reading{.stopped = report::Verdict::Crash,
                     .why = fmt::format("the {} lane's tidemark-server (pid {}) {}; its last step: {}{}",
                                        lane_name(lane_.lane), last_.crash->pid, last_.crash->ended,
                                        last_.crash->last_step, said == std::string::npos ? "" : error.substr(said))};
    }
    return Reading{.stopped = report::Verdict::CouldNotRun, .why = last_.error->message};
  }

  Status keep(const fs::path& dir, const report::RunRecord& record) override {
    const check::ReadBack& read = last_.read;
    if (!read.trace.empty()) TIDEMARK_CHECK(write_file_atomically(dir / "trace.pftrace", read.trace));
    if (!read.image.pixels.empty())
      TIDEMARK_CHECK(replace_file(dir / "actual.png",
                                  [&](const fs::path& temporary) { return check::write_png(temporary, read.image); }));
    std::string backend_log;
    for (const auto& line : log_) backend_log += line + '\n';
    backend_log += "end: " + record.gauge_line + '\n';
    return write_file_atomically(dir / "backend.log", backend_log);
  }

 private:
  // The driver as its device named itself, in this process or across the wire's welcome; else,
  // under a driver build, the build's name (a backend that names no driver was held to it).
  Result<std::string> driver_identity() const {
    if (!last_.driver.empty()) return last_.driver;
    TIDEMARK_TRY(build, drivers::active_build());
    return build ? build->name : std::string();
  }

  const Scenario& scenario_;
  session::ResolvedConfig resolved_;
  std::optional<Error> cannot_start_;
  const RunOptions& options_;
  lanes::LaneOptions lane_;
  fs::path dir_;
  std::vector<std::string> log_;
  SingleRun last_;
};

}  // namespace

namespace {

SubjectInfo info_of(const Scenario& scenario) {
  SubjectInfo info{.id = scenario.id(),
                   .kind = "scenario",
                   .group = scenario.group,
                   .file = scenario.file,
                   .content = {},
                   .test_family = "Magma",
                   .test_stem = fmt::format("{}.{}", camel_case(scenario.group), scenario.name),
                   .labels = {fmt::format("integration-magma-{}", scenario.group)},
                   .in_lanes = true,
                   .starts_builds = false,
                   .backends = scenario.backends,
                   .other_backends = scenario.backends.empty() ? OtherBackends::Any : OtherBackends::ListedOrStandIn,
                   .checks = {},
                   .controls = {},
                   .unproven = scenario.unproven,
                   .red_once_test_name = fmt::format("RedOnce.{}.{}", camel_case(scenario.group), scenario.name),
                   .red_once_labels = {"red-once"},
                   .is_long = is_soak(scenario),
                   .time_bounds = scenario.time_bounds};
  // A scenario made from text (doctor's probe, a reduction's candidate) has no file: no hash.
  std::error_code error;
  if (!scenario.file.empty() && fs::is_regular_file(scenario.file, error)) info.content = {scenario.file};
  if (info.backends.empty()) info.backends = {default_backend(scenario)};
  if (is_fixture(scenario)) info.labels.push_back("fixture");
  if (info.is_long) {
    info.labels.push_back("soak");
    info.red_once_labels.push_back("soak");
  }
  for (const auto& id : scenario.checks()) info.checks.push_back({id.str(), scenario.check_text(id)});
  for (const auto& control : scenario.controls) {
    std::set<scenario::CheckId> fails(control.fails.begin(), control.fails.end());
    SubjectControl& each = info.controls.emplace_back();
    each.label = scenario::describe_control(control);
    each.variant = {.mutant = MutantChoice::named(control.mutant), .knobs = control.knobs, .fault = {}, .cut = {}};
    for (const auto& id : fails) each.fails.push_back(id.str());
    each.skip_lanes = control.skip_lanes;
    each.backends = control.backends;
    each.where = control.where;
  }
  return info;
}

}  // namespace

ScenarioSubject::ScenarioSubject(std::shared_ptr<const Scenario> scenario)
    : Subject(info_of(*scenario)), scenario_(std::move(scenario)) {}

ScenarioSubject ScenarioSubject::borrowing(const Scenario& scenario) {
  return ScenarioSubject(std::shared_ptr<const Scenario>(&scenario, [](const Scenario*) {}));
}

Result<std::unique_ptr<SubjectRun>> ScenarioSubject::prepare(const RunOptions& options,
                                                             report::RunRecord& record) const {
  const Scenario& scenario = *scenario_;
  TIDEMARK_CHECK(check_build_is_this_process(*this, options.column.build));
  if (!options.variant.fault.empty() || !options.variant.cut.empty())
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a mutant or knobs, found {} (a capture's)", scenario.id(),
                            options.variant.fault.empty() ? "the cut '" + options.variant.cut + "'"
                                                          : "the layer fault '" + options.variant.fault + "'"));
  // The backend, the knobs and the mutant are resolved here, once: the lanes open the session resolved.
  const api::BackendRegistry& backends =
      options.column.lane.backends ? *options.column.lane.backends : session::builtin_backends();
  TIDEMARK_TRY(backend, backend_for(scenario, options.column.backend, backends));
  const std::string& backend_name = backend->name;
  TIDEMARK_CHECK(check_backend_judges(scenario, *backend));
  TIDEMARK_CHECK(check_build_feeds_the_model(scenario));
  TIDEMARK_TRY(knobs, effective_knobs(scenario, options.variant.knobs));
  const std::string suffix = column_suffix(default_backend(scenario), backend_name, options.column.build);
  record.test = test_name(info(), options.column.lane.lane, "") + suffix;
  record.subject = scenario.id() + suffix;
  record.file = scenario.file.string();
  record.column = {backend_name, options.column.build};
  record.mutant = options.variant.mutant.name;
  record.knobs = knobs;
  for (const auto& check : scenario.expect.gauges)
    for (const auto& name : check.expr.identifiers())
      if (std::find(record.gauges_used.begin(), record.gauges_used.end(), name) == record.gauges_used.end())
        record.gauges_used.push_back(name);
  // The session the run asks for: the scenario's, on the backend, mutant and knobs chosen.
  api::SessionConfig config = scenario.session;
  config.backend = backend_name;
  config.knobs = knobs;
  config.mutant = options.variant.mutant.name;
  config.validation = options.validation;
  // What the session would refuse on this process's build (a server's, or none) is bad input now,
  // before any report is written; a server reached by --connect runs on a build of its own.
  if (options.column.lane.connect.empty()) {
    TIDEMARK_TRY(active, drivers::active_build());
    TIDEMARK_CHECK(session::check_server_fits(config, *backend, active && active->server));
  }
  lanes::LaneOptions lane = options.column.lane;
  lane.backends = &backends;
  // A mutant this build lacks is a run that cannot start, as any session refusing it would be.
  const std::optional<MutantId> mutant = options.variant.mutant.id;
  std::optional<Error> cannot_start;
  if (!mutant)
    cannot_start = Error{ErrorKind::BadInput,
                         fmt::format("mutant '{}' is not in this build's catalogue", options.variant.mutant.name)};
  session::ResolvedConfig resolved{
      .config = std::move(config), .backend = backend, .mutant = mutant.value_or(MutantId::None), .knobs = knobs};
  std::unique_ptr<SubjectRun> prepared =
      std::make_unique<ScenarioRun>(scenario, std::move(resolved), std::move(cannot_start), options, std::move(lane));
  return prepared;
}

Result<report::RunRecord> run(const Scenario& scenario, const RunOptions& options) {
  return run(ScenarioSubject::borrowing(scenario), options);
}

}  // namespace tidemark::runner
