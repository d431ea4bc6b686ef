// The `observed` check: the device's self-report against what the Tidemark layer saw beneath
// it at the Vulkan boundary.
#pragma once

#include "check/check.h"
#include "core/gauges.h"
#include "scenario/scenario.h"

namespace tidemark::check {

Outcome check_observed(const scenario::Scenario& scenario, const Gauges& gauges, const ObservedGauges& observed);

}  // namespace tidemark::check
