// `tidemark compare`'s document: the same scenarios on each backend (or driver build) side by
// side, a row per scenario and a cell per column (its verdict, every device gauge, the image's
// hash), each cell's differences from the row's first judged cell marked with which way they went
// (the gauge catalogue's direction). One type, written as compare.json and read by a person as
// compare.html.
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
  std::vector<std::pair<std::string, int64_t>> gauges;  // every device gauge, in catalogue order
  std::vector<std::string> failed;                      // "check: detail" of each failed check
  std::vector<GaugeMove> moves;  // the gauges that differ from the reference cell's (baseline = its value)
  bool same_pixels = true;       // the image's hash is the reference cell's
  std::string driver;            // what the run said it ran on (a real driver's identity, a build, a replayer)
  std::string dir;               // the run's report folder (absolute), or empty: nothing ran
};

struct CompareRow {
  std::string scenario;   // group/name
  std::string reference;  // the column the others are held to: the first that ran
  std::vector<CompareCell> cells;
};

// Fills `reference`, and each other cell's moves and same_pixels, against the row's first cell that ran.
void mark_differences(CompareRow& row);

struct Comparison {
  std::vector<CompareRow> rows;
};

nlohmann::json to_json(const Comparison& comparison);
// The page a person reads: a verdict header with the counts, each column with what its runs said
// they ran on, what worse, improved and changed mean, then a row per subject and a cell per
// column coloured by its verdict, linking to its run's folder (relative to `dir`, the page's).
std::string comparison_html(const Comparison& comparison, const std::filesystem::path& dir = {});
// compare.json and compare.html in `dir`, each written whole or not at all.
Status write_comparison(const std::filesystem::path& dir, const Comparison& comparison);

}  // namespace tidemark::report
