// Gauge bounds for a program Tidemark did not write (`tidemark observe --expect FILE`): a small
// YAML file of comparisons in the scenario syntax, over the layer's and the kernel model's
// gauges. Errors are one line, file:line:column, as a scenario's are.
//
//   expect:
//     - vkbufspk <= 64
//     - vkbytes == 0
#pragma once

#include <filesystem>
#include <vector>

#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::scenario {

Result<std::vector<GaugeCheck>> load_gauge_bounds(const std::filesystem::path& file);

}  // namespace tidemark::scenario
