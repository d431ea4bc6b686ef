#include "check/evaluate.h"

#include "check/kernel_checks.h"
#include "tracer/importer.h"

namespace tidemark::check {

using scenario::CheckKind;

namespace {

// The scenario's own checks, for a run that completed.
Status evaluate_scenario(const scenario::Scenario& scenario, const ReadBack& read, const RunContext& context,
                         std::vector<Outcome>& outcomes) {
  Values values(context.knobs.begin(), context.knobs.end());
  for (const auto& [name, value] : named(read.gauges)) values[name] = value;
  if (read.kernel_gauges)
    for (const auto& [name, value] : named(*read.kernel_gauges)) values[name] = value;
  for (size_t k = 0; k < scenario.gauge_checks.size(); ++k) {
    TIDEMARK_TRY(checked, check_gauge(scenario.gauge_checks[k], values, {CheckKind::Gauge, k}));
    outcomes.push_back(std::move(checked));
  }
  if (read.waits.checked > 0) outcomes.push_back(check_waits(read.waits));
  if (scenario.kernel_dump) outcomes.push_back(check_kernel_dump(*scenario.kernel_dump, read.kernel_dump.value_or("")));
  for (size_t k = 0; k < scenario.kernel_nodes.size(); ++k)
    outcomes.push_back(check_kernel_node(scenario.kernel_nodes[k], read.kernel_nodes.at(k), k));
  for (size_t k = 0; k < scenario.diagnosis_checks.size(); ++k)
    outcomes.push_back(check_diagnosis(scenario.diagnosis_checks[k], read.kernel_report, k));
  for (size_t k = 0; k < scenario.kgsl_checks.size(); ++k)
    outcomes.push_back(check_kgsl_read(scenario.kgsl_checks[k], read.kernel_report, k));
  if (!scenario.trace_checks.empty() || scenario.reconcile) {
    tracer::ImportedTrace trace = tracer::import_trace(read.trace, context.mutant);
    for (size_t k = 0; k < scenario.trace_checks.size(); ++k)
      outcomes.push_back(check_trace(scenario.trace_checks[k], trace, k));
    if (scenario.reconcile)
      outcomes.push_back(check_reconcile(scenario, read.gauges, read.kernel_gauges, trace, context.counter_tracks));
  }
  for (size_t k = 0; k < scenario.pixel_checks.size(); ++k) {
    TIDEMARK_TRY(checked,
                 check_pixels(scenario.pixel_checks[k], read.image, context.artifact_dir, {CheckKind::Pixels, k}));
    outcomes.push_back(std::move(checked));
  }
  return {};
}

}  // namespace

Result<std::vector<Outcome>> evaluate(const scenario::Scenario& scenario, const ReadBack& read,
                                      const RunContext& context) {
  std::vector<Outcome> outcomes;
  if (context.completed) {
    TIDEMARK_CHECK(evaluate_scenario(scenario, read, context, outcomes));
    if (context.lane != Lane::Monolith) outcomes.push_back(check_lane(context.lane, context.traffic));
  }
  if (context.validation) outcomes.push_back(check_validation(read.validation_messages));
  if (auto determinism = check_determinism(context.digests)) outcomes.push_back(std::move(*determinism));
  return outcomes;
}

}  // namespace tidemark::check
