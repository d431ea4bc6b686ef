// `tidemark bench`'s measuring: a stream recorded once (monolith), then replayed `repeat` times in
// every lane; the median with its ratio to monolith and, where the floor applies (the stream is
// (nearly) all respecifies), the harness's own nanoseconds per call: (replay seconds - the bare
// Vulkan floor program's seconds for the same cycles) / commands.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// The floor program beside this executable (the build folder), or "" when there is none.
std::string default_floor();

struct BenchStream {
  std::vector<nlohmann::json> rows;        // one per lane, as bench.json holds them
  std::optional<std::string> divergence;   // a replay that diverged (or gave another digest): where
};
Result<BenchStream> bench_stream(const scenario::Scenario& scenario, const std::filesystem::path& dir, int repeat,
                                 const std::string& floor_program);

}  // namespace tidemark::runner
