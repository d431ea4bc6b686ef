// `tidemark lint`: what a scenario set must be before its greens prove anything.
#pragma once

#include <string>
#include <vector>

#include "runner/expectations.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

// Every scenario has a control and every check is named by one; every control's mutant is in the
// catalogue and every mutant in the catalogue is used; every known failure names what exists.
// One line a problem (none: clean).
std::vector<std::string> lint(const std::vector<scenario::Scenario>& scenarios,
                              const std::vector<Expectation>* expectations = nullptr,
                              const std::vector<OtherSubject>& others = {});

}  // namespace tidemark::runner
