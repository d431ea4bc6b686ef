#include "report/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/files.h"
#include "report/baseline.h"
#include "report/plot.h"

namespace tidemark::report {

void mark_differences(CompareRow& row) {
  auto ran = [](const CompareCell& cell) { return !cell.digest.empty(); };
  auto first = std::find_if(row.cells.begin(), row.cells.end(), ran);
  if (first == row.cells.end()) return;
  row.reference = first->backend;
  std::map<std::string, int64_t> reference(first->gauges.begin(), first->gauges.end());
  const std::string reference_pixels = first->pixel_hash;
  for (auto& cell : row.cells) {
    if (!ran(cell) || &cell == &*first) continue;
    cell.moves.clear();
    cell.same_pixels = cell.pixel_hash == reference_pixels;
    for (const auto& [name, value] : cell.gauges) {
      auto found = reference.find(name);
      if (found == reference.end()) continue;
      const Movement movement = judge_gauge(name, found->second, value, {});
      if (movement != Movement::Same) cell.moves.push_back({name, found->second, value, movement});
    }
  }
}

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
        if (cell.backend != row.reference) {
          out["same_pixels"] = cell.same_pixels;
          out["differences"] = nlohmann::json::object();
          for (const auto& move : cell.moves)
            out["differences"][move.gauge] = {
                {"reference", move.baseline}, {"value", move.now}, {"movement", movement_name(move.movement)}};
        }
      }
      backends[cell.backend] = std::move(out);
    }
    nlohmann::json out{{"scenario", row.scenario}, {"backends", std::move(backends)}};
    if (!row.reference.empty()) out["reference"] = row.reference;
    rows.push_back(std::move(out));
  }
  return {{"rows", rows}};
}

std::string comparison_html(const Comparison& comparison) {
  // Columns in the order they were asked for: the first is what the others are held to.
  std::vector<std::string> columns;
  for (const auto& row : comparison.rows)
    for (const auto& cell : row.cells)
      if (std::find(columns.begin(), columns.end(), cell.backend) == columns.end()) columns.push_back(cell.backend);
  std::string html =
      "<!doctype html><meta charset=utf-8><title>Tidemark compare</title>"
      "<style>td,th{border:1px solid #999;padding:4px;vertical-align:top;font:13px monospace}"
      ".green{background:#dfd}.red,.unexpected-pass,.could-not-run,.not-judged{background:#fdd}"
      ".expected-red{background:#ffd}.worse{color:#b3261e;font-weight:bold}.improved{color:#176f2c;"
      "font-weight:bold}.changed{color:#8a5a00}"
      "</style><table><tr><th>scenario</th>";
  for (const auto& column : columns) html += "<th>" + html_escape(column) + "</th>";
  html += "</tr>";
  for (const auto& row : comparison.rows) {
    html += "<tr><td>" + html_escape(row.scenario) + "</td>";
    for (const auto& column : columns) {
      auto cell =
          std::find_if(row.cells.begin(), row.cells.end(), [&](const CompareCell& c) { return c.backend == column; });
      if (cell == row.cells.end()) {
        html += "<td></td>";
        continue;
      }
      const std::string verdict(verdict_name(cell->verdict));
      html += "<td class=\"" + verdict + "\">" + verdict;
      if (!cell->pixel_hash.empty())
        html += fmt::format("<br>{}pixels {}{}", cell->same_pixels ? "" : "<span class=\"changed\">",
                            html_escape(cell->pixel_hash), cell->same_pixels ? "" : " (differ)</span>");
      for (const auto& [name, value] : cell->gauges) {
        auto move =
            std::find_if(cell->moves.begin(), cell->moves.end(), [&](const GaugeMove& m) { return m.gauge == name; });
        if (move == cell->moves.end())
          html += fmt::format("<br>{} {}", html_escape(name), value);
        else
          html +=
              fmt::format("<br><span class=\"{}\" title=\"{} {}\">{} {} ({} {})</span>", movement_name(move->movement),
                          html_escape(row.reference), move->baseline, html_escape(name), value,
                          movement_name(move->movement), change_text(move->baseline, value));
      }
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
