// The registry of workload steps, one row per step, generated from the table of calls
// (api/calls.yaml) in its order: a step's C++ type (scenario.h, or generated where the step is one
// call with its arguments), YAML key, reader (schema_steps.cpp, or generated), what it drives
// (StepTarget) and its fields as docs/scenarios.md writes them. From it come kStepTarget, StepKind,
// the reader table and kStepDocs (registry_test.cpp holds it to the docs both ways); a row without
// a reader, or a type without its Executor::execute overload, fails to compile. `repeat`, read
// apart (StepReader::repeat), is the last row.
#pragma once

#include <string_view>

#include "calls/steps.h"  // TIDEMARK_STEPS(X): X(type, "yaml_key", reader, target, "fields")

namespace tidemark::scenario {

// What a step drives: the device through the client API, the kernel model (its gauges are then
// read) in its GPU-memory half or its kernel driver, or the scenario's own counter stream in the
// trace. The halves differ on a build with a renderer server, whose layer reaches the kernel
// driver live but its memory only at the run's read-backs (runner/kinds/scenario_subject.cpp).
enum class StepTarget { Device, KernelMemory, KernelDriver, Trace };
constexpr bool targets_kernel(StepTarget target) {
  return target == StepTarget::KernelMemory || target == StepTarget::KernelDriver;
}

// A step's YAML key and its fields, as the README's step tables write them.
struct StepDoc {
  std::string_view name;
  std::string_view fields;
};

#define TIDEMARK_STEP_DOC(type, name, reader, target, fields) StepDoc{name, fields},
inline constexpr StepDoc kStepDocs[] = {
    TIDEMARK_STEPS(TIDEMARK_STEP_DOC)  //
    StepDoc{"repeat", "count, `as` (loop variable, optional), `steps` (non-empty)"},
};
#undef TIDEMARK_STEP_DOC

}  // namespace tidemark::scenario
