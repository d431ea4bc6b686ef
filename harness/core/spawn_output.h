// posix_spawn's file actions for a program whose stdout and stderr go to one file, released on
// every path (observe's program, a capture's tool).
#pragma once

#include <spawn.h>

#include <filesystem>

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

}  // namespace tidemark
