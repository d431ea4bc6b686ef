// `tidemark lint`: what a set of subjects must be before its greens prove anything.
#pragma once

#include <string>
#include <vector>

#include "api/registry.h"
#include "runner/pipeline/expectations.h"
#include "runner/pipeline/subject.h"

namespace tidemark::runner {

// Each expectations line names a subject of the set and checks it has (or `not-judged`), on a
// backend the subject takes (Subject::takes_backend).
Status check_expectations(const std::vector<Expectation>& expectations, const Subjects& subjects,
                          const api::BackendRegistry& backends);

// Every subject has a control and every check is named by one on each backend the subject runs on
// (but those its `unproven:` names); every control's mutant is in the
// catalogue and every mutant in the catalogue is used; every known failure names what exists.
// One line a problem (none: clean).
std::vector<std::string> lint(const Subjects& subjects, const std::vector<Expectation>* expectations = nullptr);

}  // namespace tidemark::runner
