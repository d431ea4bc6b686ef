// Gauge bounds for a program Tidemark did not write (`tidemark observe --expect FILE`): a small
// YAML file of comparisons in the scenario syntax, over the layer's and the kernel model's
// gauges, and a tapped wire's (a program on a build with a server: observe/observe.h's judge).
// `expect:` bounds hold for each observed process on its own (so no process can hide another's
// peak); `whole:` bounds hold for the whole process tree, each gauge summed over its processes (a
// peak summed is an upper bound of what the tree held at once). At least one of the two lists.
// Errors are one line, file:line:column, as a scenario's are.
//
//   expect:
//     - vkbufspk <= 64
//     - vkbytes == 0
//   whole:
//     - vksubmits > 0
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
