// tidemark: the command line. Each command is a function in commands.h.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

using namespace tidemark;
using namespace tidemark::cli;

int main(int argc, char** argv) {
  CLI::App app{"Tidemark: deterministic replay and regression harness for GPU driver stacks"};
  app.require_subcommand(1);

  std::vector<std::string> inputs;
  RunArgs args;
  auto* run = app.add_subcommand("run", "run scenarios and check them");
  run->add_option("paths", inputs, "scenario files or folders")->required();
  run->add_option("--knob", args.knobs, "override a knob: NAME=VALUE (repeatable)")->allow_extra_args(false);
  run->add_option("--report", args.report, "report folder (default reports/run-<time>)");
  run->add_option("--lane", args.lane, "monolith, split, spawn or tcp");
  run->add_option("--repeat", args.repeat, "run each scenario N times; all must give one digest");
  run->add_flag("--validation", args.validation, "enable VK_LAYER_KHRONOS_validation; any message is red");
  run->add_option("--server-program", args.server_program, "tidemark-server for spawn and tcp (default: beside tidemark)");
  run->add_option("--connect", args.connect, "tcp: use the server at HOST:PORT instead of a private one");
  run->add_option("--token-file", args.token_file, "tcp with --connect: the session token (else TIDEMARK_TOKEN)");
  run->add_option("--handshake-timeout-ms", args.handshake_timeout_ms, "how long a server may take to greet");
  run->add_option("--mutant", args.mutant, "red-once: run with this mutant (see `tidemark mutants`)");
  run->add_option("--record", args.record, "record each session: FILE.tdrec (one scenario) or a folder");
  run->add_option("--kill-server-at-frame", args.kill_server_at_frame,
                  "fault injection: SIGKILL the spawn/tcp server before sending frame N");

  std::string ctest_file;
  std::string tidemark_path;
  std::string report_root;
  auto* list = app.add_subcommand("list", "list scenarios by test name");
  list->add_option("paths", inputs, "scenario files or folders")->required();
  list->add_option("--ctest-file", ctest_file, "write CTest registrations to this file");
  list->add_option("--tidemark", tidemark_path, "tidemark binary the registrations run");
  list->add_option("--report-root", report_root, "report folder root for the registered runs");
  std::string list_ledger = "red_once/ledger.txt";
  list->add_option("--ledger", list_ledger, "the ledger the registered red-once tests check");

  std::vector<std::string> red_once_lanes;
  std::string ledger = "red_once/ledger.txt";
  bool update_ledger = false;
  std::string red_once_report;
  auto* red_once = app.add_subcommand("red-once", "prove each scenario's checks with its negative controls");
  red_once->add_option("paths", inputs, "scenario files or folders")->required();
  red_once->add_option("--lane", red_once_lanes, "lanes to run (default: all four)")->allow_extra_args(false);
  red_once->add_option("--ledger", ledger, "the ledger file (default red_once/ledger.txt)");
  red_once->add_flag("--update-ledger", update_ledger, "rewrite the ledger lines of these scenarios");
  red_once->add_option("--report", red_once_report, "report folder (default reports/run-<time>)");

  auto* lint = app.add_subcommand("lint", "check that scenarios and the mutant catalogue fit together");
  lint->add_option("paths", inputs, "scenario files or folders")->required();
  auto* mutants = app.add_subcommand("mutants", "print the mutant catalogue of this build (Markdown)");

  std::string replay_file;
  RunArgs replay_args;
  bool no_compare = false;
  auto* replay = app.add_subcommand("replay", "replay a recording in a lane and check every reply");
  replay->add_option("file", replay_file, "a .tdrec recording")->required();
  replay->add_option("--lane", replay_args.lane, "monolith, split, spawn or tcp");
  replay->add_option("--server-program", replay_args.server_program, "tidemark-server for spawn and tcp");
  replay->add_option("--connect", replay_args.connect, "tcp: use the server at HOST:PORT");
  replay->add_option("--token-file", replay_args.token_file, "tcp with --connect: the session token");
  replay->add_option("--handshake-timeout-ms", replay_args.handshake_timeout_ms, "how long a server may take to greet");
  replay->add_flag("--no-compare", no_compare, "send the requests without checking the replies");
  replay->add_option("--mutant", replay_args.mutant, "replay against this mutant instead of the recorded one");

  int bench_repeat = 3;
  std::string bench_report;
  auto* bench = app.add_subcommand("bench", "replay throughput per lane (commands/s, ratio to monolith)");
  bench->add_option("paths", inputs, "benchmark streams (scenario files), e.g. bench/")->required();
  bench->add_option("--repeat", bench_repeat, "replays per lane; the median is reported (default 3)");
  bench->add_option("--report", bench_report, "where recordings and bench.json go (default build/bench)");

  auto* fixture = app.add_subcommand("fixture", "review must-fixes as fixtures");
  auto* fixture_new = fixture->add_subcommand("new", "create fixtures/<review-id>/ with a README and a scenario skeleton");
  std::string review_id;
  std::string fixtures_root = "fixtures";
  fixture_new->add_option("review-id", review_id, "the review's id, e.g. ID-P7-43")->required();
  fixture_new->add_option("--root", fixtures_root, "the fixtures folder (default fixtures)");
  fixture->require_subcommand(1);

  std::string parity_report;
  auto* parity = app.add_subcommand("parity", "run every scenario in every lane; digests must agree");
  parity->add_option("paths", inputs, "scenario files or folders")->required();
  parity->add_option("--report", parity_report, "report folder (default reports/run-<time>)");
  bool parity_replay = false;
  parity->add_flag("--replay", parity_replay, "also record each scenario and replay it in every lane");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? kGreen : kBadInput;
  }
  if (*run) return run_command(inputs, args);
  if (*parity) return parity_command(inputs, parity_report, parity_replay);
  if (*red_once) return red_once_command(inputs, red_once_lanes, ledger, update_ledger, red_once_report);
  if (*lint) return lint_command(inputs);
  if (*mutants) return mutants_command();
  if (*fixture_new) return fixture_new_command(review_id, fixtures_root);
  if (*replay) return replay_command(replay_file, replay_args, !no_compare);
  if (*bench) return bench_command(inputs, bench_repeat, bench_report);
  return list_command(inputs, ctest_file, tidemark_path, report_root, list_ledger);
}
