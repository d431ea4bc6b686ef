// `tidemark observe -- CMD...`: runs any program under VK_LAYER_TIDEMARK_observe (the layer
// built beside tidemark, enabled for that process only) and prints what the layer counted:
// live, peak and total buffers, images, device memory allocations and bytes, queue submits.
// The exit code is the program's own.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli/commands.h"
#include "core/files.h"

extern char** environ;

namespace tidemark::cli {

namespace {

namespace fs = std::filesystem;

// The environment of the child: ours, with the layer enabled and its report file named.
std::vector<std::string> observed_environment(const fs::path& layer_dir, const fs::path& report) {
  std::vector<std::string> out;
  std::string add_path = layer_dir.string(), layers = "VK_LAYER_TIDEMARK_observe";
  for (char** entry = environ; *entry; ++entry) {
    std::string_view variable(*entry);
    // append, not `":" + std::string(...)`: GCC 12 at -O3 warns on that (-Wrestrict, a false positive)
    if (variable.starts_with("VK_ADD_LAYER_PATH=")) add_path.append(":").append(variable.substr(18));
    else if (variable.starts_with("VK_INSTANCE_LAYERS=")) layers.append(":").append(variable.substr(19));
    else if (!variable.starts_with("TIDEMARK_LAYER_REPORT=")) out.emplace_back(variable);
  }
  out.push_back("VK_ADD_LAYER_PATH=" + add_path);
  out.push_back("VK_INSTANCE_LAYERS=" + layers);
  out.push_back("TIDEMARK_LAYER_REPORT=" + report.string());
  return out;
}

Result<int> run_observed(const std::vector<std::string>& command, const std::vector<std::string>& environment) {
  std::vector<char*> argv, envp;
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t child = 0;
  if (int error = posix_spawnp(&child, argv[0], nullptr, nullptr, argv.data(), envp.data()); error != 0)
    return fail(ErrorKind::BadInput, fmt::format("observe: cannot start '{}': {}", command[0], std::strerror(error)));
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return fail(ErrorKind::Io, "observe: waitpid failed");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int observe_command(const std::vector<std::string>& command) {
  if (command.empty()) return report_error({ErrorKind::BadInput, "observe: expected a program after --, found none"});
  fs::path layer_dir = this_executable_dir() / "layer";
  if (!fs::exists(layer_dir / "VkLayer_tidemark_observe.json"))
    return report_error({ErrorKind::Environment,
                         fmt::format("observe: expected the layer's manifest in {}, found none", layer_dir.string())});
  fs::path report = fs::temp_directory_path() / fmt::format("tidemark-observe-{}.json", ::getpid());
  auto exit_code = run_observed(command, observed_environment(layer_dir, report));
  if (!exit_code) return report_error(exit_code.error());
  auto text = read_given_file(report, "layer report");
  std::error_code ec;
  fs::remove(report, ec);
  if (!text)
    return report_error({ErrorKind::Environment, fmt::format("observe: '{}' made no Vulkan device under the layer "
                                                             "(or the loader did not load it)",
                                                             command[0])});
  auto gauges = nlohmann::json::parse(*text, nullptr, false);
  fmt::print("VK_LAYER_TIDEMARK_observe under '{}' (exit {}):\n", command[0], *exit_code);
  fmt::print("{:<20} {:>12} {:>12} {:>14}\n", "", "live", "peak", "total");
  for (const char* kind : {"buffers", "images", "memory_allocations", "memory_bytes", "descriptor_pools", "descriptor_sets"}) {
    const auto& g = gauges[kind];
    fmt::print("{:<20} {:>12} {:>12} {:>14}\n", kind, g.value("live", 0), g.value("peak", 0), g.value("total", 0));
  }
  fmt::print("{:<20} {:>40}\n", "queue_submits", gauges.value("queue_submits", 0));
  return *exit_code;
}

}  // namespace tidemark::cli
