// The `observed` check: the device's self-report against what the Tidemark layer saw beneath
// it at the Vulkan boundary.
#pragma once

#include <optional>

#include "check/check.h"
#include "core/gauges.h"
#include "scenario/scenario.h"

namespace tidemark::check {

// `kernel`: the kernel model's gauges when the scenario uses it (its map must hold what the
// layer saw, when the device reports to it).
Outcome check_observed(const scenario::Scenario& scenario, const Gauges& gauges, const ObservedGauges& observed,
                       const std::optional<KernelGauges>& kernel);

}  // namespace tidemark::check
