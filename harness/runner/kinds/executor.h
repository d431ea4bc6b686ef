// Inside runner/: the step interpreter, which runs a scenario's workload against one backend.
#pragma once

#include <cstdint>
#include <functional>

#include "api/device.h"
#include "api/model.h"
#include "check/run_checks.h"
#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// Opens the scenario's counter stream and creates its buffers, then runs the whole workload;
// a pipelined backend is drained at its end, so every failure is reported against its own
// step before anything is read back. `waits` gets the expected wait statuses checked so far,
// also when a step fails. With `probe`, calls it after every `probe_every`-th backend call.
Status execute_workload(const scenario::Scenario& scenario, api::Device& device, api::Model& model,
                        check::WaitTally& waits, uint64_t probe_every = 0, std::function<void(uint64_t)> probe = {});

}  // namespace tidemark::runner
