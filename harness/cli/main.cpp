// tidemark: run scenarios and list them (also as CTest registrations).
// Exit codes: 0 all green, 1 any red, 2 bad input, 3 environment missing, 4 I/O or internal.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <regex>
#include <set>

#include "core/mutants.h"
#include "runner/red_once.h"
#include "runner/runner.h"
#include "wire/replay.h"
#include "scenario/scenario.h"
#include "wire/lanes.h"

namespace {

namespace fs = std::filesystem;
using namespace tidemark;

enum Exit { kGreen = 0, kRed = 1, kBadInput = 2, kEnvironment = 3, kInternal = 4 };

int exit_code(const Error& error) {
  switch (error.kind) {
    case ErrorKind::BadInput: return kBadInput;
    case ErrorKind::Environment: return kEnvironment;
    case ErrorKind::Fatal:
    case ErrorKind::Io: return kInternal;
  }
  return kInternal;
}

int report_error(const Error& error) {
  fmt::print(stderr, "tidemark: {}\n", error.message);
  return exit_code(error);
}

// Loads every file before anything runs: nothing runs on a half-valid set.
Result<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& inputs) {
  std::vector<fs::path> paths(inputs.begin(), inputs.end());
  auto files = scenario::collect_files(paths);
  if (!files) return std::unexpected(files.error());
  std::vector<scenario::Scenario> scenarios;
  std::vector<std::string> errors;
  std::map<std::string, fs::path> seen;
  for (const auto& file : *files) {
    auto loaded = scenario::load(file);
    if (!loaded) {
      if (loaded.error().kind != ErrorKind::BadInput) return std::unexpected(loaded.error());
      errors.push_back(loaded.error().message);
      continue;
    }
    std::string name = runner::test_name(*loaded, wire::Lane::Monolith);
    if (auto [it, fresh] = seen.emplace(name, file); !fresh) {
      errors.push_back(fmt::format("{}:1:1: expected a scenario name unique in group '{}', found '{}' again (first in {})",
                                   file.string(), loaded->group, loaded->name, it->second.string()));
      continue;
    }
    scenarios.push_back(std::move(*loaded));
  }
  if (!errors.empty()) {
    std::string joined;
    for (const auto& error : errors) joined += (joined.empty() ? "" : "\ntidemark: ") + error;
    return fail(ErrorKind::BadInput, joined);
  }
  return scenarios;
}

Result<std::map<std::string, int64_t>> parse_knobs(const std::vector<std::string>& knobs) {
  std::map<std::string, int64_t> out;
  for (const auto& knob : knobs) {
    auto eq = knob.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(ErrorKind::BadInput, fmt::format("--knob: expected NAME=VALUE, found '{}'", knob));
    std::string value = knob.substr(eq + 1);
    char* end = nullptr;
    long long parsed = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0')
      return fail(ErrorKind::BadInput, fmt::format("--knob {}: expected an integer, found '{}'",
                                                   knob.substr(0, eq), value));
    out[knob.substr(0, eq)] = parsed;
  }
  return out;
}

fs::path default_report_dir() {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return fs::path("reports") / fmt::format("run-{}", stamp);
}

void print_result(const runner::RunResult& result) {
  fmt::print("{} {} ({:.2f} s) {} digest {}\n", result.green ? "GREEN" : "RED  ", result.test_name,
             result.seconds, backend::gauge_line(result.gauges), result.digest);
  if (result.error) fmt::print("      error: {}\n", result.error->message);
  for (const auto& outcome : result.outcomes) {
    if (outcome.passed) continue;
    fmt::print("      failed {} `{}`: {}\n", outcome.kind, outcome.text, outcome.detail);
    if (!outcome.where.file.empty()) fmt::print("        at {}\n", format_location(outcome.where));
    for (const auto& artifact : outcome.artifacts) fmt::print("        wrote {}\n", artifact.string());
  }
}

struct RunArgs {
  std::vector<std::string> knobs;
  std::string report;
  std::string lane = "monolith";
  int repeat = 1;
  bool validation = false;
  std::string server_program;
  std::string connect;
  std::string token_file;
  int handshake_timeout_ms = 20000;
  uint32_t kill_server_at_frame = 0;
  std::string mutant;
  std::string record;
};

// --record PATH: a .tdrec file for one scenario, or a folder of <group>/<name>.tdrec.
Result<fs::path> recording_path(const std::string& record, const scenario::Scenario& scenario, size_t scenarios) {
  fs::path path(record);
  if (path.extension() == ".tdrec") {
    if (scenarios != 1)
      return fail(ErrorKind::BadInput, fmt::format("--record {}: expected one scenario for one file, found {} "
                                                   "(give a folder to record each)", record, scenarios));
    if (path.has_parent_path()) fs::create_directories(path.parent_path());
    return path;
  }
  fs::path dir = path / scenario.group;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return fail(ErrorKind::Io, fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return dir / (scenario.name + ".tdrec");
}

Status check_mutant_name(const std::string& name) {
  if (find_mutant(name)) return {};
  std::vector<std::string> names;
  for (const auto& mutant : mutant_catalogue()) names.emplace_back(mutant.name);
  return fail(ErrorKind::BadInput, fmt::format("--mutant: expected one of ({}), found '{}'",
                                               names.empty() ? "none: a release build has no mutants"
                                                             : fmt::format("{}", fmt::join(names, ", ")),
                                               name));
}

// The session token for --connect: from a file or TIDEMARK_TOKEN, never the command line.
Result<std::string> read_token(const std::string& token_file) {
  if (token_file.empty()) {
    const char* token = std::getenv("TIDEMARK_TOKEN");
    if (!token || !*token)
      return fail(ErrorKind::BadInput, "--connect: expected a token in TIDEMARK_TOKEN or --token-file, found none");
    return std::string(token);
  }
  std::ifstream in(token_file);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty())
    return fail(ErrorKind::BadInput, fmt::format("--token-file: expected a token on the first line of {}", token_file));
  return token;
}

int run_command(const std::vector<std::string>& inputs, const RunArgs& args) {
  const std::vector<std::string>& knob_args = args.knobs;
  const std::string& report = args.report;
  int repeat = args.repeat;
  auto lane = wire::parse_lane(args.lane);
  if (!lane)
    return report_error({ErrorKind::BadInput,
                         fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", args.lane)});
  wire::LaneOptions lane_options;
  lane_options.lane = *lane;
  lane_options.server_program = args.server_program;
  lane_options.connect = args.connect;
  lane_options.handshake_timeout = std::chrono::milliseconds(args.handshake_timeout_ms);
  lane_options.kill_server_at_frame = args.kill_server_at_frame;
  if (auto ok = check_mutant_name(args.mutant); !ok) return report_error(ok.error());
  lane_options.mutant = args.mutant;
  if (!args.connect.empty()) {
    if (*lane != wire::Lane::Tcp)
      return report_error({ErrorKind::BadInput, "--connect: expected --lane tcp"});
    auto token = read_token(args.token_file);
    if (!token) return report_error(token.error());
    lane_options.token = *token;
  }
  if (repeat < 1) return report_error({ErrorKind::BadInput, fmt::format("--repeat: expected >= 1, found {}", repeat)});
  auto knobs = parse_knobs(knob_args);
  if (!knobs) return report_error(knobs.error());
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  // Every override must be valid for every scenario before anything runs.
  for (const auto& scenario : *scenarios)
    if (auto ok = runner::effective_knobs(scenario, *knobs); !ok) return report_error(ok.error());

  runner::RunOptions options;
  options.knob_overrides = *knobs;
  options.report_dir = report.empty() ? default_report_dir() : fs::path(report);
  options.validation = args.validation;
  options.repeat = repeat;
  options.lane = lane_options;

  std::vector<runner::RunResult> results;
  for (const auto& scenario : *scenarios) {
    if (!args.record.empty()) {
      auto path = recording_path(args.record, scenario, scenarios->size());
      if (!path) return report_error(path.error());
      options.lane.record = path->string();
      options.lane.record_name = scenario.group + "/" + scenario.name;
    }
    auto result = runner::run(scenario, options);
    if (!result) return report_error(result.error());
    print_result(*result);
    results.push_back(std::move(*result));
  }
  if (auto ok = runner::write_summary(results, options.report_dir); !ok) return report_error(ok.error());
  size_t green = 0;
  for (const auto& result : results) green += result.green ? 1 : 0;
  fmt::print("{} green, {} red; report: {}\n", green, results.size() - green,
             fs::absolute(options.report_dir / "summary.json").string());
  return green == results.size() ? kGreen : kRed;
}

// CMake script text that registers each scenario once per lane (read by ctest at start).
std::string ctest_registrations(const std::vector<scenario::Scenario>& scenarios, const std::string& tidemark,
                                const std::string& report_root, const std::string& ledger) {
  std::string out;
  for (const auto& scenario : scenarios) {
    if (!mutant_catalogue().empty()) {  // a release build has no mutants to go red with
      std::string name = fmt::format("RedOnce.{}.{}", runner::camel_case(scenario.group), scenario.name);
      out += fmt::format("add_test([=[{}]=] [=[{}]=] red-once --ledger [=[{}]=] --report [=[{}/{}]=] [=[{}]=])\n",
                         name, tidemark, ledger, report_root, name, fs::absolute(scenario.file).string());
      bool soak = scenario.file.parent_path().filename() == "soak";
      out += fmt::format("set_tests_properties([=[{}]=] PROPERTIES LABELS [=[red-once{}]=])\n", name, soak ? ";soak" : "");
    }
    for (wire::Lane lane : wire::kAllLanes) {
      std::string name = runner::test_name(scenario, lane);
      std::string labels;
      for (const auto& label : runner::test_labels(scenario, lane)) labels += (labels.empty() ? "" : ";") + label;
      out += fmt::format("add_test([=[{}]=] [=[{}]=] run --lane {} --report [=[{}/{}]=] [=[{}]=])\n", name,
                         tidemark, wire::lane_name(lane), report_root, name, fs::absolute(scenario.file).string());
      out += fmt::format("set_tests_properties([=[{}]=] PROPERTIES LABELS [=[{}]=])\n", name, labels);
    }
  }
  return out;
}

// Every scenario in every lane: the digests must agree. Prints one row per scenario.
int parity_command(const std::vector<std::string>& inputs, const std::string& report, bool with_replay) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  fs::path report_dir = report.empty() ? default_report_dir() : fs::path(report);
  std::vector<runner::RunResult> results;
  size_t mismatched = 0;
  for (const auto& scenario : *scenarios) {
    std::map<std::string, std::vector<std::string>> lanes_by_digest;
    std::string row;
    for (wire::Lane lane : wire::kAllLanes) {
      runner::RunOptions options;
      options.report_dir = report_dir;
      options.lane.lane = lane;
      auto result = runner::run(scenario, options);
      if (!result) return report_error(result.error());
      lanes_by_digest[result->digest].push_back(std::string(wire::lane_name(lane)));
      row += fmt::format(" {}={}{}", wire::lane_name(lane), result->digest, result->green ? "" : "(red)");
      results.push_back(std::move(*result));
    }
    if (with_replay) {
      // Record the monolith session, then replay it in every lane: same digest as the runs.
      runner::RunOptions options;
      options.report_dir = report_dir / "recorded";
      options.lane.record = (report_dir / "recordings" / (scenario.group + "." + scenario.name + ".tdrec")).string();
      options.lane.record_name = scenario.group + "/" + scenario.name;
      fs::create_directories(report_dir / "recordings");
      auto recorded = runner::run(scenario, options);
      if (!recorded) return report_error(recorded.error());
      lanes_by_digest[recorded->digest].push_back("recorded");
      for (wire::Lane lane : wire::kAllLanes) {
        wire::LaneOptions lane_options;
        lane_options.lane = lane;
        auto replayed = wire::replay(options.lane.record, lane_options);
        if (!replayed) return report_error(replayed.error());
        std::string key = replayed->divergence ? "diverged: " + *replayed->divergence : replayed->digest;
        lanes_by_digest[key].push_back(fmt::format("replay-{}", wire::lane_name(lane)));
        row += fmt::format(" replay-{}={}", wire::lane_name(lane), replayed->divergence ? "DIVERGED" : replayed->digest);
      }
    }
    bool same = lanes_by_digest.size() == 1;
    if (!same)
      for (const auto& [digest, lanes] : lanes_by_digest)
        fmt::print("  {}: {}\n", digest, fmt::join(lanes, ", "));
    mismatched += same ? 0 : 1;
    fmt::print("{} {}/{}{}\n", same ? "SAME" : "DIFF", scenario.group, scenario.name, row);
  }
  if (auto ok = runner::write_summary(results, report_dir); !ok) return report_error(ok.error());
  fmt::print("{} of {} scenarios give one digest in every lane; report: {}\n", scenarios->size() - mismatched,
             scenarios->size(), fs::absolute(report_dir / "summary.json").string());
  return mismatched == 0 ? kGreen : kRed;
}

const char* verdict_name(runner::ControlRun::Verdict verdict) {
  switch (verdict) {
    case runner::ControlRun::Verdict::Red: return "RED (as required)";
    case runner::ControlRun::Verdict::StayedGreen: return "stayed green";
    case runner::ControlRun::Verdict::WrongRed: return "WRONG RED";
    case runner::ControlRun::Verdict::Skipped: return "skipped";
  }
  return "?";
}

// Green, then every control in every lane; the red values are checked against the ledger
// (or rewritten with --update-ledger).
int red_once_command(const std::vector<std::string>& inputs, const std::vector<std::string>& lanes,
                     const std::string& ledger_path, bool update_ledger, const std::string& report) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  runner::RedOnceOptions options;
  if (!lanes.empty()) {
    options.lanes.clear();
    for (const auto& name : lanes) {
      auto lane = wire::parse_lane(name);
      if (!lane) return report_error({ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", name)});
      options.lanes.push_back(*lane);
    }
  }
  options.report_dir = report.empty() ? default_report_dir() : fs::path(report);
  auto ledger = runner::read_ledger(ledger_path);
  if (!ledger) return report_error(ledger.error());
  std::vector<std::string> updated;
  std::set<std::string> rerun;
  size_t failed = 0;
  for (const auto& scenario : *scenarios) {
    if (scenario.controls.empty()) {
      fmt::print("RED-ONCE FAIL {}/{}: no controls (a green that never went red proves nothing)\n", scenario.group,
                 scenario.name);
      ++failed;
      continue;
    }
    auto result = runner::red_once(scenario, options);
    if (!result) return report_error(result.error());
    for (const auto& run : result->runs)
      fmt::print("  {} [{}] {}: {} — {}\n", result->scenario, run.lane, run.control, verdict_name(run.verdict),
                 run.detail);
    std::vector<std::string> problems = result->problems;
    if (!update_ledger)
      for (auto& drift : runner::ledger_drift(*result, *ledger)) problems.push_back("ledger drift: " + drift);
    auto lines = runner::ledger_lines(*result);
    updated.insert(updated.end(), lines.begin(), lines.end());
    rerun.insert(result->scenario + " | ");
    if (problems.empty()) {
      fmt::print("RED-ONCE PASS {}\n", result->scenario);
    } else {
      ++failed;
      fmt::print("RED-ONCE FAIL {}\n", result->scenario);
      for (const auto& problem : problems) fmt::print("  {}\n", problem);
    }
  }
  if (update_ledger) {
    for (const auto& line : *ledger) {
      bool replaced = false;
      for (const auto& prefix : rerun) replaced = replaced || line.starts_with(prefix);
      if (!replaced) updated.push_back(line);
    }
    if (auto ok = runner::write_ledger(ledger_path, updated); !ok) return report_error(ok.error());
    fmt::print("ledger written: {}\n", ledger_path);
  }
  fmt::print("{} of {} scenarios pass red-once\n", scenarios->size() - failed, scenarios->size());
  return failed == 0 ? kGreen : kRed;
}

// Every scenario has a control; every control's mutant is in the catalogue; every mutant in
// the catalogue is killed by some scenario.
int lint_command(const std::vector<std::string>& inputs) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  std::vector<std::string> problems;
  std::set<std::string> used;
  for (const auto& scenario : *scenarios) {
    std::string where = format_location({scenario.file.string(), 1, 1});
    if (scenario.controls.empty())
      problems.push_back(fmt::format("{}: expected at least one control (controls:), found none", where));
    for (const auto& control : scenario.controls) {
      if (control.mutant.empty()) continue;
      used.insert(control.mutant);
      if (!find_mutant(control.mutant))
        problems.push_back(fmt::format("{}: expected a mutant from the catalogue, found '{}'",
                                       format_location(control.where), control.mutant));
    }
  }
  for (const auto& mutant : mutant_catalogue())
    if (!used.contains(std::string(mutant.name)))
      problems.push_back(fmt::format("mutant {} is in the catalogue but no scenario's control uses it", mutant.name));
  for (const auto& problem : problems) fmt::print("lint: {}\n", problem);
  fmt::print("lint: {} scenarios, {} problems\n", scenarios->size(), problems.size());
  return problems.empty() ? kGreen : kRed;
}

// Replays a recording in a lane; every reply must match the recorded one.
int replay_command(const std::string& file, const RunArgs& args, bool compare) {
  auto lane = wire::parse_lane(args.lane);
  if (!lane)
    return report_error({ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", args.lane)});
  wire::LaneOptions options;
  options.lane = *lane;
  options.server_program = args.server_program;
  options.connect = args.connect;
  options.handshake_timeout = std::chrono::milliseconds(args.handshake_timeout_ms);
  if (!args.connect.empty()) {
    auto token = read_token(args.token_file);
    if (!token) return report_error(token.error());
    options.token = *token;
  }
  if (auto ok = check_mutant_name(args.mutant); !ok) return report_error(ok.error());
  options.mutant = args.mutant;
  auto report = wire::replay(file, options, compare);
  if (!report) return report_error(report.error());
  double rate = report->seconds > 0 ? double(report->requests) / report->seconds : 0;
  if (report->divergence) {
    fmt::print("REPLAY DIVERGED {} [{}] at {}\n", report->scenario, args.lane, *report->divergence);
    return kRed;
  }
  fmt::print("REPLAY OK {} [{}]: {} records, {} commands in {:.3f} s ({:.0f} commands/s); digest {}\n",
             report->scenario, args.lane, report->records, report->requests, report->seconds, rate,
             report->digest.empty() ? "(no gauges and pixels read)" : report->digest);
  return kGreen;
}

// Replay throughput per lane: each stream is recorded once (monolith), then replayed
// `repeat` times in every lane; the median is reported with its ratio to monolith.
int bench_command(const std::vector<std::string>& inputs, int repeat, const std::string& report) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  fs::path dir = report.empty() ? fs::path("build/bench") : fs::path(report);
  fs::create_directories(dir);
  nlohmann::json json;
  fmt::print("{:<28} {:<9} {:>9} {:>10} {:>13} {:>9}\n", "stream", "lane", "commands", "median s", "commands/s",
             "vs mono");
  for (const auto& scenario : *scenarios) {
    runner::RunOptions options;
    options.report_dir = dir / "recorded";
    options.lane.record = (dir / (scenario.name + ".tdrec")).string();
    options.lane.record_name = scenario.group + "/" + scenario.name;
    auto recorded = runner::run(scenario, options);
    if (!recorded) return report_error(recorded.error());
    double monolith_rate = 0;
    for (wire::Lane lane : wire::kAllLanes) {
      std::vector<double> seconds;
      uint64_t commands = 0;
      for (int i = 0; i < repeat; ++i) {
        wire::LaneOptions lane_options;
        lane_options.lane = lane;
        auto replayed = wire::replay(options.lane.record, lane_options);
        if (!replayed) return report_error(replayed.error());
        if (replayed->divergence || replayed->digest != recorded->digest) {
          fmt::print("bench: {} diverged in {}: {}\n", scenario.name, wire::lane_name(lane),
                     replayed->divergence.value_or("digest " + replayed->digest));
          return kRed;
        }
        seconds.push_back(replayed->seconds);
        commands = replayed->requests;
      }
      std::sort(seconds.begin(), seconds.end());
      double median = seconds[seconds.size() / 2];
      double rate = median > 0 ? double(commands) / median : 0;
      if (lane == wire::Lane::Monolith) monolith_rate = rate;
      double ratio = monolith_rate > 0 ? rate / monolith_rate : 0;
      fmt::print("{:<28} {:<9} {:>9} {:>10.3f} {:>13.0f} {:>9.2f}\n", scenario.name, wire::lane_name(lane), commands,
                 median, rate, ratio);
      json["results"].push_back({{"stream", scenario.name}, {"lane", wire::lane_name(lane)}, {"commands", commands},
                                 {"median_seconds", median}, {"commands_per_second", rate},
                                 {"ratio_to_monolith", ratio}, {"runs", seconds}});
    }
  }
  std::ofstream(dir / "bench.json") << json.dump(2) << '\n';
  fmt::print("bench: {}\n", fs::absolute(dir / "bench.json").string());
  return kGreen;
}

// A review must-fix becomes a fixture: fixtures/<review-id>/ with a README to fill in and a
// scenario skeleton that loads but fails red-once until its control is made real.
int fixture_new_command(const std::string& review_id, const std::string& root) {
  static const std::regex kId("[A-Za-z0-9][A-Za-z0-9._-]*");
  if (!std::regex_match(review_id, kId))
    return report_error({ErrorKind::BadInput, fmt::format("fixture new: expected a review id such as ID-P7-43, found '{}'", review_id)});
  fs::path dir = fs::path(root) / review_id;
  if (fs::exists(dir)) return report_error({ErrorKind::BadInput, fmt::format("fixture new: {} exists already", dir.string())});
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return report_error({ErrorKind::Io, fmt::format("cannot create {}: {}", dir.string(), ec.message())});
  std::string slug;
  for (char c : review_id) slug += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  std::ofstream readme(dir / "README.md");
  readme << fmt::format(
      "# {}: <the behaviour the fix guarantees, as a sentence>\n\n"
      "**What the review found.** <the defect, where, and why no test saw it>\n\n"
      "**Mechanism.** <the deterministic steps the scenario takes>\n\n"
      "**The fix.** <what changed>\n\n"
      "**What red looks like.** <the mutant that reverts the fix and the values it reads>\n",
      review_id);
  std::ofstream yaml(dir / (slug + ".yaml"));
  yaml << fmt::format(
      "# Fixture {0}: replace this workload with the review's steps, the check with the one the\n"
      "# fix makes hold, and the control with the mutant that reverts the fix. Until then\n"
      "# `tidemark red-once` fails on it, as it should.\n"
      "name: {1}-fixture\n"
      "group: reclaim\n"
      "target: {{width: 16, height: 16}}\n"
      "buffers: [color]\n"
      "workload:\n"
      "  - buffer_data: {{buffer: color, size: 256, fill: {{palette: 0}}}}\n"
      "  - draw: {{uniform: color}}\n"
      "expect:\n"
      "  pixels:\n"
      "    - bands: {{count: 1, palette: true}}\n"
      "controls:\n"
      "  - knobs: {{wire_deferred_mb: 0}}\n"
      "    fails: [\"pixels[0]\"]\n",
      review_id, slug);
  if (!readme || !yaml) return report_error({ErrorKind::Io, fmt::format("cannot write into {}", dir.string())});
  fmt::print("created {}/README.md and {}/{}.yaml\n", dir.string(), dir.string(), slug);
  return kGreen;
}

// The catalogue as a Markdown table: red_once/mutants.md is this output, checked by a test.
int mutants_command() {
  fmt::print("# Mutant catalogue\n\n");
  fmt::print("Written by `tidemark mutants`; a test fails when this file and the build disagree.\n\n");
  fmt::print("| mutant | component | what it breaks | the fix it reverts |\n|---|---|---|---|\n");
  for (const auto& mutant : mutant_catalogue())
    fmt::print("| `{}` | {} | {} | {} |\n", mutant.name, mutant.component, mutant.breaks, mutant.reverts);
  return kGreen;
}

int list_command(const std::vector<std::string>& inputs, const std::string& ctest_file,
                 const std::string& tidemark, const std::string& report_root, const std::string& ledger) {
  auto scenarios = load_all(inputs);
  if (!scenarios) return report_error(scenarios.error());
  if (auto clean = runner::check_label_hygiene(*scenarios); !clean) return report_error(clean.error());
  if (ctest_file.empty()) {
    for (const auto& scenario : *scenarios)
      for (wire::Lane lane : wire::kAllLanes)
        fmt::print("{}  {}\n", runner::test_name(scenario, lane), scenario.file.string());
    return kGreen;
  }
  std::ofstream out(ctest_file);
  out << ctest_registrations(*scenarios, tidemark, report_root, ledger);
  if (!out) return report_error({ErrorKind::Io, fmt::format("cannot write {}", ctest_file)});
  return kGreen;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tidemark: deterministic replay and regression harness for GPU driver stacks"};
  app.require_subcommand(1);

  std::vector<std::string> inputs;
  RunArgs args;
  auto* run = app.add_subcommand("run", "run scenarios and check them");
  run->add_option("paths", inputs, "scenario files or folders")->required();
  run->add_option("--knob", args.knobs, "override a knob: NAME=VALUE (repeatable)")->allow_extra_args(false);
  run->add_option("--report", args.report, "report folder (default reports/run-<time>)");
  run->add_option("--lane", args.lane, "monolith, split, spawn or tcp");
  run->add_option("--repeat", args.repeat, "run each scenario N times; all must give one digest");
  run->add_flag("--validation", args.validation, "enable VK_LAYER_KHRONOS_validation; any message is red");
  run->add_option("--server-program", args.server_program, "tidemark-server for spawn and tcp (default: beside tidemark)");
  run->add_option("--connect", args.connect, "tcp: use the server at HOST:PORT instead of a private one");
  run->add_option("--token-file", args.token_file, "tcp with --connect: the session token (else TIDEMARK_TOKEN)");
  run->add_option("--handshake-timeout-ms", args.handshake_timeout_ms, "how long a server may take to greet");
  run->add_option("--mutant", args.mutant, "red-once: run with this mutant (see `tidemark mutants`)");
  run->add_option("--record", args.record, "record each session: FILE.tdrec (one scenario) or a folder");
  run->add_option("--kill-server-at-frame", args.kill_server_at_frame,
                  "fault injection: SIGKILL the spawn/tcp server before sending frame N");

  std::string ctest_file;
  std::string tidemark_path;
  std::string report_root;
  auto* list = app.add_subcommand("list", "list scenarios by test name");
  list->add_option("paths", inputs, "scenario files or folders")->required();
  list->add_option("--ctest-file", ctest_file, "write CTest registrations to this file");
  list->add_option("--tidemark", tidemark_path, "tidemark binary the registrations run");
  list->add_option("--report-root", report_root, "report folder root for the registered runs");
  std::string list_ledger = "red_once/ledger.txt";
  list->add_option("--ledger", list_ledger, "the ledger the registered red-once tests check");

  std::vector<std::string> red_once_lanes;
  std::string ledger = "red_once/ledger.txt";
  bool update_ledger = false;
  std::string red_once_report;
  auto* red_once = app.add_subcommand("red-once", "prove each scenario's checks with its negative controls");
  red_once->add_option("paths", inputs, "scenario files or folders")->required();
  red_once->add_option("--lane", red_once_lanes, "lanes to run (default: all four)")->allow_extra_args(false);
  red_once->add_option("--ledger", ledger, "the ledger file (default red_once/ledger.txt)");
  red_once->add_flag("--update-ledger", update_ledger, "rewrite the ledger lines of these scenarios");
  red_once->add_option("--report", red_once_report, "report folder (default reports/run-<time>)");

  auto* lint = app.add_subcommand("lint", "check that scenarios and the mutant catalogue fit together");
  lint->add_option("paths", inputs, "scenario files or folders")->required();
  auto* mutants = app.add_subcommand("mutants", "print the mutant catalogue of this build (Markdown)");

  std::string replay_file;
  RunArgs replay_args;
  bool no_compare = false;
  auto* replay = app.add_subcommand("replay", "replay a recording in a lane and check every reply");
  replay->add_option("file", replay_file, "a .tdrec recording")->required();
  replay->add_option("--lane", replay_args.lane, "monolith, split, spawn or tcp");
  replay->add_option("--server-program", replay_args.server_program, "tidemark-server for spawn and tcp");
  replay->add_option("--connect", replay_args.connect, "tcp: use the server at HOST:PORT");
  replay->add_option("--token-file", replay_args.token_file, "tcp with --connect: the session token");
  replay->add_option("--handshake-timeout-ms", replay_args.handshake_timeout_ms, "how long a server may take to greet");
  replay->add_flag("--no-compare", no_compare, "send the requests without checking the replies");
  replay->add_option("--mutant", replay_args.mutant, "replay against this mutant instead of the recorded one");

  int bench_repeat = 3;
  std::string bench_report;
  auto* bench = app.add_subcommand("bench", "replay throughput per lane (commands/s, ratio to monolith)");
  bench->add_option("paths", inputs, "benchmark streams (scenario files), e.g. bench/")->required();
  bench->add_option("--repeat", bench_repeat, "replays per lane; the median is reported (default 3)");
  bench->add_option("--report", bench_report, "where recordings and bench.json go (default build/bench)");

  auto* fixture = app.add_subcommand("fixture", "review must-fixes as fixtures");
  auto* fixture_new = fixture->add_subcommand("new", "create fixtures/<review-id>/ with a README and a scenario skeleton");
  std::string review_id;
  std::string fixtures_root = "fixtures";
  fixture_new->add_option("review-id", review_id, "the review's id, e.g. ID-P7-43")->required();
  fixture_new->add_option("--root", fixtures_root, "the fixtures folder (default fixtures)");
  fixture->require_subcommand(1);

  std::string parity_report;
  auto* parity = app.add_subcommand("parity", "run every scenario in every lane; digests must agree");
  parity->add_option("paths", inputs, "scenario files or folders")->required();
  parity->add_option("--report", parity_report, "report folder (default reports/run-<time>)");
  bool parity_replay = false;
  parity->add_flag("--replay", parity_replay, "also record each scenario and replay it in every lane");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? kGreen : kBadInput;
  }
  if (*run) return run_command(inputs, args);
  if (*parity) return parity_command(inputs, parity_report, parity_replay);
  if (*red_once) return red_once_command(inputs, red_once_lanes, ledger, update_ledger, red_once_report);
  if (*lint) return lint_command(inputs);
  if (*mutants) return mutants_command();
  if (*fixture_new) return fixture_new_command(review_id, fixtures_root);
  if (*replay) return replay_command(replay_file, replay_args, !no_compare);
  if (*bench) return bench_command(inputs, bench_repeat, bench_report);
  return list_command(inputs, ctest_file, tidemark_path, report_root, list_ledger);
}
