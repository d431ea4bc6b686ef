#include "report/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "core/files.h"
#include "report/baseline.h"
#include "report/plot.h"

namespace tidemark::report {

namespace fs = std::filesystem;

void mark_differences(CompareRow& row) {
  // A run cut short has no digest to agree on, whatever its record holds.
  auto ran = [](const CompareCell& cell) { return finished(cell.verdict) && !cell.digest.empty(); };
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
      if (!cell.driver.empty()) out["driver"] = cell.driver;
      if (!cell.dir.empty()) out["dir"] = cell.dir;
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

namespace {

constexpr const char* kCompareStyle =
    "body{font:14px system-ui,sans-serif;margin:2em;max-width:1600px}table{border-collapse:collapse;margin:4px 0}"
    "td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}td.cell{font:12px monospace}"
    "h1.green{color:#176f2c}h1.red{color:#b3261e}.green{background:#e6f4e6}"
    ".red,.unexpected-pass,.could-not-run,.not-judged,.crash,.timeout{background:#fbe3e3}"
    ".expected-red{background:#fff6d5}"
    ".worse{color:#b3261e;font-weight:bold}.improved{color:#176f2c;font-weight:bold}.changed{color:#8a5a00}"
    "dt{font-weight:bold;margin-top:4px}.why{color:#555}";

// The columns in the order they were asked for: the first is what the others are held to.
std::vector<std::string> columns_of(const Comparison& comparison) {
  std::vector<std::string> columns;
  for (const auto& row : comparison.rows)
    for (const auto& cell : row.cells)
      if (std::find(columns.begin(), columns.end(), cell.backend) == columns.end()) columns.push_back(cell.backend);
  return columns;
}

std::string cell_html(const CompareRow& row, const CompareCell& cell, const std::filesystem::path& dir) {
  const std::string verdict(verdict_name(cell.verdict));
  std::string html = fmt::format("<td class=\"cell {}\" data-column=\"{}\">", verdict, html_escape(cell.backend));
  if (cell.dir.empty() || dir.empty())
    html += verdict;
  else
    html += fmt::format("<a href=\"{}\">{}</a>",
                        html_escape(std::filesystem::path(cell.dir).lexically_relative(dir).generic_string()), verdict);
  if (!cell.pixel_hash.empty())
    html += fmt::format("<br>{}pixels {}{}", cell.same_pixels ? "" : "<span class=\"changed\">",
                        html_escape(cell.pixel_hash), cell.same_pixels ? "" : " (differ)</span>");
  for (const auto& [name, value] : cell.gauges) {
    auto move = std::find_if(cell.moves.begin(), cell.moves.end(), [&](const GaugeMove& m) { return m.gauge == name; });
    if (move == cell.moves.end())
      html += fmt::format("<br>{} {}", html_escape(name), value);
    else
      html += fmt::format("<br><span class=\"{}\" title=\"{} {}\">{} {} ({} {})</span>", movement_name(move->movement),
                          html_escape(row.reference), move->baseline, html_escape(name), value,
                          movement_name(move->movement), change_text(move->baseline, value));
  }
  for (const auto& failed : cell.failed) html += "<br>failed " + html_escape(failed);
  if (!cell.why.empty()) html += "<br><span class=\"why\">" + html_escape(cell.why) + "</span>";
  return html + "</td>";
}

}  // namespace

std::string comparison_html(const Comparison& comparison, const std::filesystem::path& dir) {
  const std::vector<std::string> columns = columns_of(comparison);
  size_t cells = 0, failing = 0;
  std::map<Verdict, size_t> counted;
  for (const auto& row : comparison.rows)
    for (const auto& cell : row.cells) {
      ++cells;
      ++counted[cell.verdict];
      if (!passes(cell.verdict)) ++failing;
    }
  std::vector<std::string> counts;
  for (Verdict verdict : kAllVerdicts)
    if (counted[verdict] > 0) counts.push_back(fmt::format("{} {}", counted[verdict], verdict_name(verdict)));
  std::string html = fmt::format(
      "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tidemark compare: {} failing of {} "
      "cells</title><style>{}</style></head><body>\n<header><h1 id=\"verdict\" class=\"{}\">{} failing of {} "
      "cells</h1><p id=\"counts\">{} subjects on {} columns: {}</p></header>\n",
      failing, cells, kCompareStyle, failing ? "red" : "green", failing, cells, comparison.rows.size(), columns.size(),
      fmt::join(counts, ", "));
  // What each column ran on, as its runs said (the first that ran in it).
  html += "<section id=\"columns\"><h2>Columns</h2><table><tr><th>column</th><th>ran on</th></tr>\n";
  for (const auto& column : columns) {
    std::string driver;
    for (const auto& row : comparison.rows)
      for (const auto& cell : row.cells)
        if (cell.backend == column && driver.empty() && !cell.digest.empty()) driver = cell.driver;
    html += fmt::format("<tr class=\"column\" data-column=\"{0}\"><td>{0}</td><td>{1}</td></tr>\n", html_escape(column),
                        driver.empty() ? "this process's driver (it named no other)" : html_escape(driver));
  }
  html +=
      "</table></section>\n<section id=\"legend\"><h2>Reading a row</h2><dl>"
      "<dt>reference</dt><dd>each row's cells are held to the first of its columns that ran</dd>"
      "<dt class=\"worse\">worse</dt><dd>the gauge moved the way the gauge catalogue calls worse</dd>"
      "<dt class=\"improved\">improved</dt><dd>it moved the other way</dd>"
      "<dt class=\"changed\">changed</dt><dd>a gauge with no worse direction moved, or the image's hash "
      "differs (pixels differ)</dd>"
      "<dt>verdict</dt><dd>the run's own: green, red, an expected red (expectations.txt), or not judged (the "
      "column cannot run the subject, and says why); it links to the run's folder</dd></dl></section>\n";
  html += "<section id=\"rows\"><h2>Rows</h2><table><tr><th>subject</th>";
  for (const auto& column : columns) html += "<th>" + html_escape(column) + "</th>";
  html += "</tr>\n";
  for (const auto& row : comparison.rows) {
    html += fmt::format("<tr class=\"row\" data-subject=\"{0}\"><td>{0}</td>", html_escape(row.scenario));
    for (const auto& column : columns) {
      auto cell =
          std::find_if(row.cells.begin(), row.cells.end(), [&](const CompareCell& c) { return c.backend == column; });
      html += cell == row.cells.end() ? "<td></td>" : cell_html(row, *cell, dir);
    }
    html += "</tr>\n";
  }
  return html + "</table></section>\n</body></html>\n";
}

Status write_comparison(const std::filesystem::path& dir, const Comparison& comparison) {
  TIDEMARK_CHECK(make_directories(dir));
  TIDEMARK_CHECK(write_file_atomically(dir / "compare.json", to_json(comparison).dump(2) + "\n"));
  return write_file_atomically(dir / "compare.html", comparison_html(comparison, fs::absolute(dir).lexically_normal()));
}

}  // namespace tidemark::report
