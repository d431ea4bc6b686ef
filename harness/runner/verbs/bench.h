// `tidemark bench`'s measuring: a stream recorded once (monolith), then replayed `repeat` times in
// every lane; the median with its ratio to monolith and, where the floor applies (the stream is
// (nearly) all respecifies), the harness's own nanoseconds per call: (replay seconds - the bare
// Vulkan floor program's seconds for the same cycles) / commands.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "core/error.h"
#include "report/bench_report.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// The floor program beside this executable (the build folder), or "" when there is none.
std::string default_floor();
// tidemark beside this executable: what the whole-process comparison runs.
std::string default_replayer();

struct BenchStream {
  std::vector<report::BenchRow> rows;     // one per lane
  std::optional<std::string> divergence;  // a replay that diverged (or gave another digest): where
};
struct BenchOptions {
  std::filesystem::path dir;  // recordings and bench.json
  int repeat = 1;
  std::string floor_program;  // "" measures no floor
  // tidemark itself, run as a whole process against the floor with its draw (where the floor
  // applies): "" measures no whole process.
  std::string replayer_program;
  std::string label;
  std::filesystem::path history;                        // "" keeps none
  std::function<void(const report::BenchRow&)> on_row;  // each row as it is measured
};
Result<BenchStream> bench_stream(const scenario::Scenario& scenario, const BenchOptions& options);

struct BenchOutcome {
  report::BenchReport report;
  std::optional<std::string> divergence;  // the first stream that diverged (nothing written then)
  // Ratios more than 10 % worse than the median of the history's nights (none without a history).
  std::vector<report::BenchRegression> regressions;
};
// Reads the history first (a bad one costs no run), measures every stream, then writes
// bench.json, holds the night's ratios to the history's medians and appends the night to it (a
// night that regressed too: the median the next night is held to moves by at most one place).
Result<BenchOutcome> bench(const std::vector<scenario::Scenario>& scenarios, const BenchOptions& options);

}  // namespace tidemark::runner
