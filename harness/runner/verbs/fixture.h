// A review must-fix kept as a fixture: a folder under fixtures/ with a scenario and a README
// saying what the review found, the mechanism, the fix and what red looks like.
#pragma once

#include <filesystem>
#include <string>

#include "core/error.h"

namespace tidemark::runner {

// The README's skeleton; `mechanism` and `red` fill its sections where known (else a prompt).
std::string fixture_readme(const std::string& review_id, const std::string& mechanism = {},
                           const std::string& red = {});

struct FixtureSkeleton {
  std::filesystem::path readme, scenario;
};
// `tidemark fixture new ID`: root/ID/ with the README skeleton and a scenario that loads but
// fails red-once until its control is made real. Bad input: an id that is not a file name, or a
// folder that exists already.
Result<FixtureSkeleton> new_fixture(const std::filesystem::path& root, const std::string& review_id);

}  // namespace tidemark::runner
