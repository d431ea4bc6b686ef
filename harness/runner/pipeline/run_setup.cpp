#include "runner/pipeline/run_setup.h"

namespace tidemark::runner {

Result<std::unique_ptr<RunSetup>> RunSetup::make(const RunRequest& request) {
  std::unique_ptr<RunSetup> setup(new RunSetup());
  if (!request.expectations.empty()) {
    TIDEMARK_TRY(read, load_expectations(request.expectations));
    setup->expectations_ = std::move(read);
    setup->options.expectations = &setup->expectations_;
  }
  TIDEMARK_TRY(baseline, report::load_baseline(request.baseline, request.tolerances));
  setup->baseline_ = std::move(baseline);
  setup->options.report_dir = request.report_dir;
  setup->options.time_bounds = request.time_bounds;
  setup->options.isolation = request.isolation;
  setup->options.layer_dir = request.layer_dir;
  setup->options.drivers_files = request.drivers_files;
  return setup;
}

Result<RunSetup::Finished> RunSetup::finish(const report::Origin& origin,
                                            std::vector<report::RunRecord> records) const {
  Finished finished;
  std::optional<report::BaselineOrigin> held;
  if (baseline_) {
    held = report::hold_to_baseline(records, origin, *baseline_);
    finished.baseline_lines = report::baseline_lines(records, *held);
  }
  TIDEMARK_TRY(summary, report::write_summary(options.report_dir, origin, std::move(records), held));
  finished.summary = std::move(summary);
  return finished;
}

}  // namespace tidemark::runner
