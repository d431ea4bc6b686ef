#include "report/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "core/files.h"
#include "report/summary.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

struct Source {
  fs::path dir;
  std::string file;  // dir/summary.json, as given
  Summary summary;
};

Error bad(std::string message) { return {ErrorKind::BadInput, std::move(message)}; }

Result<Source> read_source(const fs::path& dir) {
  Source source{.dir = dir, .file = (dir / "summary.json").string(), .summary = {}};
  if (!fs::exists(source.file))
    return std::unexpected(
        bad(fmt::format("{}: no summary.json: expected a finished run's report folder (a shard "
                        "that stopped before its end writes none)",
                        dir.string())));
  TIDEMARK_TRY(summary, read_summary(source.file));
  source.summary = std::move(summary);
  source.summary.origin.dir = dir.string();
  return source;
}

std::string shard_name(const ShardOrigin& shard) { return fmt::format("shard {} of {}", shard.index, shard.total); }

// Each series: shards 1..N of one split of one selection, each once, no scenario in two.
Status check_series(const std::string& series, const std::vector<const Source*>& sources) {
  const Source& first = *sources.front();
  if (!first.summary.origin.shard) {
    if (sources.size() > 1)
      return std::unexpected(
          bad(fmt::format("series '{}': an unsharded run in {} and another run of it in {}: "
                          "expected each run once",
                          series, first.dir.string(), sources[1]->dir.string())));
    return {};
  }
  const ShardOrigin& model = *first.summary.origin.shard;
  std::map<size_t, const Source*> by_index;
  std::map<std::string, const Source*> owner;
  for (const Source* source : sources) {
    if (!source->summary.origin.shard)
      return std::unexpected(bad(fmt::format("series '{}': {} is unsharded, {} is {}: expected the shards of one split",
                                             series, source->dir.string(), first.dir.string(), shard_name(model))));
    const ShardOrigin& shard = *source->summary.origin.shard;
    if (shard.total != model.total)
      return std::unexpected(
          bad(fmt::format("series '{}': {} is {}, {} is {}: expected the shards of one split", series,
                          first.dir.string(), shard_name(model), source->dir.string(), shard_name(shard))));
    if (shard.selection != model.selection || shard.of != model.of)
      return std::unexpected(bad(fmt::format(
          "series '{}': {} shards a selection of {} scenarios ({}), {} one of {} "
          "({}): expected the shards of the same inputs",
          series, first.dir.string(), model.of, model.selection, source->dir.string(), shard.of, shard.selection)));
    if (shard.index < 1 || shard.index > shard.total)
      return std::unexpected(
          bad(fmt::format("{}: shard index {}: expected 1 to {}", source->file, shard.index, shard.total)));
    if (auto [at, inserted] = by_index.emplace(shard.index, source); !inserted)
      return std::unexpected(bad(fmt::format("series '{}': {} given twice: {} and {}", series, shard_name(shard),
                                             at->second->dir.string(), source->dir.string())));
    for (const auto& member : shard.members)
      if (auto [at, inserted] = owner.emplace(member, source); !inserted)
        return std::unexpected(
            bad(fmt::format("series '{}': {} is in {} ({}) and in {} ({}): expected each scenario in "
                            "one shard",
                            series, member, shard_name(*at->second->summary.origin.shard), at->second->dir.string(),
                            shard_name(shard), source->dir.string())));
  }
  std::vector<std::string> missing, given;
  for (size_t index = 1; index <= model.total; ++index) {
    auto found = by_index.find(index);
    if (found == by_index.end())
      missing.push_back(fmt::format("{}", index));
    else
      given.push_back(fmt::format("{} in {}", index, found->second->dir.string()));
  }
  if (!missing.empty())
    return std::unexpected(bad(fmt::format("series '{}': shard {} of {} missing (given: {})", series,
                                           fmt::join(missing, ", "), model.total, fmt::join(given, "; "))));
  if (owner.size() != model.of)
    return std::unexpected(bad(fmt::format("series '{}': the {} shards hold {} scenarios: expected the selection's {}",
                                           series, model.total, owner.size(), model.of)));
  return {};
}

// A record's folder and files, relative to its own summary, made absolute: write_summary makes
// them relative to the merged folder again.
void rebase(RunRecord& record, const fs::path& dir) {
  auto absolute = [&](std::string& path) {
    if (!path.empty() && fs::path(path).is_relative()) path = fs::absolute(dir / path).lexically_normal().string();
  };
  absolute(record.dir);
  for (auto& check : record.checks)
    for (auto& artifact : check.artifacts) absolute(artifact);
}

}  // namespace

Result<MergeResult> merge_summaries(const std::vector<fs::path>& dirs, const fs::path& out) {
  if (dirs.empty()) return std::unexpected(bad("merge: expected at least one report folder, found none"));
  // The merged summary would replace that shard's own: an input is never overwritten.
  std::error_code error;
  const fs::path out_place = fs::weakly_canonical(fs::absolute(out), error);
  for (const auto& dir : dirs)
    if (fs::weakly_canonical(fs::absolute(dir), error) == out_place)
      return std::unexpected(
          bad(fmt::format("merge: --out {}: expected a folder that is not one of the inputs, found "
                          "input {}: its summary.json would be replaced",
                          out.string(), dir.string())));
  std::vector<Source> sources;
  for (const auto& dir : dirs) {
    TIDEMARK_TRY(source, read_source(dir));
    sources.push_back(std::move(source));
  }
  std::map<std::string, std::vector<const Source*>> by_series;
  for (const auto& source : sources) by_series[source.summary.origin.series].push_back(&source);
  for (const auto& [series, members] : by_series) TIDEMARK_CHECK(check_series(series, members));

  std::map<std::string, const Source*> test_owner;
  std::vector<RunRecord> results;
  Origin merged{.command = "merge", .series = "merge"};
  for (const auto& source : sources) {
    merged.merged_from.push_back(source.summary.origin);
    merged.merged_from.back().merged_from.clear();
    for (RunRecord record : source.summary.results) {
      if (auto [at, inserted] = test_owner.emplace(record.test, &source); !inserted)
        return std::unexpected(bad(fmt::format("{} is in {} and in {}: expected each test in one summary", record.test,
                                               at->second->file, source.file)));
      rebase(record, source.dir);
      results.push_back(std::move(record));
    }
  }
  // The same merged files whatever order the folders were given in.
  std::sort(results.begin(), results.end(), [](const RunRecord& a, const RunRecord& b) { return a.test < b.test; });
  std::sort(merged.merged_from.begin(), merged.merged_from.end(), [](const Origin& a, const Origin& b) {
    return std::pair(a.series, a.shard ? a.shard->index : 0) < std::pair(b.series, b.shard ? b.shard->index : 0);
  });
  TIDEMARK_TRY(written, write_summary(out, merged, std::move(results)));

  MergeResult merge;
  merge.summaries = sources.size();
  merge.results = written.results.size();
  merge.green = written.green;
  merge.red = written.red;
  merge.scenarios = written.parity.size();
  for (const auto& row : written.parity) {
    if (row.same) continue;
    std::map<std::string, std::vector<std::string>> tests_by_digest;
    for (const auto& cell : row.cells) tests_by_digest[cell.digest].push_back(cell.test);
    std::string line = row.subject + ":";
    for (const auto& [digest, tests] : tests_by_digest)
      line += fmt::format(" {} in {};", digest.empty() ? "(no digest)" : digest, fmt::join(tests, ", "));
    line.pop_back();
    merge.differences.push_back(std::move(line));
  }
  return merge;
}

}  // namespace tidemark::report
