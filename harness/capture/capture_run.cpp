#include "capture/capture_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <regex>
#include <set>

#include "core/digest.h"
#include "core/files.h"
#include "drivers/driver_builds.h"
#include "observe/observe.h"
#include "runner/build_runs.h"
#include "runner/runner.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

namespace {

// The digest of a replay: every gauge of the layer and the kernel model, summed over the tree.
std::string gauges_digest(const observe::Observation& observation) {
  Digest digest;
  for (const auto& [name, value] : named(observation.whole_observed))
    digest.add(name), digest.add(static_cast<uint64_t>(value));
  for (const auto& [name, value] : named(observation.whole_kernel))
    digest.add(name), digest.add(static_cast<uint64_t>(value));
  return digest.hex();
}

// What the fixture is when it runs: its YAML and its capture, byte for byte.
Result<std::string> fixture_hash(const CaptureFixture& fixture) {
  TIDEMARK_TRY(yaml, read_given_file(fixture.file, "capture fixture"));
  TIDEMARK_TRY(capture, read_given_file(fixture.capture, "capture", kMaxTraceBytes));
  StreamHash hash;
  hash.add(yaml);
  hash.add(capture);
  return hash.hex();
}

// The replayer's command line: env(1) sets its environment and execs it in the same process, so
// what the run sets is in observation.json and nothing of it stays in this process. On a named
// build the variables a build owns are cleared first, then the build's are set.
std::vector<std::string> replay_command(const Replayer& replayer, const drivers::NamedBuild* build) {
  std::vector<std::string> command = {"/usr/bin/env"};
  if (build) {
    for (const auto& name : drivers::owned_variables(build->build)) command.insert(command.end(), {"-u", name});
    for (auto& setting : drivers::build_settings(build->builds, build->build)) command.push_back(std::move(setting));
  }
  for (const auto& [name, value] : replayer.environment) command.push_back(name + "=" + value);
  command.insert(command.end(), replayer.command.begin(), replayer.command.end());
  return command;
}

// A replay on a driver build must have run on it: each Vulkan device's driver, as the layer read
// it, held to the build's vulkan_driver pattern. The replayer is not Tidemark, so nothing else
// checks it: a build whose files point elsewhere would replay on the system's driver and name
// the build.
Status check_replay_driver(const observe::Observation& observation, const drivers::DriverBuild& build) {
  if (!build.identity.vulkan_driver) return {};
  const std::regex pattern(*build.identity.vulkan_driver);
  for (const auto& process : observation.processes) {
    if (process.kind != observe::ProcessKind::Vulkan || !process.reported) continue;
    for (const auto& driver : process.drivers)
      if (driver.empty() || !std::regex_search(driver, pattern))
        return fail(
            ErrorKind::Environment,
            fmt::format("capture: the replay on {} (pid {}) ran on the Vulkan driver {}, expected one matching "
                        "'{}'",
                        build.name, process.pid, driver.empty() ? "the layer could not tell" : "'" + driver + "'",
                        *build.identity.vulkan_driver));
  }
  return {};
}

}  // namespace

std::string test_name(const CaptureFixture& fixture) {
  return fmt::format("Capture.{}.{}", runner::camel_case(fixture.group), fixture.name);
}

Result<report::RunRecord> run_capture(const CaptureFixture& fixture, const RunOptions& options) {
  std::string folder = fixture.name;
  for (const std::string& variant : {options.fault, options.build})
    if (!variant.empty()) {
      std::string text = variant;
      std::replace(text.begin(), text.end(), '=', '-');
      folder += "@" + text;
    }
  const fs::path dir = options.report_dir / "capture" / fixture.group / folder;
  TIDEMARK_CHECK(make_directories(dir));
  const Replayer replayer = replayer_for(fixture);
  std::optional<drivers::NamedBuild> on_build;
  if (!options.build.empty()) {
    TIDEMARK_TRY(found, drivers::find_build(options.drivers_files, options.build));
    on_build = std::move(found);
  }
  const std::vector<std::string> command = replay_command(replayer, on_build ? &*on_build : nullptr);

  report::RunRecord record{.test = test_name(fixture), .subject = fixture.id(), .file = fixture.file.string()};
  TIDEMARK_TRY(hash, fixture_hash(fixture));
  record.scenario_hash = hash;
  record.dir = fs::absolute(dir).lexically_normal().string();
  record.backend = backend_of(fixture);
  TIDEMARK_TRY(active, drivers::active_build());
  const std::string build = on_build ? on_build->build.name : active ? active->name : "";
  record.driver =
      build.empty() ? replayer.command.front() : fmt::format("{} (replayed by {})", build, replayer.command.front());
  if (!options.fault.empty()) record.mutant = "fault=" + options.fault;
  record.lane.name = "capture";
  const auto started = std::chrono::steady_clock::now();
  std::optional<observe::Observation> last;
  std::vector<observe::Verdict> verdicts;
  for (int k = 0; k < std::max(1, options.repeat); ++k) {
    const fs::path observed = dir / "observed";
    std::error_code ec;
    fs::remove_all(observed, ec);
    TIDEMARK_TRY(observation, observe::observe({.command = command,
                                                .settings = options.fault,
                                                .only = "",
                                                .report = observed,
                                                .layer_dir = options.layer_dir,
                                                .on_live = {},
                                                .output = dir / "replay.log"}));
    if (on_build)
      TIDEMARK_CHECK(check_replay_driver(observation, on_build->build));
    else if (active)
      TIDEMARK_CHECK(check_replay_driver(observation, *active));
    record.repeat_digests.push_back(gauges_digest(observation));
    verdicts = observe::judge(observation, fixture.bounds);
    last = std::move(observation);
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  record.digest = record.repeat_digests.back();
  if (record.repeat_digests.size() == 1) record.repeat_digests.clear();
  report::GaugeValues observed, kernel;
  for (const auto& [name, value] : named(last->whole_observed)) observed[name] = value;
  for (const auto& [name, value] : named(last->whole_kernel)) kernel[name] = value;
  record.observed_gauges = std::move(observed);
  record.kernel_gauges = std::move(kernel);
  const std::vector<std::string> checks = fixture.checks();
  for (const auto& verdict : verdicts) {
    const auto index = std::find(checks.begin(), checks.end(), verdict.check) - checks.begin();
    record.checks.push_back({.id = check_id(static_cast<size_t>(index)),
                             .kind = "gauge",
                             .check = verdict.check,
                             .passed = verdict.passed,
                             .detail = fmt::format("{}: {}", verdict.scope, verdict.detail),
                             .where = fixture.file.string(),
                             .artifacts = {}});
  }
  const std::set<std::string> digests(record.repeat_digests.begin(), record.repeat_digests.end());
  if (last->exit_code != 0) {
    record.verdict = report::Verdict::CouldNotRun;
    record.why = fmt::format("the replay ({}) exited {}", replayer.command.front(), last->exit_code);
  } else if (!last->made_device()) {
    record.verdict = report::Verdict::NotJudged;
    record.why = fmt::format("the replay ({}) made no Vulkan device under the layer: its gauges would all read 0",
                             replayer.command.front());
  } else if (digests.size() > 1) {
    record.verdict = report::Verdict::Red;
    record.why = fmt::format("{} replays gave {} different sets of gauges", options.repeat, digests.size());
  } else {
    const bool held = std::all_of(verdicts.begin(), verdicts.end(), [](const auto& v) { return v.passed; });
    record.verdict = held ? report::Verdict::Green : report::Verdict::Red;
  }
  if (options.expectations)
    if (const runner::Expectation* expected =
            runner::find_expectation(*options.expectations, record.backend, fixture.id(), build)) {
      std::vector<std::string> failed;
      for (const auto& check : record.checks)
        if (!check.passed && std::find(failed.begin(), failed.end(), check.id) == failed.end())
          failed.push_back(check.id);
      runner::judge_against(*expected,
                            {.verdict = record.verdict,
                             .why = record.why,
                             .failed = std::move(failed),
                             .gauge = [&](std::string_view name) { return report::gauge_value(record, name); }});
    }
  TIDEMARK_CHECK(observe::write_report(*last, verdicts, dir / "observed"));
  TIDEMARK_CHECK(report::write_run_record(dir / "result.json", record));
  return record;
}

Result<CaptureComparison> compare_captures(const std::vector<CaptureFixture>& fixtures,
                                           const std::vector<std::string>& columns, const RunOptions& options,
                                           const std::function<void(const report::CompareRow&)>& on_row) {
  CaptureComparison outcome;
  for (const auto& fixture : fixtures) {
    const std::vector<std::string> judges = columns.empty() ? std::vector<std::string>{backend_of(fixture)} : columns;
    report::CompareRow row{fixture.id(), "", {}};
    for (const auto& column : judges) {
      const auto on_build = runner::backend_on_build(column);
      const std::string backend = on_build ? on_build->backend : column;
      if (backend != backend_of(fixture)) {
        row.cells.push_back(
            {.backend = column,
             .verdict = report::Verdict::NotJudged,
             .why = fmt::format("the capture ({}) replays on {} only", kind_name(fixture.kind), backend_of(fixture))});
        continue;
      }
      RunOptions on_column = options;
      on_column.build = on_build ? on_build->build : "";
      TIDEMARK_TRY(record, run_capture(fixture, on_column));
      if (on_build) {  // two builds' runs of one fixture stay apart in the summary
        record.test += "@" + column;
        record.subject += "@" + column;
        record.backend = column;
      }
      outcome.failed = outcome.failed || !report::record_passes(record);
      report::CompareCell cell{
          .backend = column, .verdict = record.verdict, .why = record.why, .pixel_hash = {}, .digest = record.digest};
      const report::GaugeValues observed = record.observed_gauges.value_or(report::GaugeValues{});
      for (const auto& spec : kObservedGauges)  // in catalogue order, as a scenario's device gauges are
        if (auto found = observed.find(std::string(spec.name)); found != observed.end())
          cell.gauges.emplace_back(found->first, found->second);
      for (const auto& check : record.checks)
        if (!check.passed) cell.failed.push_back(check.id + ": " + check.detail);
      row.cells.push_back(std::move(cell));
      outcome.records.push_back(std::move(record));
    }
    // A column of another backend does not apply to the capture; a row no column judged is never a pass.
    if (std::none_of(row.cells.begin(), row.cells.end(), [](const auto& cell) { return !cell.digest.empty(); }))
      outcome.failed = true;
    report::mark_differences(row);
    if (on_row) on_row(row);
    outcome.rows.push_back(std::move(row));
  }
  return outcome;
}

runner::OtherSubject lint_subject(const CaptureFixture& fixture) {
  runner::OtherSubject subject{.id = fixture.id(), .backend = backend_of(fixture), .checks = {}};
  for (size_t k = 0; k < fixture.checks().size(); ++k) subject.checks.push_back(check_id(k));
  return subject;
}

Result<RedOnce> red_once_capture(const CaptureFixture& fixture, const RunOptions& options) {
  RedOnce red_once;
  RunOptions plain = options;
  plain.fault.clear();
  plain.repeat = 1;
  TIDEMARK_TRY(green, run_capture(fixture, plain));
  if (green.verdict != report::Verdict::Green)
    red_once.problems.push_back(fmt::format("not green without a fault: {}{}", report::verdict_label(green.verdict),
                                            green.why.empty() ? "" : " (" + green.why + ")"));
  if (fixture.controls.empty()) red_once.problems.push_back("no controls (a green that never went red proves nothing)");
  std::vector<ControlOutcome>& outcomes = red_once.outcomes;
  for (const auto& control : fixture.controls) {
    RunOptions under = options;
    under.fault = control.fault;
    if (!control.build.empty()) under.build = control.build;
    under.repeat = 1;
    TIDEMARK_TRY(record, run_capture(fixture, under));
    std::vector<std::string> failed;
    for (const auto& check : record.checks)
      if (!check.passed && std::find(failed.begin(), failed.end(), check.check) == failed.end())
        failed.push_back(check.check);
    ControlOutcome outcome{.control = control};
    if (control.fails == std::vector<std::string>{std::string(kReplayFails)}) {
      outcome.red_as_named = record.verdict == report::Verdict::CouldNotRun;
      outcome.detail = record.verdict == report::Verdict::CouldNotRun
                           ? record.why
                           : fmt::format("the replay did not fail ({})", report::verdict_name(record.verdict));
    } else {
      std::vector<std::string> wanted = control.fails;
      std::sort(wanted.begin(), wanted.end());
      std::sort(failed.begin(), failed.end());
      outcome.red_as_named = record.verdict == report::Verdict::Red && failed == wanted;
      std::vector<std::string> details;
      for (const auto& check : record.checks)
        if (!check.passed) details.push_back(fmt::format("`{}` {}", check.check, check.detail));
      outcome.detail = details.empty() ? fmt::format("nothing failed ({}{})", report::verdict_name(record.verdict),
                                                     record.why.empty() ? "" : ": " + record.why)
                                       : fmt::format("{}", fmt::join(details, "; "));
    }
    if (!outcome.red_as_named)
      red_once.problems.push_back(fmt::format("{}: {} expected exactly {} to fail, found {}",
                                              format_location(control.where), control.describe(),
                                              fmt::join(control.fails, ", "), outcome.detail));
    outcomes.push_back(std::move(outcome));
  }
  return red_once;
}

}  // namespace tidemark::capture
