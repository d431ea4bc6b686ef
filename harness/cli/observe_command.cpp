// `tidemark observe [--report DIR] [--expect FILE] [--only PATTERN] [--fault F]... [--completion
// real] -- CMD...`: the library (observe/observe.h) runs the program tree under the layer and
// judges the bounds; this prints each process and the whole, and maps the exit code.
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include "cli/commands.h"
#include "core/progress.h"
#include "core/temporaries.h"
#include "layer/link.h"
#include "layer/settings.h"
#include "observe/observe.h"
#include "renderer/renderer_server.h"

namespace tidemark::cli {

namespace {

namespace fs = std::filesystem;

void print_process(const observe::Process& process) {
  std::string command = fmt::format("{}", fmt::join(process.command, " "));
  if (command.size() > 60) command = command.substr(0, 57) + "...";
  fmt::print("pid {} (parent {}) {}: {}", process.pid, process.parent, observe::name_of(process.kind), command);
  if (process.forked_from) fmt::print(" [forked from {}]", process.forked_from);
  if (process.kind == observe::ProcessKind::Vulkan)
    fmt::print(" — {} device{}{}", process.devices, process.devices == 1 ? "" : "s",
               process.reported ? "" : ", ended without its report (killed, or _exit): its counts as of its last call");
  fmt::print("\n");
}

void print_gauges(const ObservedGauges& g, const KernelGauges& k) {
  fmt::print("  {:<20} {:>12} {:>12} {:>14}\n", "", "live", "peak", "total");
  auto row = [](const char* what, int64_t live, int64_t peak, std::optional<int64_t> total) {
    fmt::print("  {:<20} {:>12} {:>12} {:>14}\n", what, live, peak, total ? fmt::format("{}", *total) : "");
  };
  row("buffers", g.vkbufs, g.vkbufspk, g.vkbufsmade);
  row("images", g.vkimages, g.vkimagespk, std::nullopt);
  row("memory_allocations", g.vkallocs, g.vkallocspk, g.vkallocsmade);
  row("memory_bytes", g.vkbytes, g.vkbytespk, std::nullopt);
  row("bound_bytes", g.vkbound, g.vkboundpk, std::nullopt);
  row("descriptor_sets", g.vkdsets, g.vkdsetspk, g.vkdsetsalloc);
  row("command_buffers", g.vkcmdbufs, g.vkcmdbufspk, std::nullopt);
  fmt::print("  queue_submits {}; polls: {} done, {} busy; waits: {} done, {} timed out, {} lost\n", g.vksubmits,
             g.vkpollsdone, g.vkpollsbusy, g.vkwaitsdone, g.vkwaitstimeout, g.vkwaitslost);
  fmt::print("  kernel model: map entry {} bytes, {} gpu_mem_total events, {} packets on the backend queue\n", k.kpid,
             k.kevents, k.kbsubmits);
}

}  // namespace

int observe_command(const ObserveArgs& args) {
  std::string settings = fmt::format("{}", fmt::join(args.faults, ","));
  if (!args.completion.empty())
    settings.append(settings.empty() ? "" : ",").append("completion=").append(args.completion);
  if (auto parsed = layer::parse_settings(settings); !parsed)
    return report_error({ErrorKind::BadInput, fmt::format("observe: --fault/--completion: {}", parsed.error())});
  scenario::GaugeBounds bounds;
  if (!args.expect.empty()) {
    auto loaded = scenario::load_gauge_bounds(args.expect);
    if (!loaded) return report_error(loaded.error());
    bounds = std::move(*loaded);
  }
  observe::Options options{
      .command = args.command, .settings = settings, .only = args.only, .layer_dir = layer::layer_dir()};
  options.bounds = apply(TimeBounds{}, args.time_bounds);
  if (!fs::exists(options.layer_dir / "VkLayer_tidemark_observe.json"))
    return report_error({ErrorKind::Environment, fmt::format("observe: expected the layer's manifest in {}, found none",
                                                             options.layer_dir.string())});
  std::optional<TemporaryFolder> unkept;  // no --report: the layer's records go where nothing stays
  if (args.report.empty()) {
    auto made = TemporaryFolder::make("observe");
    if (!made) return report_error(made.error());
    unkept = std::move(*made);
  }
  options.report = unkept ? unkept->path() : fs::path(args.report);

  Progress progress = Progress::for_stdout("observe", 1, verbosity());
  options.on_live = [&](const observe::Live& live) {
    progress.start(fmt::format("{} calls, {} live buffers, {} process{}", live.calls, live.live_buffers, live.processes,
                               live.processes == 1 ? "" : "es"));
  };
  auto observation = renderer::observe(options);
  progress.close();
  if (!observation) return report_error(observation.error());
  auto outcomes = observe::judge(*observation, bounds);

  fmt::print("VK_LAYER_TIDEMARK_observe under '{}' (exit {}, {} process{}):\n", args.command[0], observation->exit_code,
             observation->processes.size(), observation->processes.size() == 1 ? "" : "es");
  size_t vulkan = 0;
  for (const auto& process : observation->processes) {
    print_process(process);
    if (process.kind != observe::ProcessKind::Vulkan) continue;
    ++vulkan;
    print_gauges(process.observed, process.kernel);
  }
  if (vulkan > 1) {
    fmt::print("whole ({} processes with a device; peaks summed):\n", vulkan);
    print_gauges(observation->whole_observed, observation->whole_kernel);
  }
  if (vulkan > 1) fmt::print("kernel map of the tree at the end:\n{}", observation->kernel_map);
  if (observation->wire) {
    fmt::print("wire (the tap between the program and its server):");
    for (const auto& [name, value] : *observation->wire) fmt::print(" {}={}", name, value);
    fmt::print("\n");
  }
  if (!observation->server_ended.empty()) fmt::print("{}\n", observation->server_ended);
  if (observation->timeout)
    fmt::print("TIMEOUT: '{}' {}; it and every process it started were killed\n", args.command[0],
               report::describe(*observation->timeout));
  for (const auto& outcome : outcomes)
    fmt::print("{} {} [{}] ({})\n", outcome.passed ? "PASS" : "FAIL", outcome.check, outcome.scope, outcome.detail);
  const report::ReasonedVerdict came_to = observe::verdict_of(*observation, outcomes);
  fmt::print("{}{}\n", report::verdict_label(came_to.verdict), came_to.why.empty() ? "" : ": " + came_to.why);
  if (auto written = observe::write_report(*observation, outcomes, options.report); !written)
    return report_error(written.error());
  if (!unkept) fmt::print("report: {}\n", options.report.string());
  const int code = observe::exit_code(*observation, outcomes);
  if (code == 3)
    report_error({ErrorKind::Environment, fmt::format("observe: '{}' made no Vulkan device under the layer (or the "
                                                      "loader did not load it)",
                                                      args.command[0])});
  return code;
}

}  // namespace tidemark::cli
