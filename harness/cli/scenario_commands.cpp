// The options of the commands over scenarios and capture fixtures (cli/command_line.h).
#include "cli/command_line.h"

namespace tidemark::cli {

namespace {

// --backend, as every command that runs subjects in one column takes it: BACKEND@BUILD is the
// backend on a driver build of the drivers files (main.cpp starts the process again under it).
void add_backend_option(CLI::App& command, std::string& backend) {
  command.add_option("--backend", backend,
                     "the backend to run on (see `tidemark backends`), or BACKEND@BUILD on a driver build of the "
                     "drivers files");
}

void add_lane_options(CLI::App& command, LaneArgs& lane) {
  command.add_option("--lane", lane.lane, "monolith, split, spawn or tcp");
  command.add_option("--server-program", lane.server_program,
                     "tidemark-server for spawn and tcp (default: beside tidemark)");
  command.add_option("--connect", lane.connect, "tcp: use the server at HOST:PORT instead of a private one");
  command.add_option("--token-file", lane.token_file, "tcp with --connect: the session token (else TIDEMARK_TOKEN)");
  add_whole_number(command, "--handshake-timeout-ms", lane.handshake_timeout_ms, 1,
                   "how long a server may take to greet");
  add_whole_number(command, "--reply-timeout-ms", lane.reply_timeout_ms, 1,
                   "after the greeting, how long one reply may take");
  command.add_option("--mutant", lane.mutant, "run against this mutant (see `tidemark mutants`)");
  add_backend_option(command, lane.backend);
}

// The paths, and the shard of them this process runs (see core/shard.h for the engines' protocols).
void add_sharded_paths(CLI::App& command, std::vector<std::string>& inputs, std::string& shard,
                       std::string& durations) {
  add_paths(command, inputs);
  command.add_option("--shard", shard,
                     "run shard I of N (I from 1), the split the same on every machine; without "
                     "it, Bazel's, GoogleTest's or GitLab's shard variables");
  command.add_option("--shard-durations", durations, "a previous run's summary.json: shards balanced by its seconds");
}

CLI::App* add_replay(CLI::App& app, ReplayArgs& args) {
  return lazy_subcommand(
      app, "replay", "replay a recording in a lane and check every reply", [&args](CLI::App* replay) {
        replay->add_option("file", args.file, "a .tdrec recording")->required();
        replay->add_flag("--no-compare", args.no_compare, "send the requests without checking the replies");
        add_isolation_options(*replay, args.no_isolation, args.time_bounds);
        add_lane_options(*replay, args.lane);
      });
}

CLI::App* add_list(CLI::App& app, ListArgs& args) {
  return lazy_subcommand(app, "list", "list scenarios by test name", [&args](CLI::App* list) {
    add_sharded_paths(*list, args.inputs, args.shard, args.shard_durations);
    list->add_option("--ctest-file", args.ctest_file, "write CTest registrations to this file");
    list->add_option("--tidemark", args.tidemark, "tidemark binary the registrations run");
    list->add_option("--report-root", args.report_root, "report folder root for the registered runs");
    list->add_option("--ledger", args.ledger,
                     "also register a red-once test per scenario, checked against this ledger");
    list->add_option("--expectations", args.expectations, "known failures the registered runs are judged against");
    list->add_option("--digests", args.digests, "committed digests the registered runs are held to (run --digests)");
    list->add_option("--lane", args.lanes, "register these lanes only (repeatable; default all four)")
        ->allow_extra_args(false);
    list->add_option("--backend", args.backends,
                     "register runs on this backend in place of each scenario's own "
                     "(repeatable)")
        ->allow_extra_args(false);
    list->add_option("--label", args.labels, "another CTest label for every registered test (repeatable)")
        ->allow_extra_args(false);
  });
}

CLI::App* add_red_once(CLI::App& app, RedOnceArgs& args) {
  return lazy_subcommand(
      app, "red-once", "prove each scenario's checks with its negative controls", [&args](CLI::App* red_once) {
        add_sharded_paths(*red_once, args.inputs, args.shard, args.shard_durations);
        red_once->add_option("--lane", args.lanes, "lanes to run (default: all four)")->allow_extra_args(false);
        red_once->add_option("--ledger", args.ledger, "the ledger file (default red_once/ledger.txt)");
        red_once->add_flag("--update-ledger", args.update_ledger, "rewrite the ledger lines of these scenarios");
        add_backend_option(*red_once, args.backend);
        red_once->add_option("--expectations", args.expectations,
                             "known failures (expectations.txt): a known failure's green run is its line, and a "
                             "control proves such a check only by making it worse than the line's values");
        red_once->add_option("--report", args.report, "report folder (default reports/run-<time>)");
        add_isolation_options(*red_once, args.no_isolation, args.time_bounds);
        add_baseline_options(*red_once, args.baseline);
      });
}

CLI::App* add_parity(CLI::App& app, ParityArgs& args) {
  return lazy_subcommand(
      app, "parity", "run every scenario in every lane; digests must agree", [&args](CLI::App* parity) {
        add_sharded_paths(*parity, args.inputs, args.shard, args.shard_durations);
        parity->add_option("--report", args.report, "report folder (default reports/run-<time>)");
        parity->add_flag("--replay", args.replay, "also record each scenario and replay it in every lane");
        parity->add_option("--save-digests", args.save_digests, "write each scenario's digest to FILE (for --against)");
        parity->add_option("--against", args.against,
                           "digests saved by another build or machine (--save-digests): each must match");
        add_isolation_options(*parity, args.no_isolation, args.time_bounds);
        add_baseline_options(*parity, args.baseline);
      });
}

}  // namespace

CLI::App* add_run(CLI::App& app, RunArgs& args) {
  return lazy_subcommand(app, "run", "run scenarios and check them", [&args](CLI::App* run) {
    add_sharded_paths(*run, args.inputs, args.shard, args.shard_durations);
    run->add_option("--knob", args.knobs, "override a knob: NAME=VALUE (repeatable)")->allow_extra_args(false);
    run->add_option("--report", args.report, "report folder (default reports/run-<time>)");
    add_tries_options(*run, args);
    run->add_flag("--validation", args.validation, "enable VK_LAYER_KHRONOS_validation; any message is red");
    run->add_option("--expectations", args.expectations,
                    "known failures of backends (expectations.txt): an expected red passes, an unexpected pass fails");
    add_baseline_options(*run, args.baseline);
    run->add_option("--digests", args.digests,
                    "hold each run's digest to a committed digests file (parity --save-digests): another "
                    "digest, or none there, fails the set");
    run->add_option("--record", args.record, "record each session: FILE.tdrec (one scenario) or a folder");
    add_whole_number(*run, "--kill-server-at-frame", args.kill_server_at_frame, 0,
                     "fault injection: drain the pipe, then SIGKILL the spawn/tcp server before frame N");
    run->add_option("--fault", args.faults,
                    "a capture fixture's replay under this layer fault (crash_at_call=N, device_lost_at=N, ...; "
                    "repeatable): a scenario's are knobs (--knob layer_...)")
        ->allow_extra_args(false);
    run->add_flag("--no-isolation", args.no_isolation,
                  "run a driver in Tidemark's own process, not a child of it (for gdb; its crash ends the run, "
                  "and its time limits are not watched)");
    add_time_options(*run, args.time_bounds);
    add_schedule_options(*run, args.schedule);
    add_lane_options(*run, args.lane);
  });
}

void add_scenario_commands(CLI::App& app, CommandArgs& args, Commands& commands) {
  commands.emplace_back(add_run(app, args.run), [&] { return run_command(args.run); });
  commands.emplace_back(add_replay(app, args.replay), [&] { return replay_command(args.replay); });
  commands.emplace_back(add_list(app, args.list), [&] { return list_command(args.list); });
  commands.emplace_back(add_red_once(app, args.red_once), [&] { return red_once_command(args.red_once); });
  commands.emplace_back(add_parity(app, args.parity), [&] { return parity_command(args.parity); });
  auto* lint = lazy_subcommand(app, "lint", "check that scenarios, their controls and the mutants fit together",
                               [&args](CLI::App* lint) {
                                 add_paths(*lint, args.lint_inputs);
                                 lint->add_option("--expectations", args.lint_expectations,
                                                  "also check that every known failure names a scenario, backend "
                                                  "and check that exist");
                               });
  commands.emplace_back(lint, [&] { return lint_command(args.lint_inputs, args.lint_expectations); });
  commands.emplace_back(add_compare(app, args.compare), [&] { return compare_command(args.compare); });
}

}  // namespace tidemark::cli
