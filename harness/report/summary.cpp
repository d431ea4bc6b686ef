#include "report/summary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/digest.h"
#include "core/files.h"
#include "report/json_fields.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

// 3: run records carry a verdict.
constexpr DocumentKind kSummaryKind{.format = "tidemark-summary", .version = 3, .description = "a tidemark summary"};

// Paths inside a summary are relative to its folder; a path written elsewhere stays as it is.
std::string relative_to(const std::string& path, const fs::path& dir) {
  if (path.empty() || fs::path(path).is_relative()) return path;
  std::error_code ec;
  fs::path relative = fs::relative(path, fs::absolute(dir), ec);
  return ec || relative.empty() ? path : relative.generic_string();
}

nlohmann::json shard_json(const ShardOrigin& shard) {
  return {{"index", shard.index}, {"total", shard.total},         {"protocol", shard.protocol},
          {"of", shard.of},       {"selection", shard.selection}, {"members", shard.members}};
}

nlohmann::json origin_json(const Origin& origin) {
  nlohmann::json json{{"command", origin.command}, {"series", origin.series}};
  if (!origin.dir.empty()) json["dir"] = origin.dir;
  if (origin.shard) json["shard"] = shard_json(*origin.shard);
  return json;
}

void read_shard(JsonFields& fields, std::optional<ShardOrigin>& shard) {
  fields.object(
      "shard",
      [&](JsonFields& in) {
        // Bounded before merge walks the shards 1..total: a total of 2^63 looped for ever.
        const uint64_t total = in.take_bounded("total", 1, kMaxShards);
        shard = ShardOrigin{in.take_bounded("index", 1, total), total,
                            in.take<std::string>("protocol"),   in.take<uint64_t>("of"),
                            in.take<std::string>("selection"),  in.take<std::vector<std::string>>("members")};
      },
      /*required=*/false);
}

// What a run's digest is compared under, apart from its subject: its knobs and its mutant.
std::string variant_of(const RunRecord& record) {
  std::string variant = nlohmann::json(record.knobs).dump();
  if (!record.mutant.empty()) variant += " mutant=" + record.mutant;
  return variant;
}

std::vector<ParityRow> parity_rows(const std::vector<RunRecord>& results) {
  std::map<std::pair<std::string, std::string>, ParityRow> rows;
  for (const auto& record : results) {
    const std::string variant = variant_of(record);
    ParityRow& row = rows[{record.subject, variant}];
    row.subject = record.subject;
    row.variant = variant;
    row.cells.push_back({record.test, record.lane.name, record.column.text(), record.digest, record.verdict});
  }
  std::vector<ParityRow> out;
  for (auto& [key, row] : rows) {
    std::set<std::string> digests;
    for (const auto& cell : row.cells) digests.insert(cell.digest);
    row.same = digests.size() == 1;
    out.push_back(std::move(row));
  }
  return out;
}

nlohmann::json to_json(const Summary& summary) {
  nlohmann::json json;
  json["command"] = summary.origin.command;
  json["series"] = summary.origin.series;
  if (summary.origin.shard) json["shard"] = shard_json(*summary.origin.shard);
  for (const auto& source : summary.origin.merged_from) json["merged_from"].push_back(origin_json(source));
  json["results"] = nlohmann::json::array();
  for (const auto& record : summary.results) json["results"].push_back(to_json(record));
  if (summary.baseline) json["baseline"] = {{"source", summary.baseline->source}, {"gone", summary.baseline->gone}};
  json["green"] = summary.green;
  json["red"] = summary.red;
  json["skipped"] = summary.skipped;
  // Every run that failed and then went green, known (an expected red) or not, with each try.
  json["flaky"] = nlohmann::json::array();
  for (const auto& record : summary.results) {
    if (record.attempts.empty() || record.attempts.back().verdict != Verdict::Green) continue;
    nlohmann::json tries = nlohmann::json::array();
    for (const auto& attempt : record.attempts)
      tries.push_back({{"verdict", verdict_name(attempt.verdict)}, {"digest", attempt.digest}});
    json["flaky"].push_back({{"test", record.test},
                             {"subject", record.subject},
                             {"verdict", verdict_name(record.verdict)},
                             {"attempts", std::move(tries)}});
  }
  json["parity"] = nlohmann::json::array();
  for (const auto& row : summary.parity) {
    nlohmann::json out{{"subject", row.subject}, {"variant", row.variant}, {"same", row.same}};
    out["cells"] = nlohmann::json::array();
    for (const auto& cell : row.cells)
      out["cells"].push_back({{"test", cell.test},
                              {"lane", cell.lane},
                              {"backend", cell.backend},
                              {"digest", cell.digest},
                              {"verdict", verdict_name(cell.verdict)}});
    json["parity"].push_back(std::move(out));
  }
  return with_kind(std::move(json), kSummaryKind);
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

Summary summarize(const Origin& origin, std::vector<RunRecord> results) {
  Summary summary{.origin = origin, .results = std::move(results)};
  for (auto& record : summary.results) {
    if (record.series.empty()) record.series = origin.series;
    if (record.verdict == Verdict::Flaky)
      ++summary.flaky;
    else
      (not_ran(record.verdict) ? summary.skipped : record_passes(record) ? summary.green : summary.red) += 1;
  }
  summary.parity = parity_rows(summary.results);
  return summary;
}

Summary add_summary(FileBatch& batch, const fs::path& dir, const Origin& origin, std::vector<RunRecord> results,
                    std::optional<BaselineOrigin> baseline) {
  for (auto& record : results) {
    record.dir = relative_to(record.dir, dir);
    for (auto& check : record.checks)
      for (auto& artifact : check.artifacts) artifact = relative_to(artifact, dir);
  }
  Summary summary = summarize(origin, std::move(results));
  summary.baseline = std::move(baseline);
  // summary.json is renamed into place last: its presence means the folder is complete.
  batch.add(dir / "summary.html", summary_html(summary, dir));
  batch.add(dir / "junit.xml", junit_xml(summary));
  batch.add(dir / "summary.json", to_json(summary).dump(2) + '\n');
  return summary;
}

Result<Summary> write_summary(const fs::path& dir, const Origin& origin, std::vector<RunRecord> results,
                              std::optional<BaselineOrigin> baseline) {
  FileBatch batch;
  Summary summary = add_summary(batch, dir, origin, std::move(results), std::move(baseline));
  TIDEMARK_CHECK(batch.commit());
  return summary;
}

Result<Summary> read_summary(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "summary"));
  return parse_summary(text, file.string());
}

Result<Summary> parse_summary(std::string_view text, const std::string& where) {
  TIDEMARK_TRY(parsed, parse_json(text, where, "a JSON summary"));
  TIDEMARK_TRY(json, without_kind(std::move(parsed), where, kSummaryKind));
  JsonFields fields(json, where);
  Origin origin;
  origin.command = fields.take<std::string>("command");
  origin.series = fields.take<std::string>("series");
  read_shard(fields, origin.shard);
  fields.objects(
      "merged_from",
      [&](JsonFields& source) {
        Origin& from = origin.merged_from.emplace_back();
        from.command = source.take<std::string>("command");
        from.series = source.take<std::string>("series");
        from.dir = source.take_optional<std::string>("dir").value_or("");
        read_shard(source, from.shard);
      },
      /*required=*/false);
  std::optional<BaselineOrigin> baseline;
  fields.object(
      "baseline",
      [&](JsonFields& in) {
        baseline = BaselineOrigin{in.take<std::string>("source"), in.take<std::vector<std::string>>("gone")};
      },
      /*required=*/false);
  // The counts and the parity rows follow from the records: they are made again, not trusted.
  fields.skip("green");
  fields.skip("red");
  fields.skip("skipped");
  fields.skip("flaky");
  fields.skip("parity");
  const nlohmann::json* results = json.contains("results") ? &json["results"] : nullptr;
  fields.skip("results");
  TIDEMARK_CHECK(fields.finish());
  if (!results || !results->is_array())
    return fail(ErrorKind::BadInput, fmt::format("{}: expected 'results', an array of run records, found {}", where,
                                                 results ? results->type_name() : "none"));
  std::vector<RunRecord> records;
  for (size_t k = 0; k < results->size(); ++k) {
    TIDEMARK_TRY(record, run_record_from_json((*results)[k], where, fmt::format("results[{}]", k)));
    records.push_back(std::move(record));
  }
  Summary summary = summarize(origin, std::move(records));
  summary.baseline = std::move(baseline);
  return summary;
}

}  // namespace tidemark::report
