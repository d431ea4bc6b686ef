// Inside runner/: the pipeline's halves (runner/pipeline/subject.h's `run`) that the schedule
// (runner/pipeline/schedule.h) calls apart, in a child of its own or in this process.
#pragma once

#include "core/error.h"
#include "report/run_record.h"
#include "runner/pipeline/isolation.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

// The whole pipeline in this process: prepared, run `repeat` times, read, judged, written.
Result<report::RunRecord> run_here(PreparedRun& run);
// The record a child's answer comes to: the child's own, or the record of its crash or its
// timeout, judged and written by this process (the child wrote none).
Result<report::RunRecord> record_of(const PreparedRun& run, IsolatedRuns::Answer answer);

}  // namespace tidemark::runner
