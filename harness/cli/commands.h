// The tidemark commands, one function each; main.cpp wires them to the command line.
// Exit codes: 0 all green, 1 any red, 2 bad input, 3 environment missing, 4 I/O or internal.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "runner/runner.h"
#include "scenario/scenario.h"
#include "wire/lanes.h"

namespace tidemark::cli {

enum Exit { kGreen = 0, kRed = 1, kBadInput = 2, kEnvironment = 3, kInternal = 4 };

int exit_code(const Error& error);
// Prints `tidemark: <message>` and returns the error's exit code.
int report_error(const Error& error);
// Loads every file before anything runs: nothing runs on a half-valid set.
Result<std::vector<scenario::Scenario>> load_all(const std::vector<std::string>& inputs);
std::filesystem::path default_report_dir();

struct RunArgs {
  std::vector<std::string> knobs;
  std::string report;
  std::string lane = "monolith";
  int repeat = 1;
  bool validation = false;
  std::string server_program;
  std::string connect;
  std::string token_file;
  int handshake_timeout_ms = 20000;
  uint32_t kill_server_at_frame = 0;
  std::string mutant;
  std::string record;
};

int run_command(const std::vector<std::string>& inputs, const RunArgs& args);
int parity_command(const std::vector<std::string>& inputs, const std::string& report, bool with_replay);
int replay_command(const std::string& file, const RunArgs& args, bool compare);
int bench_command(const std::vector<std::string>& inputs, int repeat, const std::string& report);
int red_once_command(const std::vector<std::string>& inputs, const std::vector<std::string>& lanes,
                     const std::string& ledger_path, bool update_ledger, const std::string& report);
int lint_command(const std::vector<std::string>& inputs);
int fixture_new_command(const std::string& review_id, const std::string& root);
int mutants_command();
int list_command(const std::vector<std::string>& inputs, const std::string& ctest_file,
                 const std::string& tidemark, const std::string& report_root, const std::string& ledger);

// Shared by the commands that open lanes.
Result<Lane> parse_lane_option(const std::string& name);
// --lane, --server-program, --connect (+ token), --handshake-timeout-ms, --mutant.
Result<wire::LaneOptions> lane_options_from(const RunArgs& args);
Status check_mutant_name(const std::string& name);

}  // namespace tidemark::cli
