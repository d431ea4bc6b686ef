// The summary of a set of runs, as the files people and CI engines read: summary.json (the
// document every other view and `tidemark merge` start from), summary.html (for a person, in a
// browser) and junit.xml (for the CI engine's test view). A summary says where its runs came
// from: the command, what it ran apart from the shard (its series), and which shard it was, so
// that the summaries of a sharded run can be put back together and checked for gaps.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::report {

struct ShardOrigin {
  size_t index = 1;  // from 1
  size_t total = 1;
  std::string protocol;                // "--shard", "Bazel", "GoogleTest", "GitLab"
  size_t of = 0;                       // how many scenarios the whole selection holds
  std::string selection;               // a hash of the whole selection's names: every shard's must agree
  std::vector<std::string> members;    // this shard's scenarios (group/name)
};

struct Origin {
  std::string command;  // "run", "parity", "compare", "merge"
  std::string series;   // what was run apart from the shard: "run lane=spawn", ...
  std::optional<ShardOrigin> shard;
  std::string dir;                   // where that summary was, for a merged one's sources
  std::vector<Origin> merged_from;   // a merged summary's sources
};

// Writes summary.json, summary.html and junit.xml into `dir`. `results` is an array of run
// results as runner::result_json writes them; their folders and files are kept relative to
// `dir`, so a report folder can be moved (a CI engine's artifacts are downloaded elsewhere).
// Returns the document summary.json holds.
Result<nlohmann::json> write_summary(const std::filesystem::path& dir, const Origin& origin,
                                     const nlohmann::json& results);

// The views, from a summary document as summary.json holds it (paths relative to `dir`).
std::string summary_html(const nlohmann::json& summary, const std::filesystem::path& dir);
std::string junit_xml(const nlohmann::json& summary);

// A hash of the names of a whole selection (sorted), as a shard's summary records it.
std::string selection_hash(std::vector<std::string> names);

}  // namespace tidemark::report
