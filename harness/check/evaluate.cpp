#include "check/evaluate.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "check/kernel_checks.h"
#include "check/observed_checks.h"
#include "tracer/importer.h"

namespace tidemark::check {

using scenario::CheckKind;

namespace {

// What a scenario check's evaluator reads; the imported trace is made once, on first need.
struct Inputs {
  const scenario::Scenario& scenario;
  const ReadBack& read;
  const RunContext& context;
  Values values;  // knobs, then the gauges over them
  std::optional<tracer::ImportedTrace> trace;

  const tracer::ImportedTrace& imported_trace() {
    if (!trace) trace = tracer::import_trace(read.trace, context.mutant);
    return *trace;
  }
};

// The evaluator of each scenario check kind of the registry (scenario/check_kinds.h): a kind
// without its specialisation below fails to compile in evaluate_one.
template <CheckKind kind>
Status evaluate_kind(Inputs&, std::vector<Outcome>&) {
  static_assert(kind != kind, "a check kind of the registry has no evaluator");
  return {};
}

template <>
Status evaluate_kind<CheckKind::Gauge>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.gauges.size(); ++k) {
    TIDEMARK_TRY(checked, check_gauge(in.scenario.expect.gauges[k], in.values, {CheckKind::Gauge, k}));
    outcomes.push_back(std::move(checked));
  }
  return {};
}

template <>
Status evaluate_kind<CheckKind::Pixels>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.pixels.size(); ++k) {
    TIDEMARK_TRY(checked, check_pixels(in.scenario.expect.pixels[k], in.read.image, in.context.artifact_dir,
                                       {CheckKind::Pixels, k}));
    outcomes.push_back(std::move(checked));
  }
  return {};
}

template <>
Status evaluate_kind<CheckKind::Waits>(Inputs& in, std::vector<Outcome>& outcomes) {
  if (in.read.waits.checked > 0) outcomes.push_back(check_waits(in.read.waits));
  return {};
}

template <>
Status evaluate_kind<CheckKind::KernelDump>(Inputs& in, std::vector<Outcome>& outcomes) {
  if (in.scenario.expect.dump)
    outcomes.push_back(check_kernel_dump(*in.scenario.expect.dump, in.read.kernel_dump.value_or("")));
  return {};
}

template <>
Status evaluate_kind<CheckKind::KernelNode>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.nodes.size(); ++k)
    outcomes.push_back(check_kernel_node(in.scenario.expect.nodes[k], in.read.kernel_nodes.at(k), k));
  return {};
}

template <>
Status evaluate_kind<CheckKind::Diagnosis>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.kmd.size(); ++k)
    outcomes.push_back(check_diagnosis(in.scenario.expect.kmd[k], in.read.kernel_report, k));
  return {};
}

template <>
Status evaluate_kind<CheckKind::KgslRead>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.kgsl.size(); ++k)
    outcomes.push_back(check_kgsl_read(in.scenario.expect.kgsl[k], in.read.kernel_report, k));
  return {};
}

template <>
Status evaluate_kind<CheckKind::Trace>(Inputs& in, std::vector<Outcome>& outcomes) {
  for (size_t k = 0; k < in.scenario.expect.trace.size(); ++k)
    outcomes.push_back(check_trace(in.scenario.expect.trace[k], in.imported_trace(), k));
  return {};
}

template <>
Status evaluate_kind<CheckKind::Reconcile>(Inputs& in, std::vector<Outcome>& outcomes) {
  if (in.scenario.expect.reconcile)
    outcomes.push_back(check_reconcile(in.scenario, in.read.gauges, in.read.kernel_gauges, in.imported_trace(),
                                       in.context.counter_tracks));
  return {};
}

template <>
Status evaluate_kind<CheckKind::Observed>(Inputs& in, std::vector<Outcome>& outcomes) {
  if (in.scenario.expect.observed)
    outcomes.push_back(check_observed(in.scenario, in.read.gauges, in.read.observed_gauges.value_or(ObservedGauges{})));
  return {};
}

Status evaluate_one(CheckKind kind, Inputs& in, std::vector<Outcome>& outcomes) {
  switch (kind) {
#define TIDEMARK_EVALUATE_KIND(kind, ...) \
  case CheckKind::kind:                   \
    return evaluate_kind<CheckKind::kind>(in, outcomes);
    TIDEMARK_SCENARIO_CHECKS(TIDEMARK_EVALUATE_KIND)
#undef TIDEMARK_EVALUATE_KIND
    default:
      return {};
  }
}

// scenario::kCheckReportOrder holds every scenario check kind of the registry once.
constexpr bool evaluates_every_kind() {
#define TIDEMARK_COUNT_KIND(kind, ...)                                                                               \
  if (std::count(std::begin(scenario::kCheckReportOrder), std::end(scenario::kCheckReportOrder), CheckKind::kind) != \
      1)                                                                                                             \
    return false;
  TIDEMARK_SCENARIO_CHECKS(TIDEMARK_COUNT_KIND)
#undef TIDEMARK_COUNT_KIND
#define TIDEMARK_ONE(...) +1
  return std::size(scenario::kCheckReportOrder) == 0 TIDEMARK_SCENARIO_CHECKS(TIDEMARK_ONE);
#undef TIDEMARK_ONE
}
static_assert(evaluates_every_kind(), "scenario::kCheckReportOrder lists every scenario check kind once");

// The scenario's own checks, for a run that completed.
Status evaluate_scenario(const scenario::Scenario& scenario, const ReadBack& read, const RunContext& context,
                         std::vector<Outcome>& outcomes) {
  Inputs in{scenario, read, context, Values(context.knobs.begin(), context.knobs.end()), std::nullopt};
  for (const auto& [name, value] : named(read.gauges)) in.values[name] = value;
  if (read.kernel_gauges)
    for (const auto& [name, value] : named(*read.kernel_gauges)) in.values[name] = value;
  if (read.observed_gauges)
    for (const auto& [name, value] : named(*read.observed_gauges)) in.values[name] = value;
  if (read.wire_gauges)
    for (const auto& [name, value] : *read.wire_gauges) in.values[name] = value;
  for (CheckKind kind : scenario::kCheckReportOrder) TIDEMARK_CHECK(evaluate_one(kind, in, outcomes));
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
