#include "runner/verbs/bench.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/files.h"
#include "layer/link.h"
#include "observe/observe.h"
#include "runner/kinds/scenario_subject.h"
#include "session/builtin_backends.h"
#include "lanes/lanes.h"
#include "wire/posix.h"
#include "lanes/replay.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// One run of the floor program's cycles: their seconds (start-up excluded) and the Vulkan calls
// they made.
struct FloorRun {
  double seconds = 0;
  uint64_t calls = 0;
};

// The floor's JSON line in its output.
Result<FloorRun> floor_run_in(const std::string& output, const std::string& program) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    auto json = nlohmann::json::parse(line, nullptr, false);
    if (!json.is_discarded() && json.is_object() && json.contains("cycle_seconds") &&
        json["cycle_seconds"].is_number() && json.contains("calls") && json["calls"].is_number_unsigned())
      return FloorRun{json["cycle_seconds"].get<double>(), json["calls"].get<uint64_t>()};
  }
  return fail(ErrorKind::Environment, fmt::format("bench: expected the floor's JSON line from {}, found '{}'", program,
                                                  output.substr(0, output.find('\n'))));
}

std::vector<std::string> floor_arguments(uint64_t cycles) {
  return {"--cycles", std::to_string(cycles), "--size", "256"};
}

// What the measured programs keep of our environment: where the drivers are, and nothing that
// would change what they do.
const std::vector<std::string> kKeptEnvironment = {
    "PATH", "HOME", "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "LD_LIBRARY_PATH", "XDG_RUNTIME_DIR", "TMPDIR"};

// One run of the floor program: `cycles` respecify cycles.
Result<FloorRun> floor_cycles(const std::string& program, uint64_t cycles) {
  ChildProcess::Options options;
  options.program = program;
  options.args = floor_arguments(cycles);
  options.keep_env = kKeptEnvironment;
  options.capture_stdout = true;
  TIDEMARK_TRY(child, ChildProcess::spawn(options));
  TIDEMARK_TRY(line, child.read_line(wire::Clock::now() + std::chrono::seconds(120)));
  auto status = child.wait_for(std::chrono::seconds(10));
  if (!status || *status != 0)
    return fail(ErrorKind::Environment,
                fmt::format("bench: the floor {} {}", program, status ? describe_wait_status(*status) : "did not end"));
  return floor_run_in(line, program);
}

// The same with the Tidemark layer beneath it, under observe's machinery: the layer's own cost
// on the calls (the gathering after the program ends is not in the floor's seconds).
Result<FloorRun> floor_cycles_under_layer(const std::string& program, uint64_t cycles, const fs::path& dir) {
  std::vector<std::string> command = {program};
  for (auto& arg : floor_arguments(cycles)) command.push_back(std::move(arg));
  const fs::path output = dir / "floor-under-layer.log";
  TIDEMARK_TRY(observation, observe::observe({.command = command,
                                              .settings = "",
                                              .only = "",
                                              .report = dir / "floor-under-layer",
                                              .layer_dir = layer::layer_dir(),
                                              .on_live = {},
                                              .output = output}));
  if (observation.exit_code != 0 || !observation.made_device())
    return fail(ErrorKind::Environment,
                fmt::format("bench: the floor {} under the layer exited {}{}", program, observation.exit_code,
                            observation.made_device() ? "" : " and made no device under it"));
  TIDEMARK_TRY(text, read_given_file(output, "the floor's output"));
  return floor_run_in(text, program);
}

struct ProcessRun {
  double seconds = 0;  // from the spawn to the end
  double rss_mib = 0;  // peak resident set
};

// One whole process, its output thrown away.
Result<ProcessRun> whole_run(const std::string& program, std::vector<std::string> args) {
  ChildProcess::Options options;
  options.program = program;
  options.args = std::move(args);
  options.keep_env = kKeptEnvironment;
  options.stderr_path = "/dev/null";
  options.stdout_too = true;
  const auto started = std::chrono::steady_clock::now();
  TIDEMARK_TRY(child, ChildProcess::spawn(options));
  auto status = child.wait_for(std::chrono::seconds(120));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!status || *status != 0 || !child.peak_rss_kib())
    return fail(ErrorKind::Environment,
                fmt::format("bench: {} {}", program, status ? describe_wait_status(*status) : "did not end in 120 s"));
  return ProcessRun{seconds, static_cast<double>(*child.peak_rss_kib()) / 1024.0};
}

// Two commands as whole processes, in turn, after one pair that warms the page cache: the
// pairs measured. Each command runs first in every other pair, so whatever the run just before
// leaves behind (a warm cache, a CPU that slowed or sped up) falls on both alike.
struct Command {
  std::string program;
  std::vector<std::string> args;
};
Result<std::vector<std::pair<ProcessRun, ProcessRun>>> pairs_in_turn(const Command& first, const Command& second,
                                                                     int repeat) {
  std::vector<std::pair<ProcessRun, ProcessRun>> pairs;
  for (int i = 0; i <= std::max(1, repeat); ++i) {
    const bool in_order = i % 2 == 0;
    const Command& before = in_order ? first : second;
    const Command& after = in_order ? second : first;
    TIDEMARK_TRY(ran_before, whole_run(before.program, before.args));
    TIDEMARK_TRY(ran_after, whole_run(after.program, after.args));
    if (i > 0) pairs.push_back(in_order ? std::pair(ran_before, ran_after) : std::pair(ran_after, ran_before));
  }
  return pairs;
}

// The median of one figure over the pairs.
template <class Figure>
double median_over(const std::vector<std::pair<ProcessRun, ProcessRun>>& pairs, Figure figure) {
  std::vector<double> values;
  for (const auto& [one, other] : pairs) values.push_back(figure(one, other));
  return median(std::move(values));
}

// The monolith replay's whole process against the floor doing the same cycles and the closing
// draw: each ratio is the median of the pairs'.
Result<report::WholeProcess> whole_process(const std::string& replayer, const std::string& recording,
                                           const std::string& floor, uint64_t cycles, int repeat) {
  std::vector<std::string> floor_args = floor_arguments(cycles);
  floor_args.push_back("--draw");
  TIDEMARK_TRY(pairs,
               pairs_in_turn({replayer, {"replay", recording, "--lane", "monolith"}}, {floor, floor_args}, repeat));
  using Run = const ProcessRun&;
  return report::WholeProcess{
      .replay_seconds = median_over(pairs, [](Run replay, Run) { return replay.seconds; }),
      .floor_seconds = median_over(pairs, [](Run, Run floored) { return floored.seconds; }),
      .seconds_ratio = median_over(pairs, [](Run replay, Run floored) { return replay.seconds / floored.seconds; }),
      .replay_rss_mib = median_over(pairs, [](Run replay, Run) { return replay.rss_mib; }),
      .floor_rss_mib = median_over(pairs, [](Run, Run floored) { return floored.rss_mib; }),
      .rss_ratio = median_over(pairs, [](Run replay, Run floored) { return replay.rss_mib / floored.rss_mib; })};
}

// The floor's cycles as a whole process plainly and under `tidemark observe`: observe's whole
// cost (the layer, its records, the replay of them into a model host, the report). The ratio is
// the median of the pairs'.
Result<report::ObservedProcess> observed_process(const std::string& tidemark, const std::string& floor, uint64_t cycles,
                                                 int repeat, const fs::path& dir) {
  const std::vector<std::string> floor_args = floor_arguments(cycles);
  std::vector<std::string> observe_args = {"observe", "--report", (dir / "observed-floor").string(), "--", floor};
  observe_args.insert(observe_args.end(), floor_args.begin(), floor_args.end());
  TIDEMARK_TRY(pairs, pairs_in_turn({floor, floor_args}, {tidemark, observe_args}, repeat));
  using Run = const ProcessRun&;
  return report::ObservedProcess{
      .plain_seconds = median_over(pairs, [](Run plain, Run) { return plain.seconds; }),
      .observed_seconds = median_over(pairs, [](Run, Run observed) { return observed.seconds; }),
      .ratio = median_over(pairs, [](Run plain, Run observed) { return observed.seconds / plain.seconds; })};
}

// A stream is measured against the floor when (nearly) all its commands are respecifies: the
// floor does those cycles' Vulkan work and nothing else.
bool floor_applies(const lanes::ReplayReport& report) { return report.respecifies * 100 >= report.requests * 99; }

}  // namespace

namespace {

// A program beside this executable (the build folder), when it is there.
std::string beside_this_executable(std::string_view name) {
  const fs::path dir = this_executable_dir();
  std::error_code error;
  if (dir.empty() || !fs::exists(dir / name, error)) return {};
  return (dir / name).string();
}

}  // namespace

std::string default_floor() { return beside_this_executable("tidemark-vulkan-floor"); }
std::string default_replayer() { return beside_this_executable("tidemark"); }

Result<BenchStream> bench_stream(const scenario::Scenario& scenario, const BenchOptions& bench) {
  const fs::path& dir = bench.dir;
  const int repeat = bench.repeat;
  const std::string& floor_program = bench.floor_program;
  RunOptions options;
  options.report_dir = dir / "recorded";
  options.column.lane.record = (dir / (scenario.name + ".tdrec")).string();
  options.column.lane.record_name = scenario.id();
  TIDEMARK_TRY(recorded, run(scenario, options));
  BenchStream stream;
  double monolith_rate = 0;
  std::optional<double> floor, layer;  // measured once per stream, at its first lane
  std::optional<uint64_t> floor_calls;
  std::optional<report::WholeProcess> whole;
  std::optional<report::ObservedProcess> observed;
  for (Lane lane : kAllLanes) {
    std::vector<double> seconds;
    lanes::ReplayReport last;
    for (int i = 0; i < std::max(1, repeat); ++i) {
      lanes::LaneOptions lane_options;
      lane_options.lane = lane;
      lane_options.backends = &session::builtin_backends();
      TIDEMARK_TRY(replayed, lanes::replay(options.column.lane.record, lane_options));
      if (replayed.divergence || replayed.digest != recorded.digest) {
        stream.divergence = fmt::format("{} diverged in {}: {}", scenario.name, lane_name(lane),
                                        replayed.divergence.value_or("digest " + replayed.digest));
        return stream;
      }
      seconds.push_back(replayed.seconds);
      last = std::move(replayed);
    }
    if (!floor && !floor_program.empty() && floor_applies(last)) {
      // In turn, so a machine that slows for a while slows both sides.
      std::vector<double> runs, layered;
      for (int i = 0; i < std::max(1, repeat); ++i) {
        TIDEMARK_TRY(bare, floor_cycles(floor_program, last.respecifies));
        TIDEMARK_TRY(under_layer, floor_cycles_under_layer(floor_program, last.respecifies, dir));
        runs.push_back(bare.seconds);
        layered.push_back(under_layer.seconds);
        floor_calls = bare.calls;
      }
      floor = median(runs);
      layer = median(layered);
      if (!bench.replayer_program.empty()) {
        TIDEMARK_TRY(measured, whole_process(bench.replayer_program, options.column.lane.record, floor_program,
                                             last.respecifies, repeat));
        whole = measured;
        TIDEMARK_TRY(under_observe,
                     observed_process(bench.replayer_program, floor_program, last.respecifies, repeat, dir));
        observed = under_observe;
      }
    }
    const double middle = median(seconds);
    const double rate = middle > 0 ? double(last.requests) / middle : 0;
    if (lane == Lane::Monolith) monolith_rate = rate;
    report::BenchRow row{.stream = scenario.name,
                         .lane = std::string(lane_name(lane)),
                         .commands = last.requests,
                         .median_seconds = middle,
                         .commands_per_second = rate,
                         .ratio_to_monolith = monolith_rate > 0 ? rate / monolith_rate : 0,
                         .runs = seconds};
    if (floor) {
      row.floor_seconds = *floor;
      row.harness_ns_per_call = (middle - *floor) * 1e9 / static_cast<double>(last.requests);
      row.layer_seconds = layer;
      row.floor_calls = floor_calls;
      if (lane == Lane::Monolith) {
        row.whole = whole;
        row.observed = observed;
      }
    }
    stream.rows.push_back(std::move(row));
  }
  return stream;
}

Result<BenchOutcome> bench(const std::vector<scenario::Scenario>& scenarios, const BenchOptions& options) {
  std::vector<report::BenchReport> nights;
  if (!options.history.empty()) {
    TIDEMARK_TRY(loaded, report::load_bench_history(options.history));
    nights = std::move(loaded);
  }
  TIDEMARK_CHECK(make_directories(options.dir));
  BenchOutcome outcome;
  outcome.report.label = options.label;
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  outcome.report.date = date;
  if (!options.floor_program.empty()) outcome.report.floor = options.floor_program;
  for (const auto& scenario : scenarios) {
    TIDEMARK_TRY(stream, bench_stream(scenario, options));
    if (stream.divergence) {
      outcome.divergence = std::move(stream.divergence);
      return outcome;
    }
    for (auto& row : stream.rows) {
      if (options.on_row) options.on_row(row);
      outcome.report.results.push_back(std::move(row));
    }
  }
  TIDEMARK_CHECK(report::write_bench_report(options.dir / "bench.json", outcome.report));
  outcome.regressions = report::regressions(nights, outcome.report);
  if (!options.history.empty())
    TIDEMARK_CHECK(report::record_bench_history(options.history, std::move(nights), outcome.report, options.dir));
  return outcome;
}

}  // namespace tidemark::runner
