// `tidemark compare`'s document: the same scenarios on each backend side by side, a row per
// scenario and a cell per backend (its verdict, the device gauges every backend gives, the
// image's hash). One type, written as compare.json and read by a person as compare.html.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "report/run_record.h"

namespace tidemark::report {

struct CompareCell {
  std::string backend;
  Verdict verdict = Verdict::NotJudged;
  std::string why;  // not judged: why (an expected red: the expectations line's reason)
  std::string pixel_hash, digest;
  std::vector<std::pair<std::string, int64_t>> gauges;  // the columns every backend with device gauges gives
  std::vector<std::string> failed;                      // "check: detail" of each failed check
};

struct CompareRow {
  std::string scenario;  // group/name
  std::vector<CompareCell> cells;
};

struct Comparison {
  std::vector<CompareRow> rows;
};

nlohmann::json to_json(const Comparison& comparison);
// One table: a row per scenario, a column per backend, each cell coloured by its verdict.
std::string comparison_html(const Comparison& comparison);
// compare.json and compare.html in `dir`, each written whole or not at all.
Status write_comparison(const std::filesystem::path& dir, const Comparison& comparison);

}  // namespace tidemark::report
