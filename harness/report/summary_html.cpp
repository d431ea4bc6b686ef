// summary.html: the summary for a person. Failures first, each failed check with its measured
// value against its bound; the digests as a lane-by-lane (and backend-by-backend) matrix, so a
// lane that disagrees stands out; then every run with all its checks, the gauges its scenario
// reads, links to its trace and image, and its trace's tracks plotted with axes. Plain HTML and
// SVG, no scripts, readable offline from the report folder.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>
#include <set>

#include "core/files.h"
#include "core/lane.h"
#include "report/baseline.h"
#include "report/plot.h"
#include "report/summary.h"
#include "tracer/importer.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

std::string link(const fs::path& relative) { return html_escape(relative.generic_string()); }

// The trace's tracks as step plots, time in ms along x and each track's unit up y.
std::string trace_plots(const fs::path& trace_file) {
  // A result folder is input to merge: its trace may be a pipe, a link to /dev/zero or a giant.
  auto bytes = read_given_file(trace_file, "trace", kMaxTraceBytes);
  if (!bytes) return fmt::format("<p class=\"error\">trace not plotted: {}</p>", html_escape(bytes.error().message));
  tracer::ImportedTrace trace = tracer::import_trace(*bytes);
  std::vector<PlotSeries> series;
  for (const auto& track : trace.tracks) {
    PlotSeries s{track.label(), {}, static_cast<double>(trace.end_ts), track.unit};
    for (const auto& row : track.rows) s.points.emplace_back(static_cast<double>(row.ts), row.value);
    series.push_back(std::move(s));
  }
  return series.empty() ? "" : step_plot(series, kTraceTime);
}

std::string images(const CheckRecord& check) {
  std::string out;
  for (const auto& artifact : check.artifacts)
    out += fmt::format(" <a href=\"{0}\"><img src=\"{0}\" alt=\"{0}\"></a>", link(artifact));
  return out;
}

std::string check_row(const CheckRecord& check) {
  const bool passed = check.passed;
  return fmt::format(
      "<tr class=\"check {}\"><td>{}</td><td><code>{}</code></td><td class=\"value\">{}</td><td class=\"where\">{}</td>"
      "<td>{}{}</td></tr>\n",
      passed ? "passed" : "failed", passed ? "&#10003;" : "&#10007;", html_escape(check.check),
      html_escape(check.detail), html_escape(check.where), html_escape(check.id), images(check));
}

std::string failures_section(const std::vector<const RunRecord*>& ordered) {
  std::string rows;
  size_t count = 0;
  for (const RunRecord* result : ordered) {
    if (record_passes(*result)) break;
    if (not_ran(result->verdict)) continue;  // not a failure: its article says why it did not run
    ++count;
    std::string what;
    if (!result->why.empty())
      what +=
          fmt::format("<div class=\"error\">{}: {}</div>", verdict_label(result->verdict), html_escape(result->why));
    if (result->baseline)
      for (const auto& move : result->baseline->moves)
        if (move.movement == Movement::Worse)
          what += fmt::format("<div class=\"error\">WORSE THAN BASELINE: {}</div>", html_escape(describe(move)));
    std::string checks;
    for (const auto& check : result->checks)
      if (!check.passed) checks += check_row(check);
    if (!checks.empty()) what += "<table class=\"checks\">" + checks + "</table>";
    rows += fmt::format("<tr class=\"failure\"><td><a href=\"#{}\"><code>{}</code></a></td><td>{}</td></tr>\n",
                        html_escape(result->test), html_escape(result->test), what);
  }
  if (count == 0) return "<section id=\"failures\"><h2>Failures</h2><p class=\"none\">None.</p></section>\n";
  return fmt::format(
      "<section id=\"failures\"><h2>Failures ({})</h2><table class=\"failures\">\n{}</table></section>\n", count, rows);
}

std::string parity_section(const std::vector<ParityRow>& parity) {
  // Columns: every (backend, lane) any row has, lanes in their own order.
  std::vector<std::pair<std::string, std::string>> columns;
  auto lane_rank = [](const std::string& lane) {
    for (size_t k = 0; k < std::size(kAllLanes); ++k)
      if (lane_name(kAllLanes[k]) == lane) return k;
    return std::size(kAllLanes);
  };
  for (const auto& row : parity)
    for (const auto& cell : row.cells) {
      std::pair<std::string, std::string> column{cell.backend, cell.lane};
      if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
    }
  std::sort(columns.begin(), columns.end(), [&](const auto& a, const auto& b) {
    return std::pair(a.first, lane_rank(a.second)) < std::pair(b.first, lane_rank(b.second));
  });
  std::string head = "<tr><th>scenario</th><th>one digest</th>";
  for (const auto& [backend, lane] : columns)
    head += fmt::format("<th>{}<br>{}</th>", html_escape(backend), html_escape(lane));
  head += "</tr>\n";
  std::string rows;
  size_t differ = 0;
  for (const auto& row : parity) {
    const bool same = row.same;
    differ += same ? 0 : 1;
    rows += fmt::format("<tr class=\"parity {}\"><td><code>{}</code><div class=\"variant\">{}</div></td><td>{}</td>",
                        same ? "same" : "differ", html_escape(row.subject), html_escape(row.variant),
                        same ? "yes" : "<b>NO</b>");
    for (const auto& column : columns) {
      std::string cell_html = "<td class=\"digest empty\"></td>";
      for (const auto& cell : row.cells)
        if (cell.backend == column.first && cell.lane == column.second)
          cell_html = fmt::format("<td class=\"digest {}\" title=\"{}\"><a href=\"#{}\"><code>{}</code></a></td>",
                                  passes(cell.verdict) ? "green" : "red", html_escape(cell.digest),
                                  html_escape(cell.test), html_escape(cell.digest.substr(0, 8)));
      rows += cell_html;
    }
    rows += "</tr>\n";
  }
  return fmt::format(
      "<section id=\"parity\"><h2>Digests by lane and backend</h2><p>{} of {} scenarios give one digest{}.</p>"
      "<table class=\"matrix\">\n{}{}</table></section>\n",
      parity.size() - differ, parity.size(), differ ? fmt::format(" (<b>{} differ</b>)", differ) : "", head, rows);
}

// Every run that moved against the baseline, worst first, and what the baseline had that no run did.
std::string baseline_section(const Summary& summary, const std::vector<const RunRecord*>& ordered) {
  if (!summary.baseline) return "";
  std::map<Movement, size_t> counts;
  std::vector<const RunRecord*> moved;
  for (const RunRecord* result : ordered) {
    if (!result->baseline) continue;
    ++counts[result->baseline->movement];
    if (result->baseline->movement != Movement::Same) moved.push_back(result);
  }
  constexpr Movement kOrder[] = {Movement::Worse, Movement::Improved, Movement::Changed, Movement::New, Movement::Same};
  std::stable_sort(moved.begin(), moved.end(), [&](const RunRecord* a, const RunRecord* b) {
    return std::ranges::find(kOrder, a->baseline->movement) < std::ranges::find(kOrder, b->baseline->movement);
  });
  std::string tally;
  for (Movement movement : kOrder)
    tally += fmt::format("{}{} {}", tally.empty() ? "" : ", ", counts[movement], movement_name(movement));
  std::string rows;
  for (const RunRecord* result : moved) {
    std::string moves;
    for (const auto& move : result->baseline->moves)
      moves +=
          fmt::format("<div class=\"move {}\">{}</div>", movement_name(move.movement), html_escape(describe(move)));
    rows += fmt::format(
        "<tr class=\"moved {0}\"><td><a href=\"#{1}\"><code>{1}</code></a></td><td class=\"movement\">{0}</td>"
        "<td>{2}</td></tr>\n",
        movement_name(result->baseline->movement), html_escape(result->test), moves);
  }
  for (const auto& test : summary.baseline->gone)
    rows += fmt::format(
        "<tr class=\"moved gone\"><td><code>{}</code></td><td class=\"movement\">gone</td>"
        "<td>in the baseline, not run now</td></tr>\n",
        html_escape(test));
  return fmt::format(
      "<section id=\"baseline\"><h2>Against the baseline</h2><p><code>{}</code>: {}, {} gone.</p>"
      "<table class=\"baseline\">\n{}</table></section>\n",
      html_escape(summary.baseline->source), tally, summary.baseline->gone.size(), rows);
}

std::string gauges_table(const RunRecord& result) {
  if (result.gauges_used.empty()) return "";
  std::string cells;
  for (const auto& name : result.gauges_used) {
    const auto value = gauge_value(result, name);
    cells += fmt::format("<tr><td><code>{}</code></td><td class=\"value\">{}</td></tr>", html_escape(name),
                         value ? fmt::format("{}", *value) : "?");
  }
  return "<table class=\"gauges\"><tr><th>gauge</th><th>value</th></tr>" + cells + "</table>";
}

std::string run_article(const RunRecord& result, const fs::path& dir) {
  std::string checks;
  for (const auto& check : result.checks) checks += check_row(check);
  std::string links, plots;
  if (!result.dir.empty()) {
    const fs::path relative(result.dir);
    const fs::path base = relative.is_absolute() ? relative : dir / relative;
    if (fs::exists(base / "trace.pftrace")) {
      links += fmt::format("<a class=\"trace\" href=\"{}\">trace.pftrace</a> ", link(relative / "trace.pftrace"));
      plots = trace_plots(base / "trace.pftrace");
    }
    if (fs::exists(base / "actual.png"))
      links += fmt::format("<a class=\"image\" href=\"{0}\"><img src=\"{0}\" alt=\"actual image\"></a> ",
                           link(relative / "actual.png"));
    if (fs::exists(base / "result.json"))
      links += fmt::format("<a href=\"{}\">result.json</a>", link(relative / "result.json"));
  }
  return fmt::format(
      "<article class=\"run {}\" id=\"{}\"><h3><code>{}</code> <span class=\"verdict\">{}</span> "
      "{}<span class=\"seconds\">{:.2f} s</span></h3>\n<p class=\"meta\">{} &middot; backend {} &middot; digest "
      "<code>{}</code></p>\n"
      "<table class=\"checks\"><tr><th></th><th>check</th><th>measured</th><th>where</th><th>id</th></tr>\n{}</table>\n"
      "{}<p class=\"links\">{}</p><div class=\"plots\">{}</div></article>\n",
      not_ran(result.verdict) ? "skipped"
      : record_passes(result) ? "green"
                              : "red",
      html_escape(result.test), html_escape(result.test), verdict_label(result.verdict),
      result.baseline ? fmt::format("<span class=\"movement {0}\">{0} against the baseline</span> ",
                                    movement_name(result.baseline->movement))
                      : "",
      result.seconds, html_escape(result.file), html_escape(result.column.text()), html_escape(result.digest), checks,
      gauges_table(result), links, plots);
}

std::string origin_line(const Origin& origin) {
  std::string line = html_escape(origin.series.empty() ? origin.command : origin.series);
  if (origin.shard)
    line += fmt::format(" &middot; shard {} of {} ({}): {} of {} scenarios", origin.shard->index, origin.shard->total,
                        html_escape(origin.shard->protocol), origin.shard->members.size(), origin.shard->of);
  if (!origin.merged_from.empty()) line += fmt::format(" &middot; merged from {} summaries", origin.merged_from.size());
  return line;
}

constexpr const char* kStyle =
    "body{font:14px system-ui,sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;margin:4px 0}"
    "td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}"
    "h1.green,.run.green .verdict,tr.passed td:first-child,td.digest.green a{color:#176f2c}.red "
    ".verdict,h1.red,tr.failed td:first-child,.error"
    "{color:#b3261e;font-weight:bold}tr.parity.differ{background:#fde7e9}td.digest.red{background:#fbd5d5}"
    "article.run{border-top:1px solid #999;margin-top:1em}article.run.red{border-left:4px solid "
    "#b3261e;padding-left:8px}"
    "code{font-size:12px}.variant,.meta,.where{color:#555;font-size:12px}td.value{font-family:monospace}"
    ".movement.worse,.move.worse{color:#b3261e;font-weight:bold}.movement.improved,.move.improved{color:#176f2c}"
    ".movement.changed,.move.changed,.movement.new,.movement.gone{color:#8a5a00}"
    "img{image-rendering:pixelated;height:48px;margin-right:6px;border:1px solid #999;vertical-align:middle}";

}  // namespace

std::string summary_html(const Summary& summary, const fs::path& dir) {
  std::vector<const RunRecord*> ordered;
  for (const auto& result : summary.results) ordered.push_back(&result);
  std::stable_sort(ordered.begin(), ordered.end(), [](const RunRecord* a, const RunRecord* b) {
    return std::tuple(record_passes(*a), failure_rank(a->verdict), a->test) <
           std::tuple(record_passes(*b), failure_rank(b->verdict), b->test);
  });
  const size_t green = summary.green, red = summary.red;
  // Flaky runs are neither green nor red (nor are skipped ones), and said so when there are any.
  const std::string flaky = summary.flaky ? fmt::format(", {} flaky", summary.flaky) : "";
  std::string runs;
  for (const RunRecord* result : ordered) runs += run_article(*result, dir);
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Tidemark: {} red, {} green{}</title>\n"
      "<style>{}</style>\n</head><body>\n<header><h1 id=\"verdict\" class=\"{}\">{} red, {} green of {}{}{}</h1>"
      "<p class=\"origin\">{}</p></header>\n{}{}{}<section id=\"runs\"><h2>Runs</h2>\n{}</section>\n</body></html>\n",
      red, green, flaky, kStyle, red || summary.flaky ? "red" : "green", red, green, red + green, flaky,
      summary.skipped ? fmt::format(" ({} skipped or not run)", summary.skipped) : "", origin_line(summary.origin),
      failures_section(ordered), baseline_section(summary, ordered), parity_section(summary.parity), runs);
}

}  // namespace tidemark::report
