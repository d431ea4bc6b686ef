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

namespace tidemark::runner {

// One complete run: a fresh backend, the workload, read back.
struct SingleRun {
  std::optional<Error> error;
  check::ReadBack read;
  LaneTraffic lane;
  std::string driver;  // as the session's device named itself (api::Device::driver)
};

// Runs the steps, then reads back pixels, gauges, the kernel model's state, the trace and
// validation messages; the first failure is the run's error.
Status drive(const scenario::Scenario& scenario, api::Device& api, api::Model& model, check::ReadBack& result,
             uint64_t probe_every = 0, std::function<void(uint64_t)> probe = {});

}  // namespace tidemark::runner
