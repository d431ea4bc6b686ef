// The command line's shape: every command's options registered on the app, each beside the
// function that runs it once parsed. main.cpp parses and dispatches; the registrations are in
// scenario_commands.cpp (running and checking scenarios and capture fixtures),
// workflow_commands.cpp (measuring and making) and program_commands.cpp (programs, reports and
// this build).
#pragma once

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "core/option_values.h"

namespace tidemark::cli {

// Every command's options, as the parse fills them.
struct CommandArgs {
  RunArgs run;
  ReplayArgs replay;
  ListArgs list;
  RedOnceArgs red_once;
  ParityArgs parity;
  BenchArgs bench;
  FixtureArgs fixture;
  SoakArgs soak;
  ReduceArgs reduce;
  CompareArgs compare;
  CaptureArgs capture;
  RebaseArgs rebase;
  ObserveArgs observe;
  MergeArgs merge;
  BisectArgs bisect;
  std::vector<std::string> lint_inputs;
  std::string lint_expectations;
  std::string trace_file;
  std::vector<std::string> doctor_backends;
};

// A registered command and what runs it.
using Commands = std::vector<std::pair<CLI::App*, std::function<int()>>>;

// Every numeric option of every command is read by one of these (core/option_values.h): a value
// out of range, not whole or not finite is refused by the parse (exit 2, naming the option),
// never wrapped, clamped or taken as "no limit".
CLI::Validator whole_number(int64_t min, int64_t max);
CLI::Validator seconds(ZeroSeconds zero);
CLI::Validator finite_bound();
// A count or a whole number of units, from `min` to the most `value`'s type holds.
template <std::integral T>
CLI::Option* add_whole_number(CLI::App& command, std::string name, T& value, int64_t min, std::string help) {
  const auto most = static_cast<uint64_t>(std::numeric_limits<T>::max());
  const auto max = static_cast<int64_t>(std::min<uint64_t>(most, std::numeric_limits<int64_t>::max()));
  return command.add_option(std::move(name), value, std::move(help))->check(whole_number(min, max));
}

// A command's positional paths (scenario files or folders, unless `what` says otherwise).
void add_paths(CLI::App& command, std::vector<std::string>& inputs, const char* what = "scenario files or folders");
// The program a command runs (capture, observe) and its arguments: every word after `--`, or from
// the first word that is none of the command's. Added after the command's own options, each of
// which then takes one value a time: a list option would end at `--` and eat it (CLI11's way),
// leaving the program's options to the command.
void add_program(CLI::App& command, std::vector<std::string>& program);
// --baseline and --tolerance, as every command that runs subjects takes them.
void add_baseline_options(CLI::App& command, BaselineArgs& args);
// --skip, --include, --jobs, --shuffle and --max-fails (run).
void add_schedule_options(CLI::App& command, ScheduleArgs& args);
// --repeat, --retry and --resume (run; the paths it takes are then not required).
void add_tries_options(CLI::App& command, RunArgs& args);
// --timeout and --inactivity-timeout, as every command that runs a subject takes them (run, observe).
void add_time_options(CLI::App& command, TimeBoundsOverride& bounds);
// --no-isolation and the time options, as the commands that run subjects as `run` does take them
// (replay, red-once, parity, compare: runner::run).
void add_isolation_options(CLI::App& command, bool& no_isolation, TimeBoundsOverride& bounds);
// A subcommand whose options are made when its name is parsed, not before: a build under the
// sanitizers spent a third of each process's start making the options of twenty commands it
// would not run (CLI11 checks each new option against the command's others).
CLI::App* lazy_subcommand(CLI::App& parent, std::string name, std::string description,
                          std::function<void(CLI::App*)> options);

// A run's options from its arguments after `run` (a journal's, for --resume); the global options
// among them (--quiet, --verbose, --driver, --drivers) are passed over. Errors say what CLI11 said.
Result<RunArgs> parse_run_arguments(const std::vector<std::string>& arguments);
// The names of the run's options (--retry, paths) that a run's arguments give, the global ones aside.
Result<std::vector<std::string>> run_options_given(const std::vector<std::string>& arguments);

// run's options (scenario_commands.cpp).
CLI::App* add_run(CLI::App& app, RunArgs& args);
// compare's options, beside the command (compare_command.cpp).
CLI::App* add_compare(CLI::App& app, CompareArgs& args);
// run, replay, list, red-once, parity, lint, compare.
void add_scenario_commands(CLI::App& app, CommandArgs& args, Commands& commands);
// bench, soak, fixture new, reduce, bisect.
void add_workflow_commands(CLI::App& app, CommandArgs& args, Commands& commands);
// capture, observe, rebase, merge, trace, doctor, mutants, backends.
void add_program_commands(CLI::App& app, CommandArgs& args, Commands& commands);

}  // namespace tidemark::cli
