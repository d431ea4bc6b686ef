// tidemark: the command line. Each command is a function in commands.h taking its options
// struct, registered in command_line.h's three families; this file parses, enters the driver build
// asked for, and dispatches.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include <system_error>

#include "core/nearest_name.h"
#include "core/process.h"
#include "core/process_memory.h"
#include "core/temporaries.h"
#include "drivers/driver_builds.h"
#include "layer/link.h"
#include "runner/pipeline/build_runs.h"
#include "subjects/subjects.h"
#include "cli/command_line.h"
#include "wire/version_text.h"

using namespace tidemark;
using namespace tidemark::cli;

namespace {

// Where the command word is: the first argument that is neither an option nor the value of
// --driver or --drivers (argc: none; -1: a `--` came first).
int command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument == "--") return -1;
    if (argument == "--driver" || argument == "--drivers") {
      ++i;
      continue;
    }
    if (!argument.starts_with('-')) return i;
  }
  return argc;
}

// The command word of the command line, checked before CLI11 parses it: CLI11 answers an unknown
// word with "A subcommand is required", and with the general help when --help follows it.
std::optional<Error> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (const int i = command_word(argc, argv); i > 0 && i < argc) {
    const std::string_view argument = argv[i];
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) {
      if (command->check_name(std::string(argument))) return std::nullopt;
      names.push_back(command->get_name());
    }
    const auto nearest = nearest_name(argument, names);
    return Error{ErrorKind::BadInput,
                 nearest ? fmt::format("no command '{}'; did you mean '{}'?", argument, *nearest)
                         : fmt::format("no command '{}'; the commands are {}", argument, fmt::join(names, ", "))};
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  tidemark::fix_heap_thresholds();         // before the first allocation that could move them
  tidemark::adopt_orphans();               // what a child leaves running is ended, not left to init
  tidemark::layer::make_discoverable();    // before any thread: a session may put the layer beneath its device
  tidemark::end_cleanly_on_termination();  // SIGTERM, SIGINT, SIGHUP: no child tree nor temporary folder left
  // A batch's child on a driver build (runner/pipeline/build_runs.h): no command line, the batch asked and
  // answered on fd 3.
  if (argc == 2 && argv[1] == runner::kBatchChildWord) return tidemark::subjects::serve_batch(3);
  CLI::App app{"Tidemark: deterministic replay and regression harness for GPU driver stacks", "tidemark"};
  app.set_version_flag("--version", wire::version_text("tidemark"));
  app.require_subcommand(1);
  std::string driver;
  std::vector<std::string> drivers_files = {"drivers.yaml"};
  app.add_option("--driver", driver,
                 "run on this build of the driver, named in the drivers file: tidemark starts "
                 "again under its environment and refuses a driver that reports another identity");
  app.add_option("--drivers", drivers_files, "a drivers file naming builds (repeatable; default drivers.yaml)")
      ->allow_extra_args(false);
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "print only what failed and the last line; no progress line")
      ->excludes(app.add_flag("-v,--verbose", verbose, "also print every check that passed"));
  // `tidemark run --quiet ...` as well as `tidemark --quiet run ...`: subcommands take this when made, so first.
  app.fallthrough();
  CommandArgs args;
  Commands commands;
  add_scenario_commands(app, args, commands);
  add_workflow_commands(app, args, commands);
  add_program_commands(app, args, commands);
  if (auto unknown = unknown_command(app, argc, argv)) return report_error(*unknown);
  if (const int word = command_word(argc, argv); word > 0)
    command_arguments().assign(argv + std::min(word + 1, argc), argv + argc);
  app.parse_complete_callback([&] {
    verbosity() = quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal;
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kGreen : kBadInput;
  }
  // `run --backend gl@NAME` is `--driver NAME run --backend gl`: one process is one build.
  for (std::string* backend : {&args.run.lane.backend, &args.replay.lane.backend, &args.red_once.backend})
    if (backend->find('@') != std::string::npos) {
      const report::Column column = report::Column::parse(*backend);
      if (column.backend.empty() || column.build.empty())
        return report_error({ErrorKind::BadInput, fmt::format("--backend: expected BACKEND or BACKEND@BUILD, found "
                                                              "'{}'",
                                                              *backend)});
      if (!driver.empty() && driver != column.build)
        return report_error({ErrorKind::BadInput, fmt::format("--backend {}: expected the build --driver names ({}), "
                                                              "found {}",
                                                              *backend, driver, column.build)});
      driver = column.build;
      *backend = column.backend;
    }
  tidemark::cli::drivers_files().assign(drivers_files.begin(), drivers_files.end());
  if (!driver.empty()) {
    const std::vector<std::filesystem::path> files(drivers_files.begin(), drivers_files.end());
    if (auto entered = tidemark::drivers::run_under(files, driver, argv); !entered)
      return report_error(entered.error());
  }
  // Errors are values inside the library; anything thrown past it (memory exhausted, a
  // library's exception) still ends in one line and exit 4, never an abort.
  try {
    for (const auto& [command, handler] : commands) {
      if (!command->parsed()) continue;
      const int code = handler();
      // What was printed is part of the result: a verdict nobody could read (stdout closed, a
      // full disk under a redirect) is an I/O error, never a green.
      if (std::fflush(stdout) != 0 || std::ferror(stdout))
        return report_error({ErrorKind::Io, fmt::format("cannot write to standard output: {}", std::strerror(errno))});
      return code;
    }
  } catch (const std::bad_alloc&) {
    return report_error({ErrorKind::Fatal, "out of memory"});
  } catch (const std::system_error& error) {  // fmt::print's failed write
    return report_error({ErrorKind::Io, std::string("cannot write the output: ") + error.what()});
  } catch (const std::exception& exception) {
    return report_error({ErrorKind::Fatal, std::string("internal error: ") + exception.what()});
  }
  return kBadInput;
}
