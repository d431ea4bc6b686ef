#include "core/spawn_output.h"

#include <fcntl.h>

namespace tidemark {

SpawnOutput::SpawnOutput(const std::filesystem::path& file) {
  posix_spawn_file_actions_init(&actions_);
  if (file.empty()) return;
  posix_spawn_file_actions_addopen(&actions_, 1, file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions_, 1, 2);
}

SpawnOutput::~SpawnOutput() { posix_spawn_file_actions_destroy(&actions_); }

}  // namespace tidemark
