// Gauge bounds for a program Tidemark did not write (`tidemark observe --expect FILE`): YAML
// comparisons in the scenario syntax over the layer's, the kernel model's and a tapped wire's
// gauges, e.g. `expect: [vkbufspk <= 64]` and `whole: [vksubmits > 0]`. `expect:` holds for each
// observed process (none hides another's peak), `whole:` for the process tree's sums; at least one
// of the two. Errors are one line, file:line:column, as a scenario's are.
#pragma once

#include <filesystem>
#include <vector>

#include "core/error.h"
#include "scenario/scenario.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

struct GaugeBounds {
  std::vector<GaugeCheck> each;   // expect: every observed process
  std::vector<GaugeCheck> whole;  // whole: the tree's sums
};

Result<GaugeBounds> load_gauge_bounds(const std::filesystem::path& file);
// The `expect` and `whole` lists of a map already read (a capture fixture's); `start` names the
// map when it has neither.
Result<GaugeBounds> read_gauge_bounds(yaml::Reader& read, const yaml::Source& source, const yaml::Fields& fields,
                                      const SourceLocation& start);

}  // namespace tidemark::scenario
