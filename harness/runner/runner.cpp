#include "runner/runner.h"

#include "session/builtin_backends.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>

#include "core/digest.h"
#include "core/files.h"
#include "core/mutants.h"
#include "drivers/driver_builds.h"
#include "report/baseline.h"
#include "runner/digest.h"
#include "runner/read_back.h"
#include "runner/report.h"

namespace tidemark::runner {

namespace fs = std::filesystem;
using scenario::Scenario;

std::string camel_case(std::string_view kebab) {
  std::string out;
  bool upper = true;
  for (char c : kebab) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

namespace {

// The session a run asks for: the scenario's target and model sections, the backend and
// mutant chosen, the effective knobs.
api::SessionConfig session_config(const Scenario& scenario, const std::string& backend, const RunOptions& options,
                                  const KnobValues& knobs) {
  std::vector<GaugeKind> gauges;
  for (const auto& [kind, use] : scenario.gauge_uses()) gauges.push_back(kind);
  return {.backend = backend,
          .width = scenario.target.width,
          .height = scenario.target.height,
          .knobs = knobs,
          .mutant = options.mutant,
          .validation = options.validation,
          .gauges = std::move(gauges),
          .model = {.kernel_pid = scenario.kernel.pid,
                    .kernel_gpu = scenario.kernel.gpu,
                    .kernel_reports = scenario.kernel.reports,
                    .kmd = scenario.kmd.config,
                    .kgsl = scenario.kgsl.config,
                    .trace_memory = scenario.trace_memory},
          .layer = {.on = scenario.layer.on, .completion = scenario.layer.completion}};
}

Result<SingleRun> run_once(const Scenario& scenario, const api::SessionConfig& config, const lanes::LaneOptions& lane,
                           const RunOptions& options, std::vector<std::string>& log) {
  auto session = lanes::open_lane(lane, config, [&log](const std::string& line) { log.push_back(line); });
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
  }
  result.lane = (*session)->report();
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
                                             MutantId mutant, const RunResult& result, const SingleRun& run,
                                             const RunOptions& options) {
  check::RunContext context;
  context.completed = !result.error;
  context.knobs = check::Values(result.knobs.begin(), result.knobs.end());
  context.artifact_dir = result.report_dir;
  context.mutant = mutant;
  context.lane = options.lane.lane;
  context.traffic = {.frames_sent = run.lane.frames_sent,
                     .frames_received = run.lane.frames_received,
                     .client_pid = run.lane.client_pid,
                     .server_pid = run.lane.server_pid};
  context.validation = options.validation;
  context.digests = result.repeat_digests;
  context.counter_tracks = counter_tracks(backend);
  return check::evaluate(scenario, run.read, context);
}

}  // namespace

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
  if (backend.empty() || backend == default_backend(scenario)) return "";
  return std::string("@").append(backend);
}

std::string subject_name(const Scenario& scenario, std::string_view backend) {
  return scenario.id() + backend_suffix(scenario, backend);
}

std::string run_series(std::string_view lane, std::vector<std::string> knobs, const RunOptions& options) {
  std::string series = fmt::format("run lane={}", lane);
  if (!options.backend.empty()) series += " backend=" + options.backend;
  if (!options.mutant.empty()) series += " mutant=" + options.mutant;
  std::sort(knobs.begin(), knobs.end());
  for (const auto& knob : knobs) series += " knob=" + knob;
  if (options.repeat > 1) series += fmt::format(" repeat={}", options.repeat);
  if (options.validation) series += " validation";
  return series;
}

std::string test_name(const Scenario& scenario, Lane lane, std::string_view backend) {
  return fmt::format("Magma.{}.{}.{}{}", lane_title(lane), camel_case(scenario.group), scenario.name,
                     backend_suffix(scenario, backend));
}

namespace {

std::optional<int64_t> gauge_of(const RunResult& result, std::string_view name) {
  auto in = [&](const auto& values) -> std::optional<int64_t> {
    for (const auto& [gauge, value] : named(values))
      if (gauge == name) return value;
    return std::nullopt;
  };
  if (auto found = in(result.gauges)) return found;
  if (result.kernel_gauges)
    if (auto found = in(*result.kernel_gauges)) return found;
  if (result.observed_gauges) return in(*result.observed_gauges);
  return std::nullopt;
}

// The last driver note a server wrote to its log, or empty.
std::string driver_note_in(const std::filesystem::path& server_log) {
  auto text = read_file_if_present(server_log, "server log");
  if (!text || !*text) return {};
  const std::string marker = fmt::format("]: {}", api::kDriverNote);
  const size_t at = (*text)->rfind(marker);
  if (at == std::string::npos) return {};
  const size_t from = at + marker.size();
  return (*text)->substr(from, (*text)->find('\n', from) - from);
}

// An expected failure holds when the run is red on exactly the checks the line names (runner/expectations.h).
void judge_against(const Expectation& expected, RunResult& result) {
  std::vector<std::string> failed;
  for (const auto& outcome : result.outcomes)
    if (!outcome.passed) failed.push_back(outcome.id.str());
  runner::judge_against(expected, {.verdict = result.verdict,
                                   .why = result.why,
                                   .failed = std::move(failed),
                                   .gauge = [&](std::string_view name) { return gauge_of(result, name); }});
}

// The expectations line a run is judged against, under the driver build this process runs on.
Result<const Expectation*> expectation_for(const RunOptions& options, const std::string& backend,
                                           const Scenario& scenario) {
  if (!options.expectations) return nullptr;
  TIDEMARK_TRY(build, drivers::active_build());
  return find_expectation(*options.expectations, backend, scenario, build ? build->name : "");
}

}  // namespace

Result<std::map<std::string, int64_t>> effective_knobs(const Scenario& scenario,
                                                       const std::map<std::string, int64_t>& overrides) {
  auto from_scenario = resolve_knobs({&scenario.knobs}, format_location({scenario.file.string(), 1, 1}));
  if (!from_scenario) return from_scenario;
  return resolve_knobs({&scenario.knobs, &overrides}, "--knob");
}

// The backend a run uses: the command line's, else the scenario's first. One the scenario does
// not list, and that stands in for none it lists, cannot judge it.
Result<std::string> backend_for(const Scenario& scenario, const std::string& chosen,
                                const api::BackendRegistry& registry) {
  if (chosen.empty()) return default_backend(scenario);
  auto listed = [&](std::string_view name) {
    return std::find(scenario.backends.begin(), scenario.backends.end(), name) != scenario.backends.end();
  };
  const api::BackendEntry* entry = registry.find(chosen);
  if (!scenario.backends.empty() && !listed(chosen) &&
      !(entry && !entry->stands_for.empty() && listed(entry->stands_for)))
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected a backend the scenario lists ({}), found --backend {}",
                            format_location(scenario.backends_where), fmt::join(scenario.backends, ", "), chosen));
  return chosen;
}

Result<RunResult> not_judged(const Scenario& scenario, const RunOptions& options, const std::string& backend,
                             const Error& why) {
  RunResult result;
  result.test_name = test_name(scenario, options.lane.lane, backend);
  result.subject = subject_name(scenario, backend);
  result.backend = backend;
  result.file = scenario.file;
  result.mutant = options.mutant;
  result.verdict = report::Verdict::NotJudged;
  result.why = why.message;
  TIDEMARK_TRY(expected, expectation_for(options, backend, scenario));
  if (expected) judge_against(*expected, result);
  return result;
}

Result<RunResult> run(const Scenario& scenario, const RunOptions& options) {
  // The backend, the knobs and the mutant are resolved here, once: the session config carries them.
  lanes::LaneOptions lane = options.lane;
  if (!lane.backends) lane.backends = &session::builtin_backends();
  TIDEMARK_TRY(backend_name, backend_for(scenario, options.backend, *lane.backends));
  TIDEMARK_TRY(backend, lane.backends->lookup(backend_name));
  TIDEMARK_CHECK(check_backend_judges(scenario, *backend));
  RunResult result;
  result.test_name = test_name(scenario, lane.lane, backend_name);
  result.subject = subject_name(scenario, backend_name);
  result.backend = backend_name;
  result.file = scenario.file;
  result.mutant = options.mutant;
  for (const auto& check : scenario.expect.gauges)
    for (const auto& name : check.expr.identifiers())
      if (std::find(result.gauges_used.begin(), result.gauges_used.end(), name) == result.gauges_used.end())
        result.gauges_used.push_back(name);
  TIDEMARK_TRY(knobs, effective_knobs(scenario, options.knob_overrides));
  result.knobs = knobs;
  const api::SessionConfig config = session_config(scenario, backend_name, options, knobs);
  // A mutant this build lacks is a run that cannot start, as any session refusing it would be.
  const std::optional<MutantId> mutant = find_mutant(options.mutant);
  if (!options.report_dir.empty()) {
    // A backend other than the scenario's own has a folder of its own: nothing is written over.
    result.report_dir = options.report_dir / lane_name(lane.lane) / scenario.group /
                        (scenario.name + backend_suffix(scenario, backend_name));
    TIDEMARK_CHECK(make_directories(result.report_dir));
    if (lane.server_log.empty()) lane.server_log = (result.report_dir / "server.log").string();
  }

  auto started = std::chrono::steady_clock::now();
  std::vector<std::string> log;
  SingleRun last;
  for (int attempt = 0; attempt < std::max(1, options.repeat); ++attempt) {
    log.clear();
    if (mutant) {
      TIDEMARK_TRY(once, run_once(scenario, config, lane, options, log));
      last = std::move(once);
    } else {
      last = SingleRun{};
      last.error =
          Error{ErrorKind::BadInput, fmt::format("mutant '{}' is not in this build's catalogue", options.mutant)};
    }
    result.repeat_digests.push_back(run_digest(last.read));
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result.gauges = last.read.gauges;
  result.kernel_gauges = last.read.kernel_gauges;
  result.observed_gauges = last.read.observed_gauges;
  result.error = last.error;
  result.validation_messages = last.read.validation_messages;
  result.lane = last.lane;
  result.pixel_hash = pixel_hash(last.read.image);
  result.trace_hash = trace_hash(last.read.trace);
  result.digest = result.repeat_digests.back();
  // The driver as it named itself where the backend's notes reach this process (in-process
  // lanes); else, under a driver build, the build's name: a server on it refused any other.
  for (const auto& line : log)
    if (line.starts_with(api::kDriverNote)) result.driver = line.substr(api::kDriverNote.size());
  // A server of this run's own (spawn, tcp) writes the same note to its log: "tidemark-server[PID]: driver: ...".
  if (result.driver.empty() && !lane.server_log.empty()) result.driver = driver_note_in(lane.server_log);
  if (result.driver.empty()) {
    TIDEMARK_TRY(build, drivers::active_build());
    if (build) result.driver = build->name;
  }

  TIDEMARK_TRY(outcomes, evaluate(scenario, *backend, mutant.value_or(MutantId::None), result, last, options));
  result.outcomes = std::move(outcomes);
  if (result.error) {
    result.verdict = report::Verdict::CouldNotRun;
    result.why = result.error->message;
  } else {
    const bool all_passed =
        std::all_of(result.outcomes.begin(), result.outcomes.end(), [](const auto& o) { return o.passed; });
    result.verdict = all_passed ? report::Verdict::Green : report::Verdict::Red;
  }
  TIDEMARK_TRY(expected, expectation_for(options, backend_name, scenario));
  if (expected) judge_against(*expected, result);
  if (auto written = write_run_report(result, last.read.image, last.read.trace, log); !written)
    return std::unexpected(written.error());
  return result;
}

}  // namespace tidemark::runner
