// What every verb that runs subjects (run, replay, parity, compare, red-once) takes from its command
// line, read and checked before anything runs, and the report it ends with: one home for both, so
// an option a run takes is added here once and every verb has it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/baseline.h"
#include "report/summary.h"
#include "runner/pipeline/expectations.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

struct RunRequest {
  std::filesystem::path report_dir;                  // empty: nothing written (replay)
  std::filesystem::path expectations;                // empty: no known failures
  std::string baseline;                              // empty: none (report::load_baseline)
  std::vector<std::string> tolerances;               // with a baseline: GAUGE=N or GAUGE=P%
  TimeBoundsOverride time_bounds;                    // --timeout, --inactivity-timeout
  bool isolation = true;                             // runs in a child (runs_in_child)
  std::filesystem::path layer_dir;                   // where the Tidemark layer is
  std::vector<std::filesystem::path> drivers_files;  // where builds are named
};

// A verb's runs: the options each starts from, what they point at, and the baseline they are held to.
class RunSetup {
 public:
  static Result<std::unique_ptr<RunSetup>> make(const RunRequest& request);
  RunSetup(const RunSetup&) = delete;
  RunSetup& operator=(const RunSetup&) = delete;

  RunOptions options;  // its `expectations` point into this setup

  // The records held to the baseline, if one was given (each change a line in `baseline_lines`), and
  // the report folder's summary written. The summary keeps the held records.
  struct Finished {
    report::Summary summary;
    std::vector<std::string> baseline_lines;
  };
  Result<Finished> finish(const report::Origin& origin, std::vector<report::RunRecord> records) const;

 private:
  RunSetup() = default;
  std::vector<Expectation> expectations_;
  std::optional<report::Baseline> baseline_;
};

}  // namespace tidemark::runner
