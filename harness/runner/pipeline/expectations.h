// Known failures, one greppable line each in expectations.txt (as ANGLE's and Mesa CI's files):
//   backend[@build]  group/name  red-check-ids  gauge=measured...  # why
// A run red on exactly those checks is an expected failure; green, an unexpected pass, which fails
// (the file must stay true); a gauge worse than its measured value is red. A `@build` line outranks
// the line without one; `tidemark lint` refuses a line whose scenario or check is gone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <functional>

#include "report/run_record.h"
#include "core/error.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// In place of the check ids: the backend cannot judge the scenario at all, and that is known.
inline constexpr std::string_view kNotJudged = "not-judged";
// In place of the check ids: a process of the run dies mid-run (verdict crash), and that is known.
inline constexpr std::string_view kCrash = "crash";
// In place of the check ids: the layer sees the device lost (verdict device-lost), and that is known.
inline constexpr std::string_view kDeviceLost = "device-lost";
// In place of the check ids: the run passes a time limit (verdict timeout), and that is known.
inline constexpr std::string_view kTimeout = "timeout";
// In place of the check ids: the run is known to fail now and then (verdict flaky under --retry).
inline constexpr std::string_view kFlaky = "flaky";
// In place of the check ids: the run is not made at all (verdict skipped, with the line's reason).
inline constexpr std::string_view kSkip = "skip";

struct Expectation {
  std::string backend;
  std::string build;                                    // the driver build the line is for; empty: any
  std::string scenario;                                 // group/name
  std::vector<std::string> checks;                      // check ids, sorted
  std::vector<std::pair<std::string, int64_t>> values;  // gauge=value, as measured when the line was written
  std::string reason;
  SourceLocation where;
};

// Whether a line's check ids are one of the words `not-judged`, `crash`, `device-lost`, `timeout`,
// `flaky` or `skip` rather than checks of its scenario.
bool names_a_verdict(const Expectation& expected);
// Whether a line says `word` in place of its check ids.
bool says(const Expectation& expected, std::string_view word);

// Errors: file:line:column, what was expected, what was found.
Result<std::vector<Expectation>> load_expectations(const std::filesystem::path& file);
// The same from the file's text (the expectations fuzz target's entry); `file` names it in errors.
Result<std::vector<Expectation>> parse_expectations(std::string_view text, const std::filesystem::path& file);
// The line for `backend` and `scenario` under driver build `build` (empty: none): the build's own
// line, else the line for any build.
const Expectation* find_expectation(const std::vector<Expectation>& expectations, const std::string& backend,
                                    const scenario::Scenario& scenario, const std::string& build);
// The same by the scenario's id (group/name).
const Expectation* find_expectation(const std::vector<Expectation>& expectations, const std::string& backend,
                                    const std::string& scenario_id, const std::string& build);
// What a run offers to be judged against its line: its verdict and why (changed in place), the
// ids of the checks that failed, and its gauges by name.
struct JudgedRun {
  report::Verdict& verdict;
  std::string& why;
  std::vector<std::string> failed;
  std::function<std::optional<int64_t>(std::string_view)> gauge;
};
// An expected failure holds when the run is red on exactly the checks the line names, and no
// gauge is worse than a value it measured (else red: "known failure got worse: ..."); green is an
// unexpected pass; a not-judged run is an expected red when the line says `not-judged`, a crash
// when it says `crash` (a line that says `crash` of a run that no longer crashes: green is an
// unexpected pass, red stays red), a device-lost run when it says `device-lost` (likewise), a
// timeout when it says `timeout` (likewise). A flaky run is an expected red when the line says
// `flaky`; a green run under such a line stays green (a flake need not strike), a red one red.
void judge_against(const Expectation& expected, JudgedRun run);

}  // namespace tidemark::runner
