// Known failures of a backend or driver, as ANGLE's and Mesa CI's expectation files keep them:
// one greppable line each, in a checked-in file (expectations.txt):
//
//   # backend  scenario (group/name)            red checks (ids)   # why, with the measured value
//   gl         portable/respecifies-with-...    gauge[0]           # Zink keeps ...: wlivepk = 1001
//
// A run the file expects red on exactly those checks is reported as an expected failure and
// does not fail; the same run green is an unexpected pass and fails (the list must be kept
// true); a run red on other checks is red. `tidemark lint` refuses a line whose scenario, or
// check, no longer exists.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/registry.h"
#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// In place of the check ids: the backend cannot judge the scenario at all, and that is known.
inline constexpr std::string_view kNotJudged = "not-judged";

struct Expectation {
  std::string backend;
  std::string scenario;             // group/name
  std::vector<std::string> checks;  // check ids, sorted
  std::string reason;
  SourceLocation where;
};

// Errors: file:line:column, what was expected, what was found.
Result<std::vector<Expectation>> load_expectations(const std::filesystem::path& file);
// The same from the file's text (the expectations fuzz target's entry); `file` names it in errors.
Result<std::vector<Expectation>> parse_expectations(std::string_view text, const std::filesystem::path& file);
const Expectation* find_expectation(const std::vector<Expectation>& expectations, const std::string& backend,
                                    const scenario::Scenario& scenario);
// Lint: each line names a scenario of the set and checks it has (or `not-judged`), on a backend
// of `backends` that the scenario lists or that stands in for one it lists (gl-native for gl).
Status check_expectations(const std::vector<Expectation>& expectations,
                          const std::vector<scenario::Scenario>& scenarios, const api::BackendRegistry& backends);

}  // namespace tidemark::runner
