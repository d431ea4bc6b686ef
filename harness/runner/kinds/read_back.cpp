#include "runner/kinds/read_back.h"

#include <utility>

#include "drivers/driver_builds.h"
#include "runner/kinds/executor.h"

namespace tidemark::runner {

bool reads_observed_gauges(const scenario::Scenario& scenario) {
  return scenario.session.layer.on || scenario.reads_back(scenario::ReadBack::ObservedGauges);
}

Status drive(const scenario::Scenario& scenario, api::Device& api, api::Model& model, check::ReadBack& result,
             uint64_t probe_every, std::function<void(uint64_t)> probe) {
  if (auto ran = execute_workload(scenario, api, model, result.waits, probe_every, std::move(probe)); !ran) return ran;
  TIDEMARK_TRY(image, api.read_pixels());
  result.image = std::move(image);
  TIDEMARK_TRY(gauges, api.gauges());
  result.gauges = gauges;
  // Only a build with a server has a wire to tap: a run on any other asks nothing more than before.
  // Read first, after the read-back's round trip: the session feeds what the server and its wire
  // recorded into its model then (renderer/server_records.h), before any of the model is read.
  TIDEMARK_TRY(build, drivers::active_build());
  if (build && build->server) {
    TIDEMARK_TRY(wire, model.wire_gauges());
    if (!wire.empty()) result.wire_gauges = std::move(wire);
  }
  if (scenario.uses_kernel()) {
    TIDEMARK_TRY(kernel, model.kernel_gauges());
    result.kernel_gauges = kernel;
  }
  if (reads_observed_gauges(scenario)) {
    TIDEMARK_TRY(observed, model.observed_gauges());
    result.observed_gauges = observed;
  }
  if (scenario.reads_back(scenario::ReadBack::KernelDump)) {
    TIDEMARK_TRY(dump, model.kernel_dump());
    result.kernel_dump = std::move(dump);
  }
  for (const auto& node : scenario.expect.nodes) {
    TIDEMARK_TRY(read, model.kernel_node(node.pid, node.type));
    result.kernel_nodes.push_back(std::move(read));
  }
  if (scenario.reads_back(scenario::ReadBack::KernelReport)) {
    TIDEMARK_TRY(report, model.kernel_report());
    result.kernel_report = std::move(report);
  }
  TIDEMARK_TRY(trace, model.run_trace());
  result.trace = std::string(trace);
  TIDEMARK_TRY(messages, api.validation_messages());
  result.validation_messages = std::move(messages);
  return {};
}

}  // namespace tidemark::runner
