#include "runner/pipeline/selection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <map>

#include "core/files.h"
#include "core/shard.h"
#include "scenario/scenario.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

Result<std::vector<scenario::Scenario>> load_scenarios(const std::vector<std::string>& inputs) {
  std::vector<fs::path> paths(inputs.begin(), inputs.end());
  TIDEMARK_TRY(files, scenario::collect_files(paths));
  std::vector<scenario::Scenario> scenarios;
  std::vector<std::string> errors;
  for (const auto& file : files) {
    auto loaded = scenario::load(file);
    if (!loaded) {
      if (loaded.error().kind != ErrorKind::BadInput) return std::unexpected(loaded.error());
      errors.push_back(loaded.error().message);
      continue;
    }
    scenarios.push_back(std::move(*loaded));
  }
  if (!errors.empty()) {
    std::string joined;
    for (const auto& error : errors) joined += (joined.empty() ? "" : "\ntidemark: ") + error;
    return fail(ErrorKind::BadInput, joined);
  }
  return scenarios;
}

namespace {

// Seconds by scenario file from a summary.json: the sum over its lanes and backends.
Result<std::map<std::string, double>> seconds_by_file(const std::string& summary_file) {
  std::map<std::string, double> seconds;
  if (summary_file.empty()) return seconds;
  TIDEMARK_TRY(summary, report::read_summary(summary_file));
  for (const auto& record : summary.results)
    seconds[fs::absolute(record.file).lexically_normal().string()] += record.seconds;
  return seconds;
}

}  // namespace

Result<ShardSelection> select_shard(Subjects subjects, const std::string& flag, const std::string& durations) {
  TIDEMARK_TRY(shard, find_shard(flag, [](const char* name) { return std::getenv(name); }));
  // A durations file that is given is read, whether or not this split needs it: a missing or
  // broken one is bad input at once, not on the night the split grows past one shard.
  TIDEMARK_TRY(by_file, seconds_by_file(durations));
  if (!shard) return ShardSelection{std::move(subjects), std::nullopt};
  TIDEMARK_CHECK(touch_status_file(*shard));
  std::vector<std::string> names;
  std::map<std::string, double> seconds;
  for (const auto& subject : subjects) {
    names.push_back(subject->info().id);
    auto found = by_file.find(fs::absolute(subject->info().file).lexically_normal().string());
    if (found != by_file.end()) seconds[names.back()] = found->second;
  }
  ShardSelection mine;
  report::ShardOrigin place{
      shard->index + 1, shard->total, shard->protocol, names.size(), report::selection_hash(names), {}};
  for (size_t k : shard_members(names, *shard, seconds)) {
    place.members.push_back(names[k]);
    mine.subjects.push_back(std::move(subjects[k]));
  }
  mine.origin = std::move(place);
  return mine;
}

namespace {

Status add_patterns(const std::string& file, PatternList& into) {
  TIDEMARK_TRY(text, read_given_file(file, "a file of test patterns"));
  size_t begin = 0;
  for (int line = 1; begin < text.size(); ++line) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string_view row(text.data() + begin, end - begin);
    const size_t start = row.find_first_not_of(" \t\r");
    const size_t last = row.find_last_not_of(" \t\r");
    begin = end + 1;
    if (start == std::string_view::npos || row[start] == '#') continue;
    TIDEMARK_CHECK(into.add(row.substr(start, last - start + 1), {file, line, static_cast<int>(start) + 1}));
  }
  return {};
}

}  // namespace

Result<TestFilter> load_test_filter(const std::vector<std::string>& skip_files,
                                    const std::vector<std::string>& include_files) {
  TestFilter filter;
  for (const auto& file : skip_files) TIDEMARK_CHECK(add_patterns(file, filter.skips));
  for (const auto& file : include_files) TIDEMARK_CHECK(add_patterns(file, filter.includes));
  return filter;
}

std::optional<std::string> TestFilter::skip_reason(const std::string& test) const {
  if (const PlacedPattern* skip = skips.first_found_in(test))
    return fmt::format("--skip {}: `{}`", format_location(skip->where), skip->pattern.text());
  if (includes.empty() || includes.first_found_in(test)) return std::nullopt;
  std::vector<std::string> files;
  for (const auto& include : includes.patterns())
    if (files.empty() || files.back() != include.where.file) files.push_back(include.where.file);
  return fmt::format("matches no --include line ({})", fmt::join(files, ", "));
}

}  // namespace tidemark::runner
