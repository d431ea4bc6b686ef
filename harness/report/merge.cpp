#include "report/merge.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <regex>

#include "core/files.h"
#include "report/summary.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

struct Source {
  fs::path dir;
  std::string file;  // dir/summary.json, as given
  nlohmann::json summary;
  Origin origin;
};

Error bad(std::string message) { return {ErrorKind::BadInput, std::move(message)}; }

// nlohmann says "parse error at line 3, column 5: ..."; we say "FILE:3:5: ...".
Error parse_error(const std::string& file, const nlohmann::json::parse_error& error) {
  std::smatch match;
  const std::string what = error.what();
  static const std::regex where(R"(at line (\d+), column (\d+): (.*))");
  if (std::regex_search(what, match, where))
    return bad(fmt::format("{}:{}:{}: expected a JSON summary, found {}", file, match[1].str(), match[2].str(),
                           match[3].str()));
  return bad(fmt::format("{}: expected a JSON summary, found {}", file, what));
}

Result<Source> read_source(const fs::path& dir) {
  Source source;
  source.dir = dir;
  source.file = (dir / "summary.json").string();
  if (!fs::exists(source.file))
    return std::unexpected(bad(fmt::format("{}: no summary.json: expected a finished run's report folder (a shard "
                                           "that stopped before its end writes none)",
                                           dir.string())));
  TIDEMARK_TRY(text, read_given_file(source.file, "summary"));
  try {
    source.summary = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    return std::unexpected(parse_error(source.file, error));
  }
  const auto& summary = source.summary;
  if (!summary.is_object() || summary.value("format", "") != "tidemark-summary" || summary.value("version", 0) != 2 ||
      !summary.contains("results") || !summary["results"].is_array())
    return std::unexpected(bad(fmt::format("{}: expected a tidemark summary of version 2, found {}", source.file,
                                           summary.is_object() && summary.contains("version")
                                               ? "version " + summary["version"].dump()
                                               : std::string("another JSON document"))));
  try {
    source.origin.command = summary.value("command", "");
    source.origin.series = summary.value("series", "");
    source.origin.dir = dir.string();
    if (summary.contains("shard")) {
      const auto& shard = summary["shard"];
      source.origin.shard = ShardOrigin{shard.at("index").get<size_t>(), shard.at("total").get<size_t>(),
                                        shard.at("protocol").get<std::string>(), shard.at("of").get<size_t>(),
                                        shard.at("selection").get<std::string>(),
                                        shard.at("members").get<std::vector<std::string>>()};
    }
  } catch (const nlohmann::json::exception& error) {
    return std::unexpected(bad(fmt::format("{}: shard: expected index, total, protocol, of, selection and members, "
                                           "found {}",
                                           source.file, error.what())));
  }
  return source;
}

std::string shard_name(const ShardOrigin& shard) { return fmt::format("shard {} of {}", shard.index, shard.total); }

// Each series: shards 1..N of one split of one selection, each once, no scenario in two.
Status check_series(const std::string& series, const std::vector<const Source*>& sources) {
  const Source& first = *sources.front();
  if (!first.origin.shard) {
    if (sources.size() > 1)
      return std::unexpected(bad(fmt::format("series '{}': an unsharded run in {} and another run of it in {}: "
                                             "expected each run once",
                                             series, first.dir.string(), sources[1]->dir.string())));
    return {};
  }
  const ShardOrigin& model = *first.origin.shard;
  std::map<size_t, const Source*> by_index;
  std::map<std::string, const Source*> owner;
  for (const Source* source : sources) {
    if (!source->origin.shard)
      return std::unexpected(bad(fmt::format("series '{}': {} is unsharded, {} is {}: expected the shards of one split",
                                             series, source->dir.string(), first.dir.string(), shard_name(model))));
    const ShardOrigin& shard = *source->origin.shard;
    if (shard.total != model.total)
      return std::unexpected(bad(fmt::format("series '{}': {} is {}, {} is {}: expected the shards of one split", series,
                                             first.dir.string(), shard_name(model), source->dir.string(),
                                             shard_name(shard))));
    if (shard.selection != model.selection || shard.of != model.of)
      return std::unexpected(bad(fmt::format("series '{}': {} shards a selection of {} scenarios ({}), {} one of {} "
                                             "({}): expected the shards of the same inputs",
                                             series, first.dir.string(), model.of, model.selection,
                                             source->dir.string(), shard.of, shard.selection)));
    if (shard.index < 1 || shard.index > shard.total)
      return std::unexpected(bad(fmt::format("{}: shard index {}: expected 1 to {}", source->file, shard.index,
                                             shard.total)));
    if (auto [at, inserted] = by_index.emplace(shard.index, source); !inserted)
      return std::unexpected(bad(fmt::format("series '{}': {} given twice: {} and {}", series, shard_name(shard),
                                             at->second->dir.string(), source->dir.string())));
    for (const auto& member : shard.members)
      if (auto [at, inserted] = owner.emplace(member, source); !inserted)
        return std::unexpected(bad(fmt::format("series '{}': {} is in {} ({}) and in {} ({}): expected each scenario in "
                                               "one shard",
                                               series, member, shard_name(*at->second->origin.shard),
                                               at->second->dir.string(), shard_name(shard), source->dir.string())));
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

// A result's folder and files, relative to its own summary, made absolute: write_summary makes
// them relative to the merged folder again.
void rebase(nlohmann::json& result, const fs::path& dir) {
  auto absolute = [&](nlohmann::json& path) {
    const std::string text = path.get<std::string>();
    if (!text.empty() && fs::path(text).is_relative()) path = fs::absolute(dir / text).lexically_normal().string();
  };
  if (result.contains("dir")) absolute(result["dir"]);
  if (result.contains("checks"))
    for (auto& check : result["checks"])
      if (check.contains("artifacts"))
        for (auto& artifact : check["artifacts"]) absolute(artifact);
}

}  // namespace

Result<MergeResult> merge_summaries(const std::vector<fs::path>& dirs, const fs::path& out) {
  if (dirs.empty()) return std::unexpected(bad("merge: expected at least one report folder, found none"));
  std::vector<Source> sources;
  for (const auto& dir : dirs) {
    TIDEMARK_TRY(source, read_source(dir));
    sources.push_back(std::move(source));
  }
  std::map<std::string, std::vector<const Source*>> by_series;
  for (const auto& source : sources) by_series[source.origin.series].push_back(&source);
  for (const auto& [series, members] : by_series) TIDEMARK_CHECK(check_series(series, members));

  std::map<std::string, const Source*> test_owner;
  nlohmann::json results = nlohmann::json::array();
  Origin merged{.command = "merge", .series = "merge"};
  for (const auto& source : sources) {
    merged.merged_from.push_back(source.origin);
    for (nlohmann::json result : source.summary["results"]) {
      const std::string test = result.value("test", "");
      if (auto [at, inserted] = test_owner.emplace(test, &source); !inserted)
        return std::unexpected(bad(fmt::format("{} is in {} and in {}: expected each test in one summary", test,
                                               at->second->file, source.file)));
      rebase(result, source.dir);
      if (!result.contains("series")) result["series"] = source.origin.series;
      results.push_back(std::move(result));
    }
  }
  // The same merged files whatever order the folders were given in.
  std::sort(results.begin(), results.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a.value("test", "") < b.value("test", ""); });
  std::sort(merged.merged_from.begin(), merged.merged_from.end(), [](const Origin& a, const Origin& b) {
    return std::pair(a.series, a.shard ? a.shard->index : 0) < std::pair(b.series, b.shard ? b.shard->index : 0);
  });
  TIDEMARK_TRY(written, write_summary(out, merged, results));

  MergeResult merge;
  merge.summaries = sources.size();
  merge.results = results.size();
  for (const auto& result : results) (result.value("green", false) ? merge.green : merge.red) += 1;
  const nlohmann::json& parity = written["parity"];
  merge.scenarios = parity.size();
  for (const auto& row : parity) {
    if (row.value("same", false)) continue;
    std::map<std::string, std::vector<std::string>> tests_by_digest;
    for (const auto& cell : row["cells"]) tests_by_digest[cell.value("digest", "")].push_back(cell.value("test", ""));
    std::string line = row.value("subject", "") + ":";
    for (const auto& [digest, tests] : tests_by_digest)
      line += fmt::format(" {} in {};", digest.empty() ? "(no digest)" : digest, fmt::join(tests, ", "));
    line.pop_back();
    merge.differences.push_back(std::move(line));
  }
  return merge;
}

}  // namespace tidemark::report
