// The CTest registrations of a scenario set (`tidemark list --ctest-file`, read by the script
// tidemark_add_scenarios() hands to ctest): one test per scenario, lane and backend, named and
// labelled as Tidemark's own suite is, and one red-once test per scenario with a ledger.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

// tidemark_add_scenarios()'s arguments. Empty ledger: no red-once tests; empty lanes: all four;
// backends, when given, stand in for each scenario's own; digests, when given, hold every run's.
struct RegistrationRequest {
  std::string tidemark, report_root, ledger, expectations, digests;
  std::vector<std::string> lanes, backends, labels;
};

// `text` as one CMake bracket argument, exactly as it is: the bracket's run of `=` is longer than
// any `]=...]` inside the text, so no path or name can close it early. Text that starts with a
// line break is refused (CMake drops one right after the opening bracket).
Result<std::string> bracket(std::string_view text);

// CMake script text registering `subjects`. Bad lanes, backends and labels are bad input, and the
// expectations and ledger the tests will read are read first. A subject in no lane (a capture
// fixture) is one test whatever the lanes and backends, labelled as it says, and with a ledger a
// red-once test of its controls.
Result<std::string> ctest_registrations(const Subjects& subjects, const RegistrationRequest& request);

}  // namespace tidemark::runner
