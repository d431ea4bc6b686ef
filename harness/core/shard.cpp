#include "core/shard.h"

#include "core/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <numeric>

namespace tidemark {

namespace {

std::optional<size_t> whole_number(std::string_view text) {
  size_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A protocol's two variables: both or neither, the total at least 1, the index in range.
Result<std::optional<Shard>> from_variables(const Environment& environment, const char* total_name,
                                            const char* index_name, size_t first_index, std::string protocol,
                                            const char* status_name) {
  const char* total_text = environment(total_name);
  const char* index_text = environment(index_name);
  if (!total_text && !index_text) return std::optional<Shard>();
  if (!total_text || !index_text)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected both {} and {}, found only {}", protocol, total_name,
                                                 index_name, total_text ? total_name : index_name));
  auto total = whole_number(total_text);
  auto index = whole_number(index_text);
  if (!total || *total < 1 || *total > kMaxShards)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a count of shards from 1 to {}, found '{}'", total_name,
                                                 kMaxShards, total_text));
  if (!index || *index < first_index || *index >= *total + first_index)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a shard index from {} to {}, found '{}'", index_name,
                                                 first_index, *total + first_index - 1, index_text));
  Shard shard{*index - first_index, *total, std::move(protocol), ""};
  if (status_name)
    if (const char* status = environment(status_name)) shard.status_file = status;
  return std::optional<Shard>(std::move(shard));
}

}  // namespace

Result<std::optional<Shard>> find_shard(std::string_view flag, const Environment& environment) {
  if (!flag.empty()) {
    size_t slash = flag.find('/');
    auto index = slash == std::string_view::npos ? std::nullopt : whole_number(flag.substr(0, slash));
    auto total = slash == std::string_view::npos ? std::nullopt : whole_number(flag.substr(slash + 1));
    if (!index || !total || *total < 1 || *total > kMaxShards || *index < 1 || *index > *total)
      return fail(ErrorKind::BadInput,
                  fmt::format("--shard: expected I/N with I from 1 to N and N at most {}, such as 2/3, found '{}'",
                              kMaxShards, flag));
    return std::optional<Shard>(Shard{*index - 1, *total, "--shard", ""});
  }
  TIDEMARK_TRY(bazel, from_variables(environment, "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX", 0, "Bazel",
                                     "TEST_SHARD_STATUS_FILE"));
  if (bazel) return bazel;
  TIDEMARK_TRY(gtest, from_variables(environment, "GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", 0, "GoogleTest",
                                     "GTEST_SHARD_STATUS_FILE"));
  if (gtest) return gtest;
  return from_variables(environment, "CI_NODE_TOTAL", "CI_NODE_INDEX", 1, "GitLab", nullptr);
}

std::vector<size_t> shard_members(const std::vector<std::string>& names, const Shard& shard,
                                  const std::map<std::string, double>& seconds) {
  std::vector<size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  std::vector<size_t> members;
  if (seconds.empty()) {
    for (size_t k = shard.index; k < order.size(); k += shard.total) members.push_back(order[k]);
  } else {
    std::vector<double> known;
    for (const auto& [name, time] : seconds) known.push_back(time);
    std::sort(known.begin(), known.end());
    const double median = known[known.size() / 2];
    auto time_of = [&](size_t k) {
      auto found = seconds.find(names[k]);
      return found == seconds.end() ? median : found->second;
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return time_of(a) > time_of(b); });
    std::vector<double> load(shard.total, 0.0);
    for (size_t k : order) {
      size_t least = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      load[least] += time_of(k);
      if (least == shard.index) members.push_back(k);
    }
  }
  std::sort(members.begin(), members.end());
  return members;
}

Status touch_status_file(const Shard& shard) {
  if (shard.status_file.empty()) return {};
  std::ofstream touched(shard.status_file, std::ios::app);
  if (!touched)
    return fail(ErrorKind::Io,
                fmt::format("{}: cannot touch the shard status file the engine asked for", shard.status_file));
  return {};
}

}  // namespace tidemark
