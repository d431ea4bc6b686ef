#include "report/summary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/digest.h"
#include "core/files.h"
#include "report/parity.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

// Paths inside a summary are relative to its folder; a path written elsewhere stays as it is.
std::string relative_to(const std::string& path, const fs::path& dir) {
  if (path.empty() || fs::path(path).is_relative()) return path;
  std::error_code ec;
  fs::path relative = fs::relative(path, fs::absolute(dir), ec);
  return ec || relative.empty() ? path : relative.generic_string();
}

nlohmann::json shard_json(const ShardOrigin& shard) {
  return {{"index", shard.index},       {"total", shard.total},        {"protocol", shard.protocol},
          {"of", shard.of},             {"selection", shard.selection}, {"members", shard.members}};
}

nlohmann::json origin_json(const Origin& origin) {
  nlohmann::json json{{"command", origin.command}, {"series", origin.series}};
  if (!origin.dir.empty()) json["dir"] = origin.dir;
  if (origin.shard) json["shard"] = shard_json(*origin.shard);
  return json;
}

}  // namespace

std::string selection_hash(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  StreamHash hash;
  for (const auto& name : names) {
    hash.add(name);
    hash.add(std::string_view("\n"));
  }
  return hash.hex();
}

Result<nlohmann::json> write_summary(const fs::path& dir, const Origin& origin, const nlohmann::json& results) {
  TIDEMARK_CHECK(make_directories(dir));
  nlohmann::json summary;
  summary["format"] = "tidemark-summary";
  summary["version"] = 2;
  summary["command"] = origin.command;
  summary["series"] = origin.series;
  if (origin.shard) summary["shard"] = shard_json(*origin.shard);
  for (const auto& source : origin.merged_from) summary["merged_from"].push_back(origin_json(source));
  size_t green = 0;
  summary["results"] = nlohmann::json::array();
  for (nlohmann::json result : results) {
    if (result.contains("dir")) result["dir"] = relative_to(result["dir"].get<std::string>(), dir);
    for (auto& check : result["checks"])
      if (check.contains("artifacts"))
        for (auto& artifact : check["artifacts"]) artifact = relative_to(artifact.get<std::string>(), dir);
    if (!result.contains("series")) result["series"] = origin.series;
    green += result.value("green", false) ? 1 : 0;
    summary["results"].push_back(std::move(result));
  }
  summary["green"] = green;
  summary["red"] = summary["results"].size() - green;
  summary["parity"] = parity_rows(summary["results"]);
  TIDEMARK_CHECK(write_file_atomically(dir / "summary.html", summary_html(summary, dir)));
  TIDEMARK_CHECK(write_file_atomically(dir / "junit.xml", junit_xml(summary)));
  TIDEMARK_CHECK(write_file_atomically(dir / "summary.json", summary.dump(2) + '\n'));  // last: its presence means complete
  return summary;
}

}  // namespace tidemark::report
