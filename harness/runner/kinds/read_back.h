// Inside runner/: one run's workload and what it reads back from the backend afterwards.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "api/device.h"
#include "api/model.h"
#include "check/evaluate.h"
#include "core/error.h"
#include "scenario/scenario.h"
#include "lanes/lanes.h"
#include "report/run_record.h"

namespace tidemark::runner {

// One complete run: a fresh backend, the workload, read back.
struct SingleRun {
  std::optional<Error> error;
  std::optional<report::CrashRecord> crash;  // the lane's server died by a signal under the run
  check::ReadBack read;
  LaneTraffic lane;
  std::string driver;  // as the session's device named itself (api::Device::driver)
};

// Whether a run of the scenario reads the layer's gauges (the layer is on, or a check reads them).
bool reads_observed_gauges(const scenario::Scenario& scenario);

// Runs the steps, then reads back pixels, gauges, the kernel model's state, the trace and
// validation messages; the first failure is the run's error.
Status drive(const scenario::Scenario& scenario, api::Device& api, api::Model& model, check::ReadBack& result,
             uint64_t probe_every = 0, std::function<void(uint64_t)> probe = {});

}  // namespace tidemark::runner
