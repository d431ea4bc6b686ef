// tidemark: the command line. Each command is a function in commands.h taking its options
// struct; this file only registers the options.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <system_error>

#include "core/process_memory.h"
#include "drivers/driver_builds.h"
#include "layer/link.h"
#include "runner/build_runs.h"
#include "cli/commands.h"
#include "wire/version_text.h"

using namespace tidemark;
using namespace tidemark::cli;

namespace {

void add_lane_options(CLI::App& command, LaneArgs& lane) {
  command.add_option("--lane", lane.lane, "monolith, split, spawn or tcp");
  command.add_option("--server-program", lane.server_program, "tidemark-server for spawn and tcp (default: beside tidemark)");
  command.add_option("--connect", lane.connect, "tcp: use the server at HOST:PORT instead of a private one");
  command.add_option("--token-file", lane.token_file, "tcp with --connect: the session token (else TIDEMARK_TOKEN)");
  command.add_option("--handshake-timeout-ms", lane.handshake_timeout_ms, "how long a server may take to greet");
  command.add_option("--reply-timeout-ms", lane.reply_timeout_ms, "after the greeting, how long one reply may take");
  command.add_option("--mutant", lane.mutant, "run against this mutant (see `tidemark mutants`)");
  command.add_option("--backend", lane.backend, "the backend to run on (see `tidemark backends`)");
}

void add_paths(CLI::App& command, std::vector<std::string>& inputs, const char* what = "scenario files or folders") {
  command.add_option("paths", inputs, what)->required();
}

// The paths, and the shard of them this process runs (see core/shard.h for the engines' protocols).
void add_sharded_paths(CLI::App& command, std::vector<std::string>& inputs, std::string& shard,
                       std::string& durations) {
  add_paths(command, inputs);
  command.add_option("--shard", shard, "run shard I of N (I from 1), the split the same on every machine; without "
                                       "it, Bazel's, GoogleTest's or GitLab's shard variables");
  command.add_option("--shard-durations", durations, "a previous run's summary.json: shards balanced by its seconds");
}

CLI::App* add_run(CLI::App& app, RunArgs& args) {
  auto* run = app.add_subcommand("run", "run scenarios and check them");
  add_sharded_paths(*run, args.inputs, args.shard, args.shard_durations);
  run->add_option("--knob", args.knobs, "override a knob: NAME=VALUE (repeatable)")->allow_extra_args(false);
  run->add_option("--report", args.report, "report folder (default reports/run-<time>)");
  run->add_option("--repeat", args.repeat, "run each scenario N times; all must give one digest");
  run->add_flag("--validation", args.validation, "enable VK_LAYER_KHRONOS_validation; any message is red");
  run->add_option("--expectations", args.expectations, "known failures of backends (expectations.txt): an "
                                                       "expected red passes, an unexpected pass fails");
  run->add_option("--baseline", args.baseline, "hold every gauge to an earlier run's (its report folder or "
                                               "summary.json): worse is red, better is reported, new and gone named");
  run->add_option("--tolerance", args.tolerances, "with --baseline: how much worse GAUGE may get, GAUGE=N or GAUGE=P% "
                                                  "(repeatable; default 0)")->allow_extra_args(false);
  run->add_option("--record", args.record, "record each session: FILE.tdrec (one scenario) or a folder");
  run->add_option("--kill-server-at-frame", args.kill_server_at_frame,
                  "fault injection: drain the pipe, then SIGKILL the spawn/tcp server before frame N");
  add_lane_options(*run, args.lane);
  return run;
}

CLI::App* add_replay(CLI::App& app, ReplayArgs& args) {
  auto* replay = app.add_subcommand("replay", "replay a recording in a lane and check every reply");
  replay->add_option("file", args.file, "a .tdrec recording")->required();
  replay->add_flag("--no-compare", args.no_compare, "send the requests without checking the replies");
  add_lane_options(*replay, args.lane);
  return replay;
}

CLI::App* add_reduce(CLI::App& app, ReduceArgs& args) {
  auto* reduce = app.add_subcommand("reduce", "cut a red scenario (or an apitrace capture fixture) down to the fewest "
                                              "steps (calls) that stay red under the bug and green under the fix, and "
                                              "write it as a fixture");
  reduce->add_option("input", args.input, "a scenario file, a recording (.tdrec) of one, or a capture fixture "
                                          "(NAME.capture.yaml)")->required();
  reduce->add_option("--scenario", args.scenario, "a recording's scenario file (default: the one under scenarios/ "
                                                  "or fixtures/ its header names)");
  reduce->add_option("--check", args.check, "the check that must stay red under the bug and green without it, "
                                            "as a control names it (an expression, pixels[0], waits, kmd.NAME)")
      ->required();
  reduce->add_option("--mutant", args.mutant, "the bug: a mutant (see `tidemark mutants`)");
  reduce->add_option("--knob", args.knobs, "the bug: a knob setting NAME=VALUE (repeatable)")->allow_extra_args(false);
  reduce->add_option("--fault", args.fault, "a capture's bug: a layer fault (hold_frees, never_done, fail_allocation=N)");
  reduce->add_option("--bug-build", args.bug_build, "a capture's bug: the driver build on which the check is red");
  reduce->add_option("--fix-build", args.fix_build, "a capture's fix: the driver build on which it is green (default "
                                                    "this process's)");
  reduce->add_option("--out", args.out, "the fixture folder to write (default fixtures/<name>, captures/<name> for a "
                                        "capture)");
  reduce->add_option("--name", args.name, "the result's name, a sentence in kebab case (default the input's)");
  reduce->add_option("--ledger", args.ledger, "also put the result's ledger rows into this ledger");
  reduce->add_option("--jobs", args.jobs, "candidates judged at once (default one per core)");
  return reduce;
}

CLI::App* add_list(CLI::App& app, ListArgs& args) {
  auto* list = app.add_subcommand("list", "list scenarios by test name");
  add_sharded_paths(*list, args.inputs, args.shard, args.shard_durations);
  list->add_option("--ctest-file", args.ctest_file, "write CTest registrations to this file");
  list->add_option("--tidemark", args.tidemark, "tidemark binary the registrations run");
  list->add_option("--report-root", args.report_root, "report folder root for the registered runs");
  list->add_option("--ledger", args.ledger, "also register a red-once test per scenario, checked against this ledger");
  list->add_option("--expectations", args.expectations, "known failures the registered runs are judged against");
  list->add_option("--lane", args.lanes, "register these lanes only (repeatable; default all four)")->allow_extra_args(false);
  list->add_option("--backend", args.backends, "register runs on this backend in place of each scenario's own "
                                               "(repeatable)")->allow_extra_args(false);
  list->add_option("--label", args.labels, "another CTest label for every registered test (repeatable)")
      ->allow_extra_args(false);
  return list;
}

CLI::App* add_red_once(CLI::App& app, RedOnceArgs& args) {
  auto* red_once = app.add_subcommand("red-once", "prove each scenario's checks with its negative controls");
  add_sharded_paths(*red_once, args.inputs, args.shard, args.shard_durations);
  red_once->add_option("--lane", args.lanes, "lanes to run (default: all four)")->allow_extra_args(false);
  red_once->add_option("--ledger", args.ledger, "the ledger file (default red_once/ledger.txt)");
  red_once->add_flag("--update-ledger", args.update_ledger, "rewrite the ledger lines of these scenarios");
  red_once->add_option("--report", args.report, "report folder (default reports/run-<time>)");
  return red_once;
}

CLI::App* add_parity(CLI::App& app, ParityArgs& args) {
  auto* parity = app.add_subcommand("parity", "run every scenario in every lane; digests must agree");
  add_sharded_paths(*parity, args.inputs, args.shard, args.shard_durations);
  parity->add_option("--report", args.report, "report folder (default reports/run-<time>)");
  parity->add_flag("--replay", args.replay, "also record each scenario and replay it in every lane");
  parity->add_option("--save-digests", args.save_digests, "write each scenario's digest to FILE (for --against)");
  parity->add_option("--against", args.against,
                     "digests saved by another build or machine (--save-digests): each must match");
  return parity;
}

CLI::App* add_bench(CLI::App& app, BenchArgs& args) {
  auto* bench = app.add_subcommand("bench", "replay throughput per lane, and the harness's own ns per call above the bare Vulkan floor");
  add_paths(*bench, args.inputs, "benchmark streams (scenario files), e.g. bench/");
  bench->add_option("--repeat", args.repeat, "replays per lane; the median is reported (default 3)");
  bench->add_option("--report", args.report, "where recordings and bench.json go (default build/bench)");
  bench->add_option("--floor", args.floor,
                    "the bare Vulkan program whose seconds are subtracted (default: tidemark-vulkan-floor beside tidemark)");
  bench->add_option("--history", args.history, "append the results to this JSON-lines file and plot it in the report");
  bench->add_option("--label", args.label, "what this run measures (e.g. a commit), kept in the history");
  return bench;
}

CLI::App* add_soak(CLI::App& app, SoakArgs& args) {
  auto* soak = app.add_subcommand("soak", "a long workload per lane with client and server memory sampled every N calls");
  soak->add_option("file", args.file, "one scenario file, e.g. soak/one-present-1300000-calls.yaml")->required();
  soak->add_option("--lane", args.lanes, "lanes to run (default: all four)")->allow_extra_args(false);
  soak->add_option("--every", args.every, "calls between samples (default 10000)");
  soak->add_option("--report", args.report, "where soak.json, soak.html and the runs go (default reports/run-<time>)");
  soak->add_option("--max-rss-slope", args.max_rss_slope_kib, "RSS growth bound after warm-up, KiB per million calls");
  soak->add_option("--max-maps-slope", args.max_maps_slope, "mapping growth bound after warm-up, per million calls");
  return soak;
}

CLI::App* add_fixture_new(CLI::App& app, FixtureArgs& args) {
  auto* fixture = app.add_subcommand("fixture", "review must-fixes as fixtures");
  fixture->require_subcommand(1);
  auto* fixture_new = fixture->add_subcommand("new", "create fixtures/<review-id>/ with a README and a scenario skeleton");
  fixture_new->add_option("review-id", args.review_id, "the review's id, e.g. ID-P7-43")->required();
  fixture_new->add_option("--root", args.root, "the fixtures folder (default fixtures)");
  return fixture_new;
}

}  // namespace

int main(int argc, char** argv) {
  tidemark::fix_heap_thresholds();        // before the first allocation that could move them
  tidemark::layer::make_discoverable();  // before any thread: a session may put the layer beneath its device
  CLI::App app{"Tidemark: deterministic replay and regression harness for GPU driver stacks", "tidemark"};
  app.set_version_flag("--version", wire::version_text("tidemark"));
  app.require_subcommand(1);
  RunArgs run;
  ReplayArgs replay;
  ListArgs list;
  RedOnceArgs red_once;
  ParityArgs parity;
  BenchArgs bench;
  FixtureArgs fixture;
  SoakArgs soak;
  ReduceArgs reduce;
  std::vector<std::string> lint_inputs;
  auto* lint = app.add_subcommand("lint", "check that scenarios, their controls and the mutant catalogue fit together");
  add_paths(*lint, lint_inputs);
  std::string lint_expectations;
  lint->add_option("--expectations", lint_expectations, "also check that every known failure names a scenario, "
                                                        "backend and check that exist");
  auto* mutants = app.add_subcommand("mutants", "print the mutant catalogue of this build (Markdown)");
  auto* backends = app.add_subcommand("backends", "print the backends of this build and the gauges each gives (Markdown)");
  CompareArgs compared;
  auto* compare = app.add_subcommand("compare", "the same scenarios on each backend side by side: verdicts, device "
                                                "gauges, image hashes (terminal, compare.html)");
  add_paths(*compare, compared.inputs);
  compare->add_option("--backend", compared.backends, "a backend to run on, or BACKEND@BUILD on a driver build of "
                                                      "the drivers files (repeatable; default: each scenario's "
                                                      "backends: list); each column is held to the first")->allow_extra_args(false);
  compare->add_option("--expectations", compared.expectations, "known failures (expectations.txt)");
  compare->add_option("--report", compared.report, "report folder (default reports/run-<time>)");
  compare->add_option("--lane", compared.lane, "the lane every column runs in (default monolith)");
  CaptureArgs captured;
  auto* capture = app.add_subcommand("capture", "capture a program (apitrace on Zink, or GFXReconstruct with --vulkan) "
                                                "under the deterministic driver settings, and write it as a capture "
                                                "fixture whose bounds its replay measured, its controls proven red");
  capture->add_flag("--vulkan", captured.vulkan, "a Vulkan program: capture with GFXReconstruct (default: GL, apitrace)");
  capture->add_option("--out", captured.out, "the folder for the capture and its fixture (default captures)");
  capture->add_option("--name", captured.name, "the fixture's name, in kebab case")->required();
  capture->add_option("--group", captured.group, "the fixture's group, in kebab case (default captures)");
  capture->add_option("command", captured.command, "the program and its arguments, after --")->required();
  capture->prefix_command();
  RebaseArgs rebased;
  auto* rebase = app.add_subcommand("rebase", "after a reviewed change, bring the baseline, the expectations' measured "
                                              "values, the ledger and the goldens up to a report folder (refused when "
                                              "it is incomplete, has an unexpected red, or its scenarios changed)");
  rebase->add_option("report", rebased.report, "a report folder (summary.json, red-once.json), e.g. a CI artifact")->required();
  rebase->add_option("--baseline", rebased.baseline, "the baseline folder whose summary.json becomes the report's runs");
  rebase->add_option("--expectations", rebased.expectations, "rewrite the measured values of the lines the report's "
                                                             "known failures matched");
  rebase->add_option("--ledger", rebased.ledger, "replace the lines of what the report's red-once measured");
  rebase->add_flag("--goldens", rebased.goldens, "rewrite each golden image the report's runs drew otherwise");
  rebase->add_flag("--dry-run", rebased.dry_run, "print what would change; write nothing");
  ObserveArgs observed;
  auto* observe = app.add_subcommand("observe", "run a program (and every process it starts) under "
                                                "VK_LAYER_TIDEMARK_observe and a model host each; print their gauges, "
                                                "check bounds");
  observe->add_option("--report", observed.report, "keep result.json, trace.pftrace and the layer's files in DIR");
  observe->add_option("--expect", observed.expect, "a YAML file of gauge bounds: expect: [vkbufspk <= 64, ...] for each "
                                                    "process, whole: [...] for the tree's sums");
  observe->add_option("--fault", observed.faults, "a fault at the Vulkan boundary: hold_frees, never_done (a "
                                                  "program that only polls then never finishes), fail_allocation=N "
                                                  "(repeatable)");
  observe->add_option("--completion", observed.completion, "what the program is shown of GPU progress: "
                                                           "deterministic (default: the same answers every run; the 32nd busy poll in a "
                                                           "row is a point where the layer waits) or real");
  observe->add_option("--only", observed.only, "observe only the processes whose executable or argv[0] file name "
                                               "matches PATTERN (fnmatch: 'vkcube', 'piglit-*'); the others' calls pass through");
  observe->add_option("command", observed.command, "the program and its arguments, after --")->required();
  observe->prefix_command();
  MergeArgs merged;
  auto* merge = app.add_subcommand("merge", "put the report folders of a sharded run back together: one summary "
                                            "(JSON, HTML, JUnit), every shard once, one digest per scenario");
  merge->add_option("dirs", merged.dirs, "report folders, each with its summary.json")->required();
  merge->add_option("--out", merged.out, "where the merged summary goes (default reports/merged-<time>)");
  std::string trace_file;
  auto* trace = app.add_subcommand("trace", "print a Perfetto trace's tracks and rows as Trace Processor imports them");
  trace->add_option("file", trace_file, "a .pftrace file")->required();
  std::vector<std::string> doctor_backends;
  auto* doctor = app.add_subcommand("doctor", "what this machine has for Tidemark, and the package that brings what "
                                              "is missing (exit 3 when a selected backend lacks something)");
  doctor->add_option("--backend", doctor_backends, "a backend to be able to run (repeatable; default: look at "
                                                   "every one, require none)")->allow_extra_args(false);
  std::string driver;
  std::vector<std::string> drivers_files = {"drivers.yaml"};
  app.add_option("--driver", driver, "run on this build of the driver, named in the drivers file: tidemark starts "
                                     "again under its environment and refuses a driver that reports another identity");
  app.add_option("--drivers", drivers_files, "a drivers file naming builds (repeatable; default drivers.yaml)")
      ->allow_extra_args(false);
  bool quiet = false, verbose = false;
  app.add_flag("-q,--quiet", quiet, "print only what failed and the last line; no progress line")->excludes(
      app.add_flag("-v,--verbose", verbose, "also print every check that passed"));
  app.fallthrough();  // `tidemark run --quiet ...` as well as `tidemark --quiet run ...`
  app.parse_complete_callback([&] { verbosity() = quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal; });
  const std::vector<std::pair<CLI::App*, std::function<int()>>> commands = {
      {add_run(app, run), [&] { return run_command(run); }},
      {add_replay(app, replay), [&] { return replay_command(replay); }},
      {add_list(app, list), [&] { return list_command(list); }},
      {add_red_once(app, red_once), [&] { return red_once_command(red_once); }},
      {add_parity(app, parity), [&] { return parity_command(parity); }},
      {add_bench(app, bench), [&] { return bench_command(bench); }},
      {add_soak(app, soak), [&] { return soak_command(soak); }},
      {add_fixture_new(app, fixture), [&] { return fixture_new_command(fixture); }},
      {add_reduce(app, reduce), [&] { return reduce_command(reduce); }},
      {lint, [&] { return lint_command(lint_inputs, lint_expectations); }},
      {compare, [&] { return compare_command(compared); }},
      {rebase, [&] { return rebase_command(rebased); }},
      {capture, [&] { return capture_command(captured); }},
      {mutants, [] { return mutants_command(); }},
      {backends, [] { return backends_command(); }},
      {observe, [&] { return observe_command(observed); }},
      {trace, [&] { return trace_command(trace_file); }},
      {merge, [&] { return merge_command(merged); }},
      {doctor, [&] { return doctor_command(doctor_backends); }},
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? kGreen : kBadInput;
  }
  // `run --backend gl@NAME` is `--driver NAME run --backend gl`: one process is one build.
  for (LaneArgs* lane : {&run.lane, &replay.lane})
    if (auto column = runner::backend_on_build(lane->backend)) {
      if (!driver.empty() && driver != column->build)
        return report_error({ErrorKind::BadInput, fmt::format("--backend {}: expected the build --driver names ({}), "
                                                              "found {}", lane->backend, driver, column->build)});
      driver = column->build;
      lane->backend = column->backend;
    }
  compared.drivers_files = drivers_files;
  tidemark::cli::drivers_files().assign(drivers_files.begin(), drivers_files.end());
  if (!driver.empty()) {
    const std::vector<std::filesystem::path> files(drivers_files.begin(), drivers_files.end());
    if (auto entered = tidemark::drivers::run_under(files, driver, argv); !entered) return report_error(entered.error());
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
