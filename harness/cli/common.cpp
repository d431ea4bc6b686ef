// Helpers shared by the commands.
#include <fmt/format.h>

#include "session/builtin_backends.h"
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "core/shard.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "wire/lanes.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

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
  Progress::clear_active();
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
    std::string name = runner::test_name(*loaded, Lane::Monolith);
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

Verbosity& verbosity() {
  static Verbosity chosen = Verbosity::Normal;
  return chosen;
}

fs::path default_report_dir(std::string_view kind) {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return fs::path("reports") / fmt::format("{}-{}", kind, stamp);
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

Result<Lane> parse_lane_option(const std::string& name) {
  if (auto lane = parse_lane(name)) return *lane;
  return fail(ErrorKind::BadInput, fmt::format("--lane: expected monolith, split, spawn or tcp, found '{}'", name));
}

namespace {
// Seconds by scenario file from a summary.json: the sum over its lanes and backends.
Result<std::map<std::string, double>> seconds_by_file(const std::string& summary) {
  std::map<std::string, double> seconds;
  if (summary.empty()) return seconds;
  TIDEMARK_TRY(text, read_given_file(summary, "summary"));
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.contains("results") || !json["results"].is_array())
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a summary.json with results, found something else", summary));
  for (const auto& result : json["results"])
    if (result.contains("file") && result["file"].is_string() && result.contains("seconds") && result["seconds"].is_number())
      seconds[fs::absolute(result["file"].get<std::string>()).lexically_normal().string()] += result["seconds"].get<double>();
  return seconds;
}
}  // namespace

Result<std::vector<scenario::Scenario>> load_shard(const std::vector<std::string>& inputs, const std::string& flag,
                                                   const std::string& durations,
                                                   std::optional<report::ShardOrigin>* origin) {
  TIDEMARK_TRY(scenarios, load_all(inputs));
  TIDEMARK_TRY(shard, find_shard(flag, [](const char* name) { return std::getenv(name); }));
  if (!shard) return scenarios;
  TIDEMARK_CHECK(touch_status_file(*shard));
  TIDEMARK_TRY(by_file, seconds_by_file(shard->total == 1 ? std::string() : durations));
  std::vector<std::string> names;
  std::map<std::string, double> seconds;
  for (const auto& scenario : scenarios) {
    names.push_back(scenario.id());
    auto found = by_file.find(fs::absolute(scenario.file).lexically_normal().string());
    if (found != by_file.end()) seconds[names.back()] = found->second;
  }
  std::vector<scenario::Scenario> mine;
  report::ShardOrigin place{shard->index + 1, shard->total, shard->protocol, names.size(), report::selection_hash(names), {}};
  for (size_t k : shard_members(names, *shard, seconds)) {
    place.members.push_back(names[k]);
    mine.push_back(std::move(scenarios[k]));
  }
  if (origin) *origin = std::move(place);
  if (shard->total == 1) return mine;
  fmt::print(stderr, "shard {} of {} ({}): {} of {} scenarios\n", shard->index + 1, shard->total, shard->protocol,
             mine.size(), names.size());
  return mine;
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

Result<wire::LaneOptions> lane_options_from(const LaneArgs& args) {
  wire::LaneOptions options;
  TIDEMARK_TRY(lane, parse_lane_option(args.lane));
  options.lane = lane;
  options.server_program = args.server_program;
  options.connect = args.connect;
  if (args.handshake_timeout_ms < 1 || args.reply_timeout_ms < 1)
    return fail(ErrorKind::BadInput, "--handshake-timeout-ms, --reply-timeout-ms: expected at least 1");
  options.handshake_timeout = std::chrono::milliseconds(args.handshake_timeout_ms);
  options.reply_timeout = std::chrono::milliseconds(args.reply_timeout_ms);
  if (auto ok = check_mutant_name(args.mutant); !ok) return std::unexpected(ok.error());
  options.mutant = args.mutant;
  options.backend.clear();  // each scenario's own
  if (!args.backend.empty()) {
    auto backend = session::builtin_backends().lookup(args.backend);
    if (!backend) return fail(ErrorKind::BadInput, "--backend: " + backend.error().message);
    options.backend = (*backend)->name;
  }
  options.backends = &session::builtin_backends();
  if (!args.connect.empty()) {
    if (lane != Lane::Tcp) return fail(ErrorKind::BadInput, "--connect: expected --lane tcp");
    TIDEMARK_TRY(token, wire::read_session_token(args.token_file, "--connect"));
    options.token = std::move(token);
  }
  return options;
}

}  // namespace tidemark::cli
