// The options of the commands over programs, reports and this build (cli/command_line.h).
#include "cli/command_line.h"

namespace tidemark::cli {

void add_program_commands(CLI::App& app, CommandArgs& args, Commands& commands) {
  auto* capture = lazy_subcommand(
      app, "capture",
      "capture a program (apitrace on Zink, or GFXReconstruct with --vulkan) "
      "under the deterministic driver settings, and write it as a capture "
      "fixture whose bounds its replay measured, its controls proven red",
      [&args](CLI::App* capture) {
        capture->add_flag("--vulkan", args.capture.vulkan,
                          "a Vulkan program: capture with GFXReconstruct (default: GL, apitrace)");
        capture->add_option("--out", args.capture.out, "the folder for the capture and its fixture (default captures)");
        capture->add_option("--name", args.capture.name, "the fixture's name, in kebab case")->required();
        capture->add_option("--group", args.capture.group, "the fixture's group, in kebab case (default captures)");
        add_program(*capture, args.capture.command);
      });
  commands.emplace_back(capture, [&] { return capture_command(args.capture); });
  auto* observe = lazy_subcommand(
      app, "observe",
      "run a program (and every process it starts) under "
      "VK_LAYER_TIDEMARK_observe and a model host each; print their gauges, "
      "check bounds",
      [&args](CLI::App* observe) {
        observe->add_option("--report", args.observe.report,
                            "keep result.json, trace.pftrace and the layer's files in DIR");
        observe->add_option("--expect", args.observe.expect,
                            "a YAML file of gauge bounds: expect: [vkbufspk <= 64, ...] for each "
                            "process, whole: [...] for the tree's sums");
        observe->add_option("--fault", args.observe.faults,
                            "a fault at the Vulkan boundary: hold_frees, never_done (a "
                            "program that only polls then never finishes), shadow_copies (every buffer "
                            "and allocation made twice), fail_allocation=N, drop_draw=N (the Nth draw "
                            "recorded never reaches the driver) (repeatable)");
        observe->add_option("--completion", args.observe.completion,
                            "what the program is shown of GPU progress: "
                            "deterministic (default: the same answers every run; the 32nd busy poll in a "
                            "row is a point where the layer waits) or real");
        observe->add_option("--only", args.observe.only,
                            "observe only the processes whose executable or argv[0] file name "
                            "matches PATTERN (fnmatch: 'vkcube', 'piglit-*'); the others' calls pass through");
        add_time_options(*observe, args.observe.time_bounds);
        add_program(*observe, args.observe.command);
      });
  commands.emplace_back(observe, [&] { return observe_command(args.observe); });
  auto* rebase = lazy_subcommand(
      app, "rebase",
      "after a reviewed change, bring the baseline, the expectations' measured "
      "values, the ledger and the goldens up to a report folder (refused when "
      "it is incomplete, has an unexpected red, or its scenarios changed)",
      [&args](CLI::App* rebase) {
        rebase
            ->add_option("report", args.rebase.report,
                         "a report folder (summary.json, red-once.json), e.g. a CI artifact")
            ->required();
        rebase->add_option("--baseline", args.rebase.baseline,
                           "the baseline folder whose summary.json becomes the report's runs");
        rebase->add_option("--expectations", args.rebase.expectations,
                           "rewrite the measured values of the lines the report's "
                           "known failures matched");
        rebase->add_option("--ledger", args.rebase.ledger, "replace the lines of what the report's red-once measured");
        rebase->add_flag("--goldens", args.rebase.goldens,
                         "rewrite each golden image the report's runs drew otherwise");
        rebase->add_flag("--dry-run", args.rebase.dry_run, "print what would change; write nothing");
      });
  commands.emplace_back(rebase, [&] { return rebase_command(args.rebase); });
  auto* merge = lazy_subcommand(
      app, "merge",
      "put the report folders of a sharded run back together: one summary "
      "(JSON, HTML, JUnit), every shard once, one digest per scenario",
      [&args](CLI::App* merge) {
        merge->add_option("dirs", args.merge.dirs, "report folders, each with its summary.json")->required();
        merge->add_option("--out", args.merge.out, "where the merged summary goes (default reports/merged-<time>)");
      });
  commands.emplace_back(merge, [&] { return merge_command(args.merge); });
  auto* trace = lazy_subcommand(
      app, "trace", "print a Perfetto trace's tracks and rows as Trace Processor imports them",
      [&args](CLI::App* trace) { trace->add_option("file", args.trace_file, "a .pftrace file")->required(); });
  commands.emplace_back(trace, [&] { return trace_command(args.trace_file); });
  auto* doctor = lazy_subcommand(app, "doctor",
                                 "what this machine has for Tidemark, and the package that brings what "
                                 "is missing (exit 3 when a selected backend lacks something)",
                                 [&args](CLI::App* doctor) {
                                   doctor
                                       ->add_option("--backend", args.doctor_backends,
                                                    "a backend to be able to run (repeatable; default: look at "
                                                    "every one, require none)")
                                       ->allow_extra_args(false);
                                 });
  commands.emplace_back(doctor, [&] { return doctor_command(args.doctor_backends); });
  auto* mutants = app.add_subcommand("mutants", "print the mutant catalogue of this build (Markdown)");
  auto* backends =
      app.add_subcommand("backends", "print the backends of this build and the gauges each gives (Markdown)");
  commands.emplace_back(mutants, [] { return mutants_command(); });
  commands.emplace_back(backends, [] { return backends_command(); });
}

}  // namespace tidemark::cli
