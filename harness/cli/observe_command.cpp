// `tidemark observe [--report DIR] [--expect FILE] [--fault F]... [--completion real] -- CMD...`:
// runs any program under VK_LAYER_TIDEMARK_observe (the layer built beside tidemark, enabled
// for that process only), then replays the layer's events into a model host of its own — the
// kernel's GPU-memory map for the program's pid, its backend queue, the run trace — prints the
// gauges, writes trace.pftrace and result.json, and checks gauge bounds. The exit code is the
// program's own when it failed, else 1 when a bound failed.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "core/files.h"
#include "host/model_host.h"
#include "layer/link.h"
#include "layer/settings.h"
#include "scenario/gauge_bounds.h"

extern char** environ;

namespace tidemark::cli {

namespace {

namespace fs = std::filesystem;

// The environment of the child: ours, with the layer enabled, its folder and settings named.
std::vector<std::string> observed_environment(const fs::path& layer_dir, const fs::path& report,
                                              const std::string& settings) {
  std::vector<std::string> out;
  std::string add_path = layer_dir.string(), layers = TIDEMARK_LAYER_NAME;
  for (char** entry = environ; *entry; ++entry) {
    std::string_view variable(*entry);
    // append, not `":" + std::string(...)`: GCC 12 at -O3 warns on that (-Wrestrict, a false positive)
    if (variable.starts_with("VK_ADD_LAYER_PATH=")) add_path.append(":").append(variable.substr(18));
    else if (variable.starts_with("VK_INSTANCE_LAYERS=")) layers.append(":").append(variable.substr(19));
    else if (!variable.starts_with("TIDEMARK_LAYER_")) out.emplace_back(variable);
  }
  out.push_back("VK_ADD_LAYER_PATH=" + add_path);
  out.push_back("VK_INSTANCE_LAYERS=" + layers);
  out.push_back("TIDEMARK_LAYER_REPORT=" + report.string());
  out.push_back("TIDEMARK_LAYER_SETTINGS=" + settings);
  return out;
}

struct Child {
  pid_t pid = 0;
  int exit_code = 0;
};

Result<Child> run_observed(const std::vector<std::string>& command, const std::vector<std::string>& environment) {
  std::vector<char*> argv, envp;
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  Child child;
  if (int error = posix_spawnp(&child.pid, argv[0], nullptr, nullptr, argv.data(), envp.data()); error != 0)
    return fail(ErrorKind::BadInput, fmt::format("observe: cannot start '{}': {}", command[0], std::strerror(error)));
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0)
    if (errno != EINTR) return fail(ErrorKind::Io, "observe: waitpid failed");
  child.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return child;
}

// The layer's events, in order, into a model host: memory for the program's pid, each submit a
// packet on the backend queue, each wait the layer saw finish the kernel's time for it.
struct Replayed {
  KernelGauges kernel;
  std::string trace;
  int64_t events = 0;
};

Result<Replayed> replay_events(const fs::path& file, uint32_t pid) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(ErrorKind::Environment, fmt::format("observe: the layer wrote no events ({})", file.string()));
  api::ModelConfig config;
  config.kernel_pid = pid;
  host::ModelHost host(config, MutantId::None);
  Replayed replayed;
  // The trace starts at the program's first submit: what it allocated before is the memory
  // data source's snapshot, the process's baseline (without one the importer drops its events).
  bool started = false;
  auto start = [&](int64_t bytes) {
    if (!std::exchange(started, true)) host.started({.device_bytes = bytes});
  };
  int64_t reported = 0;
  std::unordered_map<uint64_t, std::vector<uint64_t>> kernel_fences;  // per queue, by submit number
  TidemarkLayerEvent event{};
  while (in.read(reinterpret_cast<char*>(&event), sizeof event)) {
    ++replayed.events;
    switch (event.kind) {
      case TIDEMARK_EVENT_ALLOCATED:
      case TIDEMARK_EVENT_FREED: {
        const bool allocated = event.kind == TIDEMARK_EVENT_ALLOCATED;
        reported += (allocated ? 1 : -1) * static_cast<int64_t>(event.size);
        host.memory_changed({.allocated = allocated,
                             .type = static_cast<MemoryType>(event.type),
                             .id = event.id,
                             .size = event.size,
                             .claimed_bytes = reported});
        break;
      }
      case TIDEMARK_EVENT_SUBMITTED:
        start(reported);
        kernel_fences[event.id].push_back(host.queue_submitted());
        host.sample({.device_bytes = reported});
        break;
      case TIDEMARK_EVENT_RETIRED: {
        const auto& fences = kernel_fences[event.id];
        if (event.size >= 1 && event.size <= fences.size() && fences[event.size - 1] != 0)
          host.wait_retired(fences[event.size - 1], 1'000'000'000);
        break;
      }
      default: break;  // a device's creation: nothing for the host
    }
  }
  start(reported);
  TIDEMARK_TRY(kernel, host.kernel_gauges());
  replayed.kernel = kernel;
  TIDEMARK_TRY(trace, host.run_trace());
  replayed.trace = std::string(trace);
  return replayed;
}

ObservedGauges observed_from_report(const nlohmann::json& all) {
  auto count = [&](const char* kind) {
    const auto& c = all[kind];
    return TidemarkLayerCount{c.value("live", int64_t{0}), c.value("peak", int64_t{0}), c.value("total", int64_t{0})};
  };
  TidemarkLayerGauges g{};
  g.buffers = count("buffers");
  g.images = count("images");
  g.memory = count("memory_allocations");
  g.memory_bytes = count("memory_bytes");
  g.bound_bytes = count("bound_bytes");
  g.descriptor_pools = count("descriptor_pools");
  g.descriptor_sets = count("descriptor_sets");
  g.command_buffers = count("command_buffers");
  g.submits = all.value("queue_submits", int64_t{0});
  g.polls_done = all["polls"].value("done", int64_t{0});
  g.polls_busy = all["polls"].value("busy", int64_t{0});
  g.waits_done = all["waits"].value("done", int64_t{0});
  g.waits_timed_out = all["waits"].value("timed_out", int64_t{0});
  g.waits_lost = all["waits"].value("lost", int64_t{0});
  g.frees_held = all.value("frees_held", int64_t{0});
  g.allocations_refused = all.value("allocations_refused", int64_t{0});
  return layer::to_observed(g);
}

void write_file(const fs::path& file, std::string_view bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int observe_command(const ObserveArgs& args) {
  if (args.command.empty()) return report_error({ErrorKind::BadInput, "observe: expected a program after --, found none"});
  std::string settings_text = fmt::format("{}", fmt::join(args.faults, ","));
  if (!args.completion.empty()) {
    if (!settings_text.empty()) settings_text.append(",");
    settings_text.append("completion=").append(args.completion);
  }
  if (auto settings = layer::parse_settings(settings_text); !settings)
    return report_error({ErrorKind::BadInput, fmt::format("observe: --fault/--completion: {}", settings.error())});
  std::vector<scenario::GaugeCheck> bounds;
  if (!args.expect.empty()) {
    auto loaded = scenario::load_gauge_bounds(args.expect);
    if (!loaded) return report_error(loaded.error());
    bounds = std::move(*loaded);
  }
  fs::path layer_dir = layer::layer_dir();
  if (!fs::exists(layer_dir / "VkLayer_tidemark_observe.json"))
    return report_error({ErrorKind::Environment,
                         fmt::format("observe: expected the layer's manifest in {}, found none", layer_dir.string())});
  const bool keep = !args.report.empty();
  fs::path report = keep ? fs::path(args.report) : fs::temp_directory_path() / fmt::format("tidemark-observe-{}", ::getpid());
  std::error_code ec;
  fs::create_directories(report / "layer", ec);
  if (ec) return report_error({ErrorKind::Io, fmt::format("observe: cannot make {}: {}", report.string(), ec.message())});
  auto cleanup = [&] {
    if (!keep) fs::remove_all(report, ec);
  };

  auto child = run_observed(args.command, observed_environment(layer_dir, report / "layer", settings_text));
  if (!child) {
    cleanup();
    return report_error(child.error());
  }
  auto text = read_given_file(report / "layer" / "layer.json", "layer report");
  if (!text) {
    cleanup();
    return report_error({ErrorKind::Environment, fmt::format("observe: '{}' made no Vulkan device under the layer "
                                                             "(or the loader did not load it)",
                                                             args.command[0])});
  }
  auto layer_report = nlohmann::json::parse(*text, nullptr, false);
  ObservedGauges observed = observed_from_report(layer_report["all"]);
  auto replayed = replay_events(report / "layer" / "events.bin", static_cast<uint32_t>(child->pid));
  if (!replayed) {
    cleanup();
    return report_error(replayed.error());
  }

  fmt::print("VK_LAYER_TIDEMARK_observe under '{}' (exit {}, {} device{}):\n", args.command[0], child->exit_code,
             layer_report["devices"].size(), layer_report["devices"].size() == 1 ? "" : "s");
  const auto& all = layer_report["all"];
  fmt::print("{:<20} {:>12} {:>12} {:>14}\n", "", "live", "peak", "total");
  for (const char* kind : {"buffers", "images", "memory_allocations", "memory_bytes", "bound_bytes", "descriptor_pools",
                           "descriptor_sets", "command_buffers"}) {
    const auto& g = all[kind];
    fmt::print("{:<20} {:>12} {:>12} {:>14}\n", kind, g.value("live", 0), g.value("peak", 0), g.value("total", 0));
  }
  fmt::print("{:<20} {:>40}\n", "queue_submits", all.value("queue_submits", 0));
  fmt::print("polls: {} done, {} busy; waits: {} done, {} timed out, {} lost\n", observed.vkpollsdone,
             observed.vkpollsbusy, observed.vkwaitsdone, observed.vkwaitstimeout, observed.vkwaitslost);
  fmt::print("kernel model (pid {}): map entry {} bytes, {} gpu_mem_total events, {} packets on the backend queue\n",
             child->pid, replayed->kernel.kpid, replayed->kernel.kevents, replayed->kernel.kbsubmits);

  std::map<std::string, int64_t> values;
  for (const auto& [name, value] : named(observed)) values[name] = value;
  for (const auto& [name, value] : named(replayed->kernel)) values[name] = value;
  auto lookup = [&](std::string_view name) -> std::optional<int64_t> {
    auto found = values.find(std::string(name));
    return found == values.end() ? std::nullopt : std::optional<int64_t>(found->second);
  };
  nlohmann::json checks = nlohmann::json::array();
  int failed = 0;
  for (const auto& bound : bounds) {
    auto compared = bound.expr.compare(lookup);
    bool holds = compared && compared->holds;
    std::string detail = compared ? fmt::format("{} = {}, bound {} {}", compared->left_text, compared->left,
                                                compared->op, compared->right)
                                  : compared.error().message;
    fmt::print("{} {} ({})\n", holds ? "PASS" : "FAIL", bound.expr.text(), detail);
    failed += holds ? 0 : 1;
    checks.push_back({{"check", bound.expr.text()}, {"passed", holds}, {"detail", detail}});
  }

  write_file(report / "trace.pftrace", replayed->trace);
  nlohmann::json result{{"command", args.command},
                        {"exit_code", child->exit_code},
                        {"pid", child->pid},
                        {"settings", settings_text},
                        {"observed_gauges", values},
                        {"layer", layer_report},
                        {"checks", checks}};
  for (const auto& [name, value] : named(replayed->kernel)) {
    result["kernel_gauges"][name] = value;
    result["observed_gauges"].erase(name);
  }
  write_file(report / "result.json", result.dump(2) + "\n");
  if (keep) fmt::print("report: {}\n", report.string());
  cleanup();
  if (child->exit_code != 0) return child->exit_code;
  return failed > 0 ? 1 : 0;
}

}  // namespace tidemark::cli
