// run, parity, replay, bench.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "session/builtin_backends.h"
#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "report/summary.h"
#include "runner/red_once.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "wire/lanes.h"
#include "wire/replay.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

// --record PATH: a .tdrec file for one scenario, or a folder of <group>/<name>.tdrec.
Result<fs::path> recording_path(const std::string& record, const scenario::Scenario& scenario, size_t scenarios) {
  fs::path path(record);
  if (path.extension() == ".tdrec") {
    if (scenarios != 1)
      return fail(ErrorKind::BadInput, fmt::format("--record {}: expected one scenario for one file, found {} "
                                                   "(give a folder to record each)", record, scenarios));
    TIDEMARK_CHECK(make_directories(path.parent_path()));
    return path;
  }
  fs::path dir = path / scenario.group;
  TIDEMARK_CHECK(make_directories(dir));
  return dir / (scenario.name + ".tdrec");
}

// A result's lines: the verdict, then what failed (and, with --verbose, what passed). With
// --quiet a green result prints nothing.
void print_result(const runner::RunResult& result, Progress& progress) {
  if (verbosity() == Verbosity::Quiet && result.green && !result.unexpected_pass) return;
  const char* verdict = result.expected_failure ? "EXPECTED-RED" : result.green ? "GREEN" : "RED  ";
  progress.print(fmt::format("{} {} ({:.2f} s) {} digest {}", verdict, result.test_name, result.seconds,
                             gauge_line(result.gauges), result.digest));
  if (result.expected_failure) progress.print(fmt::format("      expected (expectations.txt): {}", *result.expected_failure));
  if (result.unexpected_pass) progress.print(fmt::format("      unexpected pass: {}", *result.unexpected_pass));
  if (result.error) progress.print(fmt::format("      error: {}", result.error->message));
  for (const auto& outcome : result.outcomes) {
    if (outcome.passed) {
      if (verbosity() == Verbosity::Verbose)
        progress.print(fmt::format("      passed {} `{}`: {}", scenario::to_string(outcome.id.kind), outcome.text,
                                   outcome.detail));
      continue;
    }
    progress.print(fmt::format("      failed {} `{}`: {}", scenario::to_string(outcome.id.kind), outcome.text, outcome.detail));
    if (!outcome.where.file.empty()) progress.print(fmt::format("        at {}", format_location(outcome.where)));
    for (const auto& artifact : outcome.artifacts) progress.print(fmt::format("        wrote {}", artifact.string()));
  }
}

// A digests file: "# comment" lines, then "group/name digest" per scenario, sorted. What one
// build (or machine) saves and another compares with: the build lanes must agree byte for byte.
Result<std::map<std::string, std::string>> read_digests(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "digests"));
  std::istringstream in(text);
  std::map<std::string, std::string> digests;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    if (space == std::string::npos || space == 0 || line.find(' ', space + 1) != std::string::npos ||
        space + 1 == line.size())
      return fail(ErrorKind::BadInput, fmt::format("{}:{}:1: expected 'group/name digest', found '{}'", file.string(),
                                                   number, line));
    if (!digests.emplace(line.substr(0, space), line.substr(space + 1)).second)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}:{}:1: expected each scenario once, found {} again", file.string(), number,
                              line.substr(0, space)));
  }
  return digests;
}

std::string digests_text(const std::map<std::string, std::string>& digests) {
  std::string text = fmt::format("# tidemark parity --save-digests: one digest per scenario, every lane agreeing\n"
                                 "# built by {} with mutants {}\n",
                                 __VERSION__, TIDEMARK_MUTANTS ? "compiled in" : "compiled out");
  for (const auto& [name, digest] : digests) text += fmt::format("{} {}\n", name, digest);
  return text;
}

// What a run ran apart from its shard: the summaries of one series are the shards of one run.
std::string run_series(const RunArgs& args) {
  std::string series = "run lane=" + args.lane.lane;
  if (!args.lane.backend.empty()) series += " backend=" + args.lane.backend;
  if (!args.lane.mutant.empty()) series += " mutant=" + args.lane.mutant;
  std::vector<std::string> knobs = args.knobs;
  std::sort(knobs.begin(), knobs.end());
  for (const auto& knob : knobs) series += " knob=" + knob;
  if (args.repeat > 1) series += fmt::format(" repeat={}", args.repeat);
  if (args.validation) series += " validation";
  return series;
}

}  // namespace


int run_command(const RunArgs& args) {
  const std::vector<std::string>& inputs = args.inputs;
  const std::vector<std::string>& knob_args = args.knobs;
  const std::string& report = args.report;
  int repeat = args.repeat;
  auto lane_options = lane_options_from(args.lane);
  if (!lane_options) return report_error(lane_options.error());
  bool owns_a_server = (lane_options->lane == Lane::Spawn || lane_options->lane == Lane::Tcp) && args.lane.connect.empty();
  if (args.kill_server_at_frame != 0 && !owns_a_server)
    return report_error({ErrorKind::BadInput, fmt::format("--kill-server-at-frame: expected --lane spawn or tcp with a "
                                                          "server of this run's own, found --lane {}{}",
                                                          args.lane.lane, args.lane.connect.empty() ? "" : " --connect")});
  lane_options->kill_server_at_frame = args.kill_server_at_frame;
  if (repeat < 1) return report_error({ErrorKind::BadInput, fmt::format("--repeat: expected >= 1, found {}", repeat)});
  auto knobs = parse_knobs(knob_args);
  if (!knobs) return report_error(knobs.error());
  std::optional<report::ShardOrigin> shard;
  auto scenarios = load_shard(inputs, args.shard, args.shard_durations, &shard);
  if (!scenarios) return report_error(scenarios.error());
  // Every override must be valid for every scenario before anything runs.
  for (const auto& scenario : *scenarios)
    if (auto ok = runner::effective_knobs(scenario, *knobs); !ok) return report_error(ok.error());

  runner::RunOptions options;
  options.knob_overrides = *knobs;
  options.report_dir = report.empty() ? default_report_dir() : fs::path(report);
  options.validation = args.validation;
  options.repeat = repeat;
  options.lane = *lane_options;
  std::vector<runner::Expectation> expectations;
  if (!args.expectations.empty()) {
    auto loaded = runner::load_expectations(args.expectations);
    if (!loaded) return report_error(loaded.error());
    expectations = std::move(*loaded);
    options.expectations = &expectations;
  }

  std::vector<runner::RunResult> results;
  Progress progress = Progress::for_stdout("run", scenarios->size(), verbosity());
  for (const auto& scenario : *scenarios) {
    progress.start(fmt::format("{}/{} ({})", scenario.group, scenario.name, args.lane.lane));
    if (!args.record.empty()) {
      auto path = recording_path(args.record, scenario, scenarios->size());
      if (!path) return report_error(path.error());
      options.lane.record = path->string();
      options.lane.record_name = scenario.id();
    }
    auto result = runner::run(scenario, options);
    if (!result) return report_error(result.error());
    print_result(*result, progress);
    progress.finish_item();
    results.push_back(std::move(*result));
  }
  progress.close();
  const report::Origin origin{.command = "run", .series = run_series(args), .shard = shard};
  if (auto ok = report::write_summary(options.report_dir, origin, runner::results_json(results)); !ok)
    return report_error(ok.error());
  size_t green = 0;
  for (const auto& result : results) green += result.green ? 1 : 0;
  fmt::print("{} green, {} red; report: {}\n", green, results.size() - green,
             fs::absolute(options.report_dir / "summary.json").string());
  return green == results.size() ? kGreen : kRed;
}

// Every scenario in every lane: the digests must agree. Prints one row per scenario.
int parity_command(const ParityArgs& args) {
  const auto& inputs = args.inputs;
  const std::string& report = args.report;
  bool with_replay = args.replay;
  std::optional<report::ShardOrigin> shard;
  auto scenarios = load_shard(inputs, args.shard, args.shard_durations, &shard);
  if (!scenarios) return report_error(scenarios.error());
  std::map<std::string, std::string> saved;
  if (!args.against.empty()) {
    auto read = read_digests(args.against);
    if (!read) return report_error(read.error());
    saved = std::move(*read);
  }
  std::map<std::string, std::string> digests;  // the scenarios every lane agreed on
  size_t unlike_saved = 0;
  fs::path report_dir = report.empty() ? default_report_dir() : fs::path(report);
  std::vector<runner::RunResult> results;
  size_t mismatched = 0;
  // Every backend a scenario lists is a subject of its own: `group/name` on its first,
  // `group/name@backend` on the others.
  size_t subjects = 0;
  size_t total = 0;
  for (const auto& scenario : *scenarios) total += std::max<size_t>(1, scenario.backends.size());
  Progress progress = Progress::for_stdout(with_replay ? "parity with replay" : "parity", total, verbosity());
  for (const auto& scenario : *scenarios) {
    std::vector<std::string> backends = scenario.backends;
    if (backends.empty()) backends.push_back(runner::default_backend(scenario));
    for (const auto& backend : backends) {
      ++subjects;
      const std::string name = runner::subject_name(scenario, backend);
      progress.start(name);
      std::map<std::string, std::vector<std::string>> lanes_by_digest;
      std::string row;
      for (Lane lane : kAllLanes) {
        runner::RunOptions options;
        options.report_dir = report_dir;
        options.lane.lane = lane;
        options.lane.backend = backend;
        auto result = runner::run(scenario, options);
        if (!result) return report_error(result.error());
        lanes_by_digest[result->digest].push_back(std::string(lane_name(lane)));
        row += fmt::format(" {}={}{}", lane_name(lane), result->digest, result->green ? "" : "(red)");
        results.push_back(std::move(*result));
      }
      if (with_replay) {
        // Record the monolith session, then replay it in every lane: same digest as the runs.
        runner::RunOptions options;
        options.report_dir = report_dir / "recorded";
        options.lane.backend = backend;
        const std::string file =
            scenario.group + "." + scenario.name + runner::backend_suffix(scenario, backend) + ".tdrec";
        options.lane.record = (report_dir / "recordings" / file).string();
        options.lane.record_name = name;
        if (auto made = make_directories(report_dir / "recordings"); !made) return report_error(made.error());
        auto recorded = runner::run(scenario, options);
        if (!recorded) return report_error(recorded.error());
        lanes_by_digest[recorded->digest].push_back("recorded");
        for (Lane lane : kAllLanes) {
          wire::LaneOptions lane_options;
          lane_options.lane = lane;
          lane_options.backends = &session::builtin_backends();
          // The replaying server's log beside the recording, as a run's goes to its server.log.
          lane_options.server_log = (report_dir / "recordings" / fmt::format("{}.replay-{}.log", file, lane_name(lane))).string();
          auto replayed = wire::replay(options.lane.record, lane_options);
          if (!replayed) return report_error(replayed.error());
          std::string key = replayed->divergence ? "diverged: " + *replayed->divergence : replayed->digest;
          lanes_by_digest[key].push_back(fmt::format("replay-{}", lane_name(lane)));
          row += fmt::format(" replay-{}={}", lane_name(lane), replayed->divergence ? "DIVERGED" : replayed->digest);
        }
      }
      bool same = lanes_by_digest.size() == 1;
      if (!same)
        for (const auto& [digest, lanes] : lanes_by_digest) progress.print(fmt::format("  {}: {}", digest, fmt::join(lanes, ", ")));
      mismatched += same ? 0 : 1;
      if (!same || verbosity() != Verbosity::Quiet) progress.print(fmt::format("{} {}{}", same ? "SAME" : "DIFF", name, row));
      progress.finish_item();
      if (same) digests[name] = lanes_by_digest.begin()->first;
      if (!args.against.empty()) {
        auto found = saved.find(name);
        std::string here = same ? lanes_by_digest.begin()->first : std::string("(lanes disagree)");
        if (found == saved.end() || found->second != here) {
          ++unlike_saved;
          progress.print(fmt::format("  against {}: {}, here {}", args.against,
                                     found == saved.end() ? std::string("no digest saved") : "saved " + found->second,
                                     here));
        }
      }
    }
  }
  const report::Origin origin{.command = "parity", .series = with_replay ? "parity replay" : "parity", .shard = shard};
  progress.close();
  if (auto ok = report::write_summary(report_dir, origin, runner::results_json(results)); !ok)
    return report_error(ok.error());
  if (!args.save_digests.empty())
    if (auto ok = write_file_atomically(args.save_digests, digests_text(digests)); !ok) return report_error(ok.error());
  fmt::print("{} of {} scenarios give one digest in every lane; report: {}\n", subjects - mismatched, subjects,
             fs::absolute(report_dir / "summary.json").string());
  if (!args.against.empty())
    fmt::print("{} of {} scenarios match the digests in {}\n", subjects - unlike_saved, subjects, args.against);
  return mismatched == 0 && unlike_saved == 0 ? kGreen : kRed;
}

// Replays a recording in a lane; every reply must match the recorded one.
int replay_command(const ReplayArgs& args) {
  auto options = lane_options_from(args.lane);
  if (!options) return report_error(options.error());
  auto report = wire::replay(args.file, *options, !args.no_compare);
  if (!report) return report_error(report.error());
  double rate = report->seconds > 0 ? double(report->requests) / report->seconds : 0;
  if (report->divergence) {
    fmt::print("REPLAY DIVERGED {} [{}] at {}\n", report->scenario, args.lane.lane, *report->divergence);
    return kRed;
  }
  fmt::print("REPLAY OK {} [{}]: {} records, {} commands in {:.3f} s ({:.0f} commands/s); digest {}\n",
             report->scenario, args.lane.lane, report->records, report->requests, report->seconds, rate,
             report->digest.empty() ? "(no gauges and pixels read)" : report->digest);
  return kGreen;
}

}  // namespace tidemark::cli
