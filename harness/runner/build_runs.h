// Scenarios run on a driver build other than this process's. A build is an environment chosen
// when a process starts (drivers/driver_builds.h), so the runs on it are a tidemark process of its
// own: `tidemark --drivers FILE --driver NAME run ...`, whose summary is read back. `compare`
// puts such a column (`--backend gl@mesa-25.0.7`) beside the ones this process runs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/run_record.h"

namespace tidemark::runner {

// "gl@mesa-25.0.7" -> ("gl", "mesa-25.0.7"); a name without '@' is no build.
struct BackendOnBuild {
  std::string backend;
  std::string build;
};
std::optional<BackendOnBuild> backend_on_build(const std::string& column);

struct BuildRunRequest {
  std::vector<std::filesystem::path> drivers_files;  // the first that names the build is used
  BackendOnBuild column;
  std::vector<std::filesystem::path> scenario_files;
  std::string lane;                    // the lane the runs take
  std::filesystem::path report_dir;    // the child's report folder; its output goes to run.log there
  std::filesystem::path expectations;  // passed on; empty: none
};

// The records of the child's summary, each renamed as the column's (backend "gl@mesa-25.0.7",
// test and subject ending "@gl@mesa-25.0.7"), so two builds' runs of one scenario stay apart.
// A child that could not run (bad input, a driver that is not the build: its exit code 2, 3 or 4)
// is an error of that kind naming its last line of output.
Result<std::vector<report::RunRecord>> run_on_build(const BuildRunRequest& request);

}  // namespace tidemark::runner
