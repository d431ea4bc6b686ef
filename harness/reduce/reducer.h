// `tidemark reduce`: a red scenario cut to the fewest steps that stay red under the bug and green
// under the fix, by hierarchical delta debugging over the workload's steps (then each repeat's),
// then the least repeat counts and sizes, then the unused buffers. Candidates are judged in the
// monolith lane in this process, several at a time; the same input gives the same result on every
// run and machine.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/mutants.h"
#include "scenario/scenario.h"

namespace tidemark::reduce {

struct Progress {
  std::string phase;  // "top-level steps", "steps in repeats", "repeat counts", "sizes", "loop variables", "buffers"
  size_t tried = 0;   // candidates judged (each distinct text once)
  size_t ill_formed = 0;  // of those, refused by the loader without a run
  size_t runs = 0;        // runs made (two for a candidate that stays red under the bug)
  size_t steps = 0;       // the best candidate's written steps (a repeat and each of its steps count)
  size_t calls = 0;       // and the steps it executes
  double seconds = 0;
};

struct ReduceOptions {
  std::string check;    // as a control names it: a gauge expression, pixels[0], waits, kmd.NAME
  MutantChoice mutant;  // the bug: a mutant, knobs, or both
  std::map<std::string, int64_t> knobs;
  std::string name;   // the result's name; empty: the input's
  unsigned jobs = 0;  // candidates judged at once; 0: one per core
  std::function<void(const Progress&)> progress;
};

struct Reduction {
  std::string text;  // the reduced scenario file
  scenario::Scenario scenario;
  std::vector<std::string> red_checks;  // what is red under the bug: the control's `fails`
  size_t steps_before = 0, calls_before = 0;
  Progress done;  // the figures at the end
};

// Reduces the scenario `text`; `file` names it in messages and anchors its relative paths.
// Errors: bad input, or an input that is not interesting to begin with (the check green under
// the bug, or red without it), with what was seen.
Result<Reduction> reduce(std::string text, const std::filesystem::path& file, const ReduceOptions& options);

// The written steps and the executed steps of a scenario's workload.
std::pair<size_t, size_t> count_steps(const scenario::Scenario& scenario);

}  // namespace tidemark::reduce
