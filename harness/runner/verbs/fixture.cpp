#include "runner/verbs/fixture.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/files.h"
#include "core/limits.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

std::string fixture_readme(const std::string& review_id, const std::string& mechanism, const std::string& red) {
  return fmt::format(
      "# {}: <the behaviour the fix guarantees, as a sentence>\n\n"
      "**What the review found.** <the defect, where, and why no test saw it>\n\n"
      "**Mechanism{}.** {}\n\n"
      "**The fix.** <what changed>\n\n"
      "**What red looks like.** {}\n",
      review_id, mechanism.empty() ? "" : " (the fixture's steps)",
      mechanism.empty() ? "<the deterministic steps the scenario takes>" : mechanism,
      red.empty() ? "<the mutant that reverts the fix and the values it reads>" : red);
}

Result<FixtureSkeleton> new_fixture(const fs::path& root, const std::string& review_id) {
  auto id_character = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  };
  if (review_id.size() > kMaxNameLength)
    return fail(ErrorKind::BadInput, fmt::format("fixture new: expected a review id of at most {} characters, found {}",
                                                 kMaxNameLength, review_id.size()));
  if (review_id.empty() || !std::isalnum(static_cast<unsigned char>(review_id[0])) ||
      !std::ranges::all_of(review_id, id_character))
    return fail(ErrorKind::BadInput,
                fmt::format("fixture new: expected a review id such as ID-P7-43, found '{}'", review_id));
  const fs::path dir = root / review_id;
  if (fs::exists(dir)) return fail(ErrorKind::BadInput, fmt::format("fixture new: {} exists already", dir.string()));
  TIDEMARK_CHECK(make_directories(dir));
  std::string slug;
  for (char c : review_id)
    slug += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  FixtureSkeleton made{dir / "README.md", dir / (slug + ".yaml")};
  TIDEMARK_CHECK(write_file_atomically(made.readme, fixture_readme(review_id)));
  TIDEMARK_CHECK(write_file_atomically(
      made.scenario,
      fmt::format("# Fixture {0}: replace this workload with the review's steps, the check with the one the\n"
                  "# fix makes hold, and the control with the mutant that reverts the fix. Until then\n"
                  "# `tidemark red-once` fails on it, as it should.\n"
                  "name: {1}-fixture\n"
                  "group: reclaim\n"
                  "target: {{width: 16, height: 16}}\n"
                  "buffers: [color]\n"
                  "workload:\n"
                  "  - buffer_data: {{buffer: color, size: 256, fill: {{palette: 0}}}}\n"
                  "  - draw: {{uniform: color}}\n"
                  "expect:\n"
                  "  pixels:\n"
                  "    - bands: {{count: 1, palette: true}}\n"
                  "controls:\n"
                  "  - knobs: {{wire_deferred_mb: 0}}\n"
                  "    fails: [\"pixels[0]\"]\n",
                  review_id, slug)));
  return made;
}

}  // namespace tidemark::runner
