// posix_spawn's file actions for a program whose stdout and stderr go to one file, released on
// every path (observe's program, a capture's tool).
#pragma once

#include <spawn.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace tidemark {

class SpawnOutput {
 public:
  // `file` empty: the program keeps this process's stdout and stderr.
  explicit SpawnOutput(const std::filesystem::path& file);
  ~SpawnOutput();
  SpawnOutput(const SpawnOutput&) = delete;
  SpawnOutput& operator=(const SpawnOutput&) = delete;
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

// Runs `command` (found on PATH) with `environment` added to this process's, its stdout and stderr
// into `log`, to its end: its exit code (128 + N for signal N). An Environment error when it
// cannot be started, `hint` appended (what to install).
Result<int> run_to_file(const std::vector<std::string>& command,
                        const std::vector<std::pair<std::string, std::string>>& environment,
                        const std::filesystem::path& log, std::string_view hint = {});

}  // namespace tidemark
