#include "core/spawn_output.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace tidemark {

SpawnOutput::SpawnOutput(const std::filesystem::path& file) {
  posix_spawn_file_actions_init(&actions_);
  if (file.empty()) return;
  posix_spawn_file_actions_addopen(&actions_, 1, file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions_, 1, 2);
}

SpawnOutput::~SpawnOutput() { posix_spawn_file_actions_destroy(&actions_); }

Result<int> run_to_file(const std::vector<std::string>& command,
                        const std::vector<std::pair<std::string, std::string>>& environment,
                        const std::filesystem::path& log, std::string_view hint) {
  std::vector<std::string> variables;
  for (char** entry = environ; *entry; ++entry) variables.emplace_back(*entry);
  for (const auto& [name, value] : environment) variables.push_back(name + "=" + value);
  std::vector<char*> argv, envp;
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  for (const auto& variable : variables) envp.push_back(const_cast<char*>(variable.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const SpawnOutput output(log);
  pid_t pid = 0;
  if (int error = posix_spawnp(&pid, argv[0], output.actions(), nullptr, argv.data(), envp.data()); error != 0)
    return fail(ErrorKind::Environment, fmt::format("cannot start '{}': {}{}", command[0], std::strerror(error), hint));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace tidemark
