// Inside check/ only: the common start of an evaluator's outcome.
#pragma once

#include <string>
#include <utility>

#include "check/check.h"

namespace tidemark::check {

// An outcome of `kind` (index 0, no location: the evaluator sets those it has).
inline Outcome outcome_of(scenario::CheckKind kind, std::string text, bool passed, std::string detail) {
  Outcome outcome;
  outcome.id = {kind, 0};
  outcome.text = std::move(text);
  outcome.passed = passed;
  outcome.detail = std::move(detail);
  return outcome;
}

}  // namespace tidemark::check
