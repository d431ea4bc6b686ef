// What a command runs: every scenario of its files and folders (loaded before anything runs, so
// nothing runs on a half-valid set), or this process's shard of them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/user_pattern.h"
#include "report/summary.h"
#include "runner/pipeline/subject.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// Every scenario of `inputs`; all the bad files' errors at once. Each file and test name once is
// distinct_subjects' (runner/pipeline/subject.h), over the subjects of every kind.
Result<std::vector<scenario::Scenario>> load_scenarios(const std::vector<std::string>& inputs);

struct ShardSelection {
  Subjects subjects;                          // this process's
  std::optional<report::ShardOrigin> origin;  // its place in the whole selection (none: no shard asked for)
};
// This process's shard of `subjects` (`--shard I/N`, else an engine's variables; all of them when
// none is asked for); the engine's status file is touched. `durations`, a previous run's
// summary.json, balances the shards by the seconds each subject took.
Result<ShardSelection> select_shard(Subjects subjects, const std::string& flag, const std::string& durations);

// `run`'s --skip and --include files, as deqp-runner's skips: a pattern (core/user_pattern.h) a
// line, searched for in a subject's test name (Magma.Monolith.Group.name, Capture.Group.name), blank
// lines and lines starting with '#' aside; each option repeatable, its files' lines together.
struct TestFilter {
  PatternList skips{"a test name pattern"}, includes{"a test name pattern"};
  // Why the subject of `test` does not run: it matches a --skip line, or --include files were
  // given and it matches none of their lines. nullopt: it runs.
  std::optional<std::string> skip_reason(const std::string& test) const;
};
// The patterns of the files; a line that is no pattern, or past the bounds, is bad input at its place.
Result<TestFilter> load_test_filter(const std::vector<std::string>& skip_files,
                                    const std::vector<std::string>& include_files);

// `ctest -L` takes a regex: fails when any label, used as a selector, would also match a
// label of a test that does not carry it (e.g. a group named "tcp-extras" under -L ...-tcp).
Status check_label_hygiene(const Subjects& subjects);

}  // namespace tidemark::runner
