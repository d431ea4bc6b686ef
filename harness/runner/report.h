// Inside runner/: a run's report folder.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "core/image.h"
#include "runner/runner.h"

namespace tidemark::runner {

// result.json, actual.png, trace.pftrace and backend.log in the run's report folder (if it has one).
Status write_run_report(const RunResult& result, const Image& image, const std::string& trace,
                        const std::vector<std::string>& log);

}  // namespace tidemark::runner
