// Subjects run on a driver build other than this process's. A build is an environment chosen when
// a process starts (drivers/driver_builds.h), and a session's driver is loaded into the process
// that runs it, so the runs on a build are a tidemark process started under the build's
// environment, a worker (core/worker.h): the parent asks it a typed batch (the subjects' files and
// the run options) and reads typed run records back on one socket, each already named for its column
// ("...@gl@mesa-25.0.7"): no command line of options, no summary file, no renaming by text.
// `compare` puts such a column (`--backend gl@mesa-25.0.7`) beside the ones this process runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/error.h"
#include "core/worker.h"
#include "report/run_record.h"
#include "runner/pipeline/subject.h"

namespace tidemark::drivers {
struct NamedBuild;
}

namespace tidemark::runner {

// What the child runs: every subject of `subject_files` with `options`, as the pipeline runs them.
// Their column names the build (found in their drivers_files); their report folder takes the
// child's output too (run.log).
struct BuildBatch {
  RunOptions options;
  std::vector<std::filesystem::path> subject_files;
  std::filesystem::path expectations;  // what the child reads its options' expectations from; empty: none
};

// What the child answers: the build it ran under (as its environment named it, checked against
// the batch's before anything ran), and each subject's record; or the error that stopped it.
struct BatchAnswer {
  std::string build;
  std::vector<report::RunRecord> records;
  std::optional<Error> error;
};

// RunOptions' one codec, for a run in another process: what is this process's alone (the probe, the
// expectations as read, the lane's registry and server) is left out. A per-run option is a field,
// its flag and a line here.
nlohmann::json to_json(const RunOptions& options);
Result<RunOptions> run_options_from_json(const nlohmann::json& json, std::string_view where);

// The batch's and the answer's one codec each (JSON, strict on reading: report/json_fields.h).
nlohmann::json to_json(const BuildBatch& batch);
Result<BuildBatch> batch_from_json(const nlohmann::json& json);
nlohmann::json to_json(const BatchAnswer& answer);
Result<BatchAnswer> answer_from_json(const nlohmann::json& json);

// The word that makes a tidemark process a batch's child: a worker on file descriptor 3
// (cli/main.cpp hands it to subjects::serve_batch before any command line is parsed).
inline constexpr std::string_view kBatchChildWord = "--serve-build-batch";

// A tidemark started under `build`'s environment (drivers::environment_for) as a worker
// (core/worker.h) answering batches and doctor::ExamineRequest, its output into `log` (kept to
// its last kLogKept bytes).
Result<Worker> start_on_build(const drivers::NamedBuild& build, const std::filesystem::path& log);

// Starts the child under the build's environment, hands it the batch and returns its records. A
// child that could not run them (bad input, a driver that is not the build) is its error, of its
// kind; one that died is an environment error naming its last line of output (run.log).
Result<std::vector<report::RunRecord>> run_on_build(const BuildBatch& batch);

}  // namespace tidemark::runner
