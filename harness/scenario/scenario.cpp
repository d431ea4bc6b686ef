#include "scenario/scenario.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/gauges.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

std::string_view to_string(CheckKind kind) {
  switch (kind) {
#define TIDEMARK_SCENARIO_CHECK_NAME(kind, name, ...) \
  case CheckKind::kind:                               \
    return name;
    TIDEMARK_SCENARIO_CHECKS(TIDEMARK_SCENARIO_CHECK_NAME)
    TIDEMARK_RUN_CHECKS(TIDEMARK_SCENARIO_CHECK_NAME)
#undef TIDEMARK_SCENARIO_CHECK_NAME
  }
  return "?";
}

namespace {

// Whether the registry gives the kind's ids an index (`pixels[0]`); the run checks have none.
bool indexed(CheckKind kind) {
  switch (kind) {
#define TIDEMARK_SCENARIO_CHECK_INDEXED(kind, name, indexed, ...) \
  case CheckKind::kind:                                           \
    return indexed;
    TIDEMARK_SCENARIO_CHECKS(TIDEMARK_SCENARIO_CHECK_INDEXED)
#undef TIDEMARK_SCENARIO_CHECK_INDEXED
    default:
      return false;
  }
}

}  // namespace

std::string CheckId::str() const {
  if (indexed(kind)) return fmt::format("{}[{}]", to_string(kind), index);
  return std::string(to_string(kind));
}

std::string describe_control(const Control& control) {
  std::vector<std::string> parts;
  if (!control.mutant.empty()) parts.push_back("mutant=" + control.mutant);
  if (!control.knobs.empty()) {
    std::vector<std::string> knobs;
    for (const auto& [name, value] : control.knobs) knobs.push_back(fmt::format("{}:{}", name, value));
    parts.push_back(fmt::format("knobs={}", fmt::join(knobs, ",")));
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

namespace {

bool any_wait_expectation(const std::vector<Step>& steps) {
  for (const auto& step : steps) {
    if (const auto* wait = std::get_if<ClientWait>(step.kind.get()); wait && wait->expect) return true;
    if (const auto* repeat = std::get_if<Repeat>(step.kind.get()); repeat && any_wait_expectation(repeat->steps))
      return true;
  }
  return false;
}

}  // namespace

bool Scenario::expects_wait_statuses() const { return any_wait_expectation(workload); }

namespace {

// A kernel step anywhere in the workload, repeats included (the registry's rows say which).
bool any_kernel_step(const std::vector<Step>& steps, bool memory_only) {
  for (const auto& step : steps) {
    if (const auto* repeat = std::get_if<Repeat>(step.kind.get())) {
      if (any_kernel_step(repeat->steps, memory_only)) return true;
      continue;
    }
    const bool found = std::visit(
        [&](const auto& kind) {
          using Type = std::decay_t<decltype(kind)>;
          return memory_only ? kStepTarget<Type> == StepTarget::KernelMemory : targets_kernel(kStepTarget<Type>);
        },
        *step.kind);
    if (found) return true;
  }
  return false;
}

}  // namespace

bool Scenario::has_kernel_step(bool memory_only) const { return any_kernel_step(workload, memory_only); }

bool Scenario::uses_kernel() const {
  if (written.kernel || written.kmd || written.kgsl || any_kernel_step(workload, false)) return true;
  for (ReadBack what : {ReadBack::KernelGauges, ReadBack::KernelDump, ReadBack::KernelNodes, ReadBack::KernelReport})
    if (reads_back(what)) return true;
  for (const auto& check : expect.gauges)
    for (const auto& name : check.expr.identifiers())
      if (is_kernel_gauge(name)) return true;
  return false;
}

std::map<GaugeKind, Scenario::GaugeUse> Scenario::gauge_uses() const {
  std::map<GaugeKind, GaugeUse> uses;
  for (const auto& check : expect.gauges)
    for (const auto& name : check.expr.identifiers())
      if (const GaugeSpec* gauge = find_gauge(name)) uses.try_emplace(gauge->kind, GaugeUse{name, check.where});
  return uses;
}

size_t Scenario::count(CheckKind kind) const {
  switch (kind) {
    case CheckKind::Gauge:
      return expect.gauges.size();
    case CheckKind::Pixels:
      return expect.pixels.size();
    case CheckKind::Waits:
      return expects_wait_statuses() ? 1 : 0;
    case CheckKind::KernelDump:
      return expect.dump ? 1 : 0;
    case CheckKind::KernelNode:
      return expect.nodes.size();
    case CheckKind::Diagnosis:
      return expect.kmd.size();
    case CheckKind::KgslRead:
      return expect.kgsl.size();
    case CheckKind::Trace:
      return expect.trace.size();
    case CheckKind::Reconcile:
      return expect.reconcile ? 1 : 0;
    case CheckKind::Observed:
      return expect.observed ? 1 : 0;
    // The runner's own checks are not a scenario's. No default: a kind without its case here
    // fails to compile (-Wswitch, an error).
    case CheckKind::Lane:
    case CheckKind::Validation:
    case CheckKind::Determinism:
      return 0;
  }
  return 0;
}

bool Scenario::reads_back(ReadBack what) const {
#define TIDEMARK_READS_BACK(kind, name, indexed, key, reader, written, meaning, place, read_back) \
  if (read_back == what && count(CheckKind::kind) > 0) return true;
  TIDEMARK_SCENARIO_CHECKS(TIDEMARK_READS_BACK)
#undef TIDEMARK_READS_BACK
  return false;
}

std::vector<CheckId> Scenario::checks() const {
  std::vector<CheckId> ids;
  for (CheckKind kind : kCheckReportOrder)  // in the order they are reported
    for (size_t k = 0; k < count(kind); ++k) ids.push_back({kind, k});
  return ids;
}

std::string Scenario::check_text(const CheckId& id) const {
  if (id.kind == CheckKind::Gauge && id.index < expect.gauges.size()) return expect.gauges[id.index].expr.text();
  if (id.kind == CheckKind::Diagnosis && id.index < expect.kmd.size()) return "kmd." + expect.kmd[id.index].name;
  if (id.kind == CheckKind::KgslRead && id.index < expect.kgsl.size()) return "kgsl." + expect.kgsl[id.index].name;
  return id.str();
}

std::optional<CheckId> Scenario::find_check(std::string_view written) const {
  for (const auto& id : checks()) {
    std::string text = check_text(id);
    if (id.kind == CheckKind::Gauge ? yaml::without_spaces(text) == yaml::without_spaces(written) : text == written)
      return id;
  }
  return std::nullopt;
}

}  // namespace tidemark::scenario
