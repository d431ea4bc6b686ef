// Sharding by the protocols of the CI engines a team already has: a command that runs a set of
// scenarios runs only its shard's part. Which protocol is asked, in this order:
//   --shard I/N                                  the flag, I from 1 to N
//   TEST_TOTAL_SHARDS, TEST_SHARD_INDEX          Bazel, the index from 0; TEST_SHARD_STATUS_FILE touched
//   GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX        GoogleTest, from 0; GTEST_SHARD_STATUS_FILE touched
//   CI_NODE_TOTAL, CI_NODE_INDEX                 GitLab CI's `parallel:`, from 1
// The split is computed from the names alone, so every machine of a sharded run makes the same.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark {

struct Shard {
  size_t index = 0;  // from 0
  size_t total = 1;
  std::string protocol;     // "--shard", "Bazel", "GoogleTest", "GitLab"
  std::string status_file;  // to touch: the engine's sign that the program knows sharding
};

using Environment = std::function<const char*(const char*)>;

// The shard asked for, or nullopt when none is. Errors are bad input, naming the flag or the
// variables and what they held.
Result<std::optional<Shard>> find_shard(std::string_view flag, const Environment& environment);

// The positions in `names` that `shard` runs: the names sorted, then dealt out in turn (the
// k-th name in order to shard k mod N), so every shard is within one name of the others.
// Given the seconds each name took before (a previous summary), the longest go first, each to
// the shard with the least time so far (ties: the name, then the lower shard); a name with no
// time counts as the median of those known.
std::vector<size_t> shard_members(const std::vector<std::string>& names, const Shard& shard,
                                  const std::map<std::string, double>& seconds = {});

// Creates (or updates) the status file the engine asked for, when it asked for one.
Status touch_status_file(const Shard& shard);

}  // namespace tidemark
