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

#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "core/option_values.h"
#include "core/shard.h"
#include "runner/kinds/scenario_subject.h"
#include "runner/pipeline/selection.h"
#include "scenario/scenario.h"
#include "lanes/lanes.h"
#include "wire/posix.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

int exit_code(const Error& error) {
  switch (error.kind) {
    case ErrorKind::BadInput:
      return kBadInput;
    case ErrorKind::Environment:
      return kEnvironment;
    case ErrorKind::Fatal:
    case ErrorKind::Io:
      return kInternal;
  }
  return kInternal;
}

int report_error(const Error& error) {
  Progress::clear_active();
  fmt::print(stderr, "tidemark: {}\n", error.message);
  return exit_code(error);
}

Result<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& inputs) {
  TIDEMARK_TRY(loaded, subjects::load_subjects(inputs));
  std::vector<scenario::Scenario> scenarios;
  for (const auto& subject : loaded.subjects) {
    const auto* scenario = dynamic_cast<const runner::ScenarioSubject*>(subject.get());
    if (!scenario)
      return fail(ErrorKind::BadInput, fmt::format("{}: expected a scenario, found a {}", subject->info().file.string(),
                                                   subject->info().kind));
    scenarios.push_back(scenario->scenario());
  }
  return scenarios;
}

Result<subjects::Loaded> load_subjects(const std::vector<std::string>& inputs, const std::string& shard,
                                       const std::string& durations) {
  TIDEMARK_TRY(loaded, subjects::load_subjects(inputs, shard, durations));
  if (loaded.shard && loaded.shard->total > 1)
    fmt::print(stderr, "shard {} of {} ({}): {} of {} scenarios\n", loaded.shard->index, loaded.shard->total,
               loaded.shard->protocol, loaded.subjects.size(), loaded.scenarios_before_shard);
  return std::move(loaded);
}

Verbosity& verbosity() {
  static Verbosity chosen = Verbosity::Normal;
  return chosen;
}

std::vector<fs::path>& drivers_files() {
  static std::vector<fs::path> given;
  return given;
}

std::vector<std::string>& command_arguments() {
  static std::vector<std::string> given;
  return given;
}

fs::path default_report_dir(std::string_view kind) {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::gmtime(&now));
  return fs::path("reports") / fmt::format("{}-{}", kind, stamp);
}

Result<MutantChoice> parse_mutant_option(const std::string& name) {
  MutantChoice choice = MutantChoice::named(name);
  if (choice.id) return choice;
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

Result<std::map<std::string, int64_t>> parse_knobs(const std::vector<std::string>& knobs) {
  std::map<std::string, int64_t> out;
  for (const auto& knob : knobs) {
    auto eq = knob.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(ErrorKind::BadInput, fmt::format("--knob: expected NAME=VALUE, found '{}'", knob));
    auto value = parse_whole_number(knob.substr(eq + 1));
    if (!value)
      return fail(ErrorKind::BadInput, fmt::format("--knob {}: {}", knob.substr(0, eq), value.error().message));
    out[knob.substr(0, eq)] = *value;
  }
  return out;
}

Result<lanes::LaneOptions> lane_options_from(const LaneArgs& args) {
  lanes::LaneOptions options;
  TIDEMARK_TRY(lane, parse_lane_option(args.lane));
  options.lane = lane;
  options.server_program = args.server_program;
  options.connect = args.connect;
  options.handshake_timeout = std::chrono::milliseconds(args.handshake_timeout_ms);
  options.reply_timeout = std::chrono::milliseconds(args.reply_timeout_ms);
  options.backends = &session::builtin_backends();
  if (!args.connect.empty()) {
    if (lane != Lane::Tcp) return fail(ErrorKind::BadInput, "--connect: expected --lane tcp");
    TIDEMARK_TRY(token, wire::read_session_token(args.token_file, "--connect"));
    options.token = std::move(token);
  }
  return options;
}

}  // namespace tidemark::cli
