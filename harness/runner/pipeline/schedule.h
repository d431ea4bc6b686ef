// How `tidemark run` goes through its subjects: which it skips (--skip, --include), in which order
// (--shuffle), how many at once (--jobs), and when it starts no more (--max-fails). A result never
// depends on the schedule: each record is the subject's own pipeline, in its own report folder and
// with its own server, and records come back in the selection's order, so the summary, JUnit and
// digests of --jobs 8 or --shuffle 7 are those of --jobs 1 (the tests hold them equal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/run_record.h"
#include "runner/pipeline/selection.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

struct Schedule {
  // Subjects under way at once. With isolation each runs in one of `jobs` children of this
  // process (runner/pipeline/isolation.h), forked from this thread, each running its subjects one after
  // another; without isolation (a debugger's run) they run here, one at a time.
  size_t jobs = 1;
  std::optional<uint64_t> shuffle;  // a seed: the subjects start in that seed's order
  size_t max_fails = 0;             // after this many failed runs (`done`'s too) no more start; 0: no limit
  const TestFilter* filter = nullptr;
  // A killed run's records by subject id (run --resume, report/journal.h): those subjects are not
  // run again: their journaled records stand in (no `finished` event).
  const std::map<std::string, report::RunRecord>* done = nullptr;
};

struct ScheduleEvents {
  std::function<void(const std::vector<size_t>& running)> running;  // the subjects under way, when it changes
  // A subject's record, after its last try, as it ends (in any order: a journal keys it by subject).
  std::function<void(size_t index, const report::RunRecord& record)> finished;
};

// The order a seed gives `count` subjects: the same on every machine and standard library (a
// seed in a report reproduces it), a permutation of 0..count-1.
std::vector<size_t> shuffled_order(size_t count, uint64_t seed);

// Every run's record, in their order: run through the pipeline (tried
// again while tries_again says so, its record record_of_tries'), or skipped by the filter or an
// expectations line saying `skip`, or not run once `max_fails` subjects failed, or journaled (`done`). Errors are bad
// input or a missing environment met by a run.
Result<std::vector<report::RunRecord>> run_scheduled(std::vector<PreparedRun>& runs, const Schedule& schedule,
                                                     const ScheduleEvents& events);

}  // namespace tidemark::runner
