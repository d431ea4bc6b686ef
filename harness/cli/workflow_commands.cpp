// The options of the commands that measure and make: benchmarks, soaks, reductions and new
// fixtures (cli/command_line.h).
#include "cli/command_line.h"

namespace tidemark::cli {

namespace {

CLI::App* add_bench(CLI::App& app, BenchArgs& args) {
  return lazy_subcommand(
      app, "bench", "replay throughput per lane, and the harness's own ns per call above the bare Vulkan floor",
      [&args](CLI::App* bench) {
        add_paths(*bench, args.inputs, "benchmark streams (scenario files), e.g. bench/");
        add_whole_number(*bench, "--repeat", args.repeat, 1, "replays per lane; the median is reported (default 3)");
        bench->add_option("--report", args.report, "where recordings and bench.json go (default build/bench)");
        bench->add_option(
            "--floor", args.floor,
            "the bare Vulkan program whose seconds are subtracted (default: tidemark-vulkan-floor beside tidemark)");
        bench->add_option("--history", args.history,
                          "append the results to this JSON-lines file and plot it in the report");
        bench->add_option("--label", args.label, "what this run measures (e.g. a commit), kept in the history");
      });
}

CLI::App* add_soak(CLI::App& app, SoakArgs& args) {
  return lazy_subcommand(
      app, "soak", "a long workload per lane with client and server memory sampled every N calls",
      [&args](CLI::App* soak) {
        soak->add_option("file", args.file, "one scenario file, e.g. soak/one-present-1300000-calls.yaml")->required();
        soak->add_option("--lane", args.lanes, "lanes to run (default: all four)")->allow_extra_args(false);
        add_whole_number(*soak, "--every", args.every, 1, "calls between samples (default 10000)");
        soak->add_option("--report", args.report,
                         "where soak.json, soak.html and the runs go (default reports/run-<time>)");
        soak->add_option("--max-rss-slope", args.max_rss_slope_kib,
                         "RSS growth bound after warm-up, KiB per million calls")
            ->check(finite_bound());
        soak->add_option("--max-maps-slope", args.max_maps_slope,
                         "mapping growth bound after warm-up, per million calls")
            ->check(finite_bound());
      });
}

CLI::App* add_fixture_new(CLI::App& app, FixtureArgs& args) {
  auto* fixture = app.add_subcommand("fixture", "review must-fixes as fixtures");
  fixture->require_subcommand(1);
  return lazy_subcommand(
      *fixture, "new", "create fixtures/<review-id>/ with a README and a scenario skeleton",
      [&args](CLI::App* fixture_new) {
        fixture_new->add_option("review-id", args.review_id, "the review's id, e.g. ID-P7-43")->required();
        fixture_new->add_option("--root", args.root, "the fixtures folder (default fixtures)");
      });
}

CLI::App* add_reduce(CLI::App& app, ReduceArgs& args) {
  return lazy_subcommand(
      app, "reduce",
      "cut a red scenario (or an apitrace capture fixture) down to the fewest "
      "steps (calls) that stay red under the bug and green under the fix, and "
      "write it as a fixture",
      [&args](CLI::App* reduce) {
        reduce
            ->add_option("input", args.input,
                         "a scenario file, a recording (.tdrec) of one, or a capture fixture "
                         "(NAME.capture.yaml)")
            ->required();
        reduce->add_option("--scenario", args.scenario,
                           "a recording's scenario file (default: the one under scenarios/ "
                           "or fixtures/ its header names)");
        reduce
            ->add_option("--check", args.check,
                         "the check that must stay red under the bug and green without it, "
                         "as a control names it (an expression, pixels[0], waits, kmd.NAME)")
            ->required();
        reduce->add_option("--mutant", args.mutant, "the bug: a mutant (see `tidemark mutants`)");
        reduce->add_option("--knob", args.knobs, "the bug: a knob setting NAME=VALUE (repeatable)")
            ->allow_extra_args(false);
        reduce->add_option("--fault", args.fault,
                           "a capture's bug: a layer fault (hold_frees, never_done, shadow_copies, fail_allocation=N)");
        reduce->add_option("--bug-build", args.bug_build,
                           "a capture's bug: the driver build on which the check is red");
        reduce->add_option("--fix-build", args.fix_build,
                           "a capture's fix: the driver build on which it is green (default "
                           "this process's)");
        reduce->add_option("--out", args.out,
                           "the fixture folder to write (default fixtures/<name>, captures/<name> for a "
                           "capture)");
        reduce->add_option("--name", args.name, "the result's name, a sentence in kebab case (default the input's)");
        reduce->add_option("--ledger", args.ledger, "also put the result's ledger rows into this ledger");
        add_whole_number(*reduce, "--jobs", args.jobs, 1, "candidates judged at once (default one per core)");
        add_whole_number(*reduce, "--budget", args.budget_seconds, 1,
                         "a capture's search budget in seconds (default 600): then, or at Ctrl-C, the best cut "
                         "so far is proven and written");
      });
}

CLI::App* add_bisect(CLI::App& app, BisectArgs& args) {
  return lazy_subcommand(
      app, "bisect",
      "the driver build (of an ordered list) or the commit (of a git range, each built by a command) that made a "
      "subject bad: a check red, a gauge worse, a verdict, a digest changed (terminal, bisect.json, bisect.html)",
      [&args](CLI::App* bisect) {
        bisect->add_option("subject", args.subject, "one scenario file or capture fixture")->required();
        bisect->add_option("--builds", args.builds, "drivers files or folders of them, oldest first (repeatable)")
            ->allow_extra_args(false);
        bisect->add_option("--only", args.only, "only the listed builds whose name this regular expression finds");
        bisect->add_option("--repo", args.repo, "a driver's git repository (never written to)");
        bisect->add_option("--good", args.good, "the revision of --repo that is good");
        bisect->add_option("--bad", args.bad, "the revision of --repo that is bad (a descendant of --good)");
        bisect->add_option("--build", args.build_command,
                           "bash command building the checked-out revision into $TIDEMARK_BISECT_PREFIX; writes "
                           "$TIDEMARK_BISECT_PREFIX/driver.yaml or prints the drivers entry");
        bisect->add_option("--cache", args.cache,
                           "where built revisions are kept (default $XDG_CACHE_HOME/tidemark/bisect)");
        bisect->add_option("--backend", args.backend, "the backend each candidate runs on (default gl)");
        bisect->add_option("--lane", args.lane, "the lane the runs take (default monolith)");
        bisect->add_option("--check", args.check, "bad: this check (its id, gauge[0]) red (default: any red)");
        bisect->add_option("--gauge", args.gauge, "bad: this gauge worse than --worse-than");
        bisect->add_option("--worse-than", args.worse_than, "VALUE[+N|+N%]; VALUE `good`: the good end's");
        bisect->add_option("--verdict", args.verdict, "bad: a run with this verdict (crash, timeout, device-lost)");
        bisect->add_flag("--digest", args.digest, "bad: a digest other than the good end's");
        add_whole_number(*bisect, "--repeat", args.repeat, 1,
                         "runs of each candidate; disagreeing ones: nondeterministic");
        bisect->add_option("--report", args.report, "report folder (default reports/bisect-<time>)");
        add_whole_number(*bisect, "--jobs", args.jobs, 1,
                         "a git range: builds at once, the next candidates while one is judged");
        bisect->add_flag("--reduce", args.reduce,
                         "a capture fixture: reduce it to a fixture red on the first bad and green on the last good");
      });
}

}  // namespace

void add_workflow_commands(CLI::App& app, CommandArgs& args, Commands& commands) {
  commands.emplace_back(add_bench(app, args.bench), [&] { return bench_command(args.bench); });
  commands.emplace_back(add_soak(app, args.soak), [&] { return soak_command(args.soak); });
  commands.emplace_back(add_fixture_new(app, args.fixture), [&] { return fixture_new_command(args.fixture); });
  commands.emplace_back(add_reduce(app, args.reduce), [&] { return reduce_command(args.reduce); });
  commands.emplace_back(add_bisect(app, args.bisect), [&] { return bisect_command(args.bisect); });
}

}  // namespace tidemark::cli
