// `tidemark merge`: the report folders of a sharded run (one per machine or CI job) become one
// summary. Nothing is merged from an incomplete or muddled set: each series (what was run apart
// from the shard) must be there as shards 1 to N of one split of one selection, each shard once,
// and each test once. Across everything, one scenario must give one digest.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::report {

struct MergeResult {
  size_t summaries = 0;
  size_t results = 0;
  size_t green = 0;
  size_t red = 0;
  size_t scenarios = 0;                  // parity rows
  std::vector<std::string> differences;  // "group/name: digest a in ..., digest b in ..."
};

// Reads DIR/summary.json of each folder; writes summary.json, summary.html and junit.xml to `out`.
// A missing or doubled shard, shards of different splits or selections, a test twice, or a file
// that is not a version 2 summary is bad input, and nothing is written.
Result<MergeResult> merge_summaries(const std::vector<std::filesystem::path>& dirs, const std::filesystem::path& out);

}  // namespace tidemark::report
