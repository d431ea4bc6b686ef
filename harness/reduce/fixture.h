// A reduction written as a fixture: the scenario (a header saying where it came from, the
// reduced body, the control that proves it), the ledger rows of its reds and a README.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "reduce/reducer.h"
#include "scenario/scenario.h"

namespace tidemark::reduce {

// The bug the result stays red under: a mutant, knobs, or both.
struct Bug {
  std::string mutant;
  std::map<std::string, int64_t> knobs;
};

// The fixture's scenario file, made from `reduced` (reduced from the file named `input`).
Result<std::string> fixture_text(const Reduction& reduced, const std::string& input, const Bug& bug,
                                 const std::string& check);

// Writes out/<name>.yaml, out/ledger.txt and (unless one is there) out/README.md; merges the rows
// into `ledger` when one is named. Bad input when the scenario file exists already.
// Whether `out` may receive the fixture `name`: a new folder, or one that holds no other
// fixture's scenario and no ledger (reduce writes both; another fixture's would be overwritten).
Status check_fixture_folder(const std::filesystem::path& out, const std::string& name);
Status write_fixture(const std::filesystem::path& out, const std::string& text, const scenario::Scenario& fixture,
                     const Reduction& reduced, const std::string& input, const Bug& bug,
                     const std::vector<std::string>& ledger_rows, const std::filesystem::path& ledger);

// The scenario a recording was made from: `given`, or the file under scenarios/ or fixtures/
// (from here) whose group/name the recording's header gives.
Result<scenario::Scenario> recorded_scenario(const std::filesystem::path& recording, const std::string& given);

}  // namespace tidemark::reduce
