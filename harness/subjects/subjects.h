// The subjects a command's paths name: scenario files and folders, and capture fixtures
// (*.capture.yaml, named or found under a folder), each loaded before anything runs, so nothing
// runs on a half-valid set. Every command takes what this gives (runner/pipeline/subject.h): none of them
// asks which kind a subject is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/summary.h"
#include "runner/pipeline/subject.h"

namespace tidemark::subjects {

struct Loaded {
  runner::Subjects subjects;                 // the scenarios (this process's shard of them), then the capture fixtures
  std::optional<report::ShardOrigin> shard;  // its place in the whole selection (none: no shard asked for)
  size_t scenarios_before_shard = 0;
};

// `shard` and `durations` as select_shard takes them (runner/pipeline/selection.h); capture fixtures are
// not sharded: given with a shard they are bad input.
Result<Loaded> load_subjects(const std::vector<std::string>& paths, const std::string& shard = {},
                             const std::string& durations = {});

// A batch's child (runner/pipeline/build_runs.h), a worker (core/worker.h) on `socket`: checks that this
// process runs under each batch's build, runs every subject of it in the batch's column through
// the pipeline, and answers; or answers an examination of its build (doctor::ExamineRequest).
// Returns the exit code: 0 when it answered every request (an error it met is in the answer),
// else 4.
int serve_batch(int socket);

}  // namespace tidemark::subjects
