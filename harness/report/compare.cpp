#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/files.h"
#include "report/plot.h"

namespace tidemark::report {

nlohmann::json to_json(const Comparison& comparison) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : comparison.rows) {
    nlohmann::json backends = nlohmann::json::object();
    for (const auto& cell : row.cells) {
      nlohmann::json out{{"verdict", verdict_name(cell.verdict)}};
      if (!cell.why.empty()) out["why"] = cell.why;
      if (!cell.digest.empty()) {
        out["pixel_hash"] = cell.pixel_hash;
        out["digest"] = cell.digest;
        for (const auto& [name, value] : cell.gauges) out["gauges"][name] = value;
        for (const auto& failed : cell.failed) out["failed"].push_back(failed);
      }
      backends[cell.backend] = std::move(out);
    }
    rows.push_back({{"scenario", row.scenario}, {"backends", std::move(backends)}});
  }
  return {{"rows", rows}};
}

std::string comparison_html(const Comparison& comparison) {
  std::set<std::string> columns;
  for (const auto& row : comparison.rows)
    for (const auto& cell : row.cells) columns.insert(cell.backend);
  std::string html = "<!doctype html><meta charset=utf-8><title>Tidemark compare</title>"
                     "<style>td,th{border:1px solid #999;padding:4px;vertical-align:top;font:13px monospace}"
                     ".green{background:#dfd}.red,.unexpected-pass,.could-not-run,.not-judged{background:#fdd}"
                     ".expected-red{background:#ffd}"
                     "</style><table><tr><th>scenario</th>";
  for (const auto& column : columns) html += "<th>" + html_escape(column) + "</th>";
  html += "</tr>";
  for (const auto& row : comparison.rows) {
    html += "<tr><td>" + html_escape(row.scenario) + "</td>";
    for (const auto& column : columns) {
      auto cell = std::find_if(row.cells.begin(), row.cells.end(), [&](const CompareCell& c) { return c.backend == column; });
      if (cell == row.cells.end()) {
        html += "<td></td>";
        continue;
      }
      const std::string verdict(verdict_name(cell->verdict));
      html += "<td class=\"" + verdict + "\">" + verdict;
      if (!cell->pixel_hash.empty()) html += "<br>pixels " + html_escape(cell->pixel_hash);
      for (const auto& [name, value] : cell->gauges) html += fmt::format("<br>{} {}", html_escape(name), value);
      if (!cell->why.empty()) html += "<br>" + html_escape(cell->why);
      html += "</td>";
    }
    html += "</tr>";
  }
  return html + "</table>\n";
}

Status write_comparison(const std::filesystem::path& dir, const Comparison& comparison) {
  TIDEMARK_CHECK(make_directories(dir));
  TIDEMARK_CHECK(write_file_atomically(dir / "compare.json", to_json(comparison).dump(2) + "\n"));
  return write_file_atomically(dir / "compare.html", comparison_html(comparison));
}

}  // namespace tidemark::report
