// The builders every command file shares (cli/command_line.h): positional paths, option groups,
// subcommands whose options are made only when their name is parsed, and a run's arguments read again.
#include "cli/command_line.h"

namespace tidemark::cli {

namespace {

// A validator of what `parse` reads; the text is made the value's plain decimal spelling, which
// CLI11 then converts (it would read "010" as octal).
template <class Parse>
CLI::Validator reading(Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        auto value = parse(text);
        if (!value) return value.error().message;
        text = fmt::format("{}", *value);
        return {};
      },
      "");
}

}  // namespace

CLI::Validator whole_number(int64_t min, int64_t max) {
  return reading([min, max](std::string_view text) { return parse_whole_number(text, min, max); });
}

CLI::Validator seconds(ZeroSeconds zero) {
  return reading([zero](std::string_view text) { return parse_seconds(text, zero); });
}

CLI::Validator finite_bound() { return reading(parse_finite_bound); }

void add_paths(CLI::App& command, std::vector<std::string>& inputs, const char* what) {
  command.add_option("paths", inputs, what)->required();
}

void add_program(CLI::App& command, std::vector<std::string>& program) {
  for (CLI::Option* option : command.get_options()) option->allow_extra_args(false);
  command.add_option("command", program, "the program and its arguments, after --")->required();
  command.prefix_command();
}

void add_schedule_options(CLI::App& command, ScheduleArgs& args) {
  command
      .add_option("--skip", args.skip_files,
                  "a file of regexes, one a line ('#' comments): subjects whose test name matches one are "
                  "skipped (repeatable)")
      ->allow_extra_args(false);
  command
      .add_option("--include", args.include_files,
                  "a file of regexes, one a line: subjects whose test name matches none are skipped (repeatable)")
      ->allow_extra_args(false);
  add_whole_number(command, "--jobs,-j", args.jobs, 1,
                   "subjects at once, each child running its own (default one per core; 1 with --no-isolation)");
  add_whole_number(command, "--shuffle", args.shuffle, 0,
                   "start the subjects in the order this seed gives (same digests)");
  add_whole_number(command, "--max-fails", args.max_fails, 0,
                   "after N failed runs start no more; the rest are not run (0: no limit)");
}

void add_tries_options(CLI::App& command, RunArgs& args) {
  add_whole_number(command, "--repeat", args.repeat, 1,
                   "run each scenario N times; more than one digest is the verdict nondeterministic");
  add_whole_number(command, "--retry", args.retry, 0,
                   "try a failed run (red, could-not-run, crash, device-lost, timeout) up to N times more: green "
                   "after a failure is flaky (exit 5 when nothing else failed), failed every time stays failed");
  // Under --resume the paths are the journal's: run_command asks for one or the other.
  command.get_option("paths")->required(false);
  command.add_option("--resume", args.resume,
                     "go on with the killed run whose report folder this is: run only what its journal has no "
                     "record of, with its options (exit 6 when its scenarios or options are not the ones given)");
}

void add_time_options(CLI::App& command, TimeBoundsOverride& bounds) {
  command
      .add_option("--timeout", bounds.wall,
                  fmt::format("SECONDS a subject's run may take in all before its processes are killed (a timeout "
                              "verdict); 0: none (default {:g}, or its file's `timeout:`)",
                              kDefaultWallSeconds))
      ->check(seconds(ZeroSeconds::MeansNoLimit));
  command
      .add_option("--inactivity-timeout", bounds.inactivity,
                  fmt::format("SECONDS a subject may go with no call crossing the layer or the wire (default {:g}, or "
                              "its file's `inactivity_timeout:`); 0: none",
                              kDefaultInactivitySeconds))
      ->check(seconds(ZeroSeconds::MeansNoLimit));
}

void add_isolation_options(CLI::App& command, bool& no_isolation, TimeBoundsOverride& bounds) {
  command.add_flag("--no-isolation", no_isolation,
                   "run a driver in Tidemark's own process, not a child of it (for gdb; its crash ends the command, "
                   "and its time limits are not watched)");
  add_time_options(command, bounds);
}

CLI::App* lazy_subcommand(CLI::App& parent, std::string name, std::string description,
                          std::function<void(CLI::App*)> options) {
  CLI::App* command = parent.add_subcommand(std::move(name), std::move(description));
  command->preparse_callback([command, options = std::move(options)](std::size_t) { options(command); });
  return command;
}

namespace {

// `arguments` parsed as a run's (the global options among them passed over), and the names of
// the run's options they give.
Result<std::pair<RunArgs, std::vector<std::string>>> parse_run(const std::vector<std::string>& arguments) {
  CLI::App app;
  app.fallthrough();
  std::string passed_over;
  std::vector<std::string> passed_over_files;
  app.add_flag("-q,--quiet,-v,--verbose");
  app.add_option("--driver", passed_over);
  app.add_option("--drivers", passed_over_files)->allow_extra_args(false);
  RunArgs args;
  CLI::App* run = add_run(app, args);
  std::vector<std::string> words(arguments.rbegin(), arguments.rend());  // CLI11 takes them last first
  words.push_back("run");
  try {
    app.parse(words);
  } catch (const CLI::ParseError& error) {
    return fail(ErrorKind::BadInput, fmt::format("expected the arguments of a run, found {}", error.what()));
  }
  std::vector<std::string> given;
  for (const CLI::Option* option : run->get_options())
    if (option->count() > 0) given.push_back(option->get_name());
  return std::pair{std::move(args), std::move(given)};
}

}  // namespace

Result<RunArgs> parse_run_arguments(const std::vector<std::string>& arguments) {
  TIDEMARK_TRY(parsed, parse_run(arguments));
  return std::move(parsed.first);
}

Result<std::vector<std::string>> run_options_given(const std::vector<std::string>& arguments) {
  TIDEMARK_TRY(parsed, parse_run(arguments));
  return std::move(parsed.second);
}

}  // namespace tidemark::cli
