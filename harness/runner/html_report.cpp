// summary.html: the run for people — one row per result, failed checks with their measured
// values, and the PNGs next to them. Plain HTML, no scripts, readable offline.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "core/files.h"
#include "runner/plot.h"
#include "runner/runner.h"
#include "tracer/importer.h"

namespace tidemark::runner {

namespace {

std::string relative_link(const std::filesystem::path& target, const std::filesystem::path& dir) {
  std::error_code ec;
  auto relative = std::filesystem::relative(target, dir, ec);
  return html_escape((ec || relative.empty() ? target : relative).generic_string());
}

// The run's trace tracks as small step plots, one <path> per track, so a person sees the
// reclaim happen (parked bytes rising to the watermark and falling at each sync). A track of
// many rows keeps at most kMaxPoints of them, evenly spaced.
std::string trace_plot(const std::filesystem::path& trace_file) {
  std::ifstream in(trace_file, std::ios::binary);
  if (!in) return "";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  tracer::ImportedTrace trace = tracer::import_trace(bytes);
  if (trace.tracks.empty()) return "";
  std::vector<PlotSeries> series;
  for (const auto& track : trace.tracks) {
    PlotSeries s{track.label(), {}, static_cast<double>(trace.end_ts)};
    for (const auto& row : track.rows) s.points.emplace_back(static_cast<double>(row.ts), row.value);
    series.push_back(std::move(s));
  }
  return step_plot(series);
}

}  // namespace

Status write_html_summary(const std::vector<RunResult>& results, const std::filesystem::path& dir) {
  size_t green = 0;
  for (const auto& result : results) green += result.green ? 1 : 0;
  std::string html = fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tidemark: {} green, {} red</title>\n"
      "<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}"
      "td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}}"
      ".green{{color:#176f2c}}.red{{color:#b3261e;font-weight:bold}}code{{font-size:12px}}"
      "img{{image-rendering:pixelated;height:48px;margin-right:6px;border:1px solid #999}}</style>\n"
      "</head><body>\n<h1>{} green, {} red</h1>\n<table>\n"
      "<tr><th>test</th><th>result</th><th>gauges</th><th>digest</th><th>checks</th><th>image</th><th>trace</th></tr>\n",
      green, results.size() - green, green, results.size() - green);
  for (const auto& result : results) {
    std::string checks;
    if (result.error) checks += fmt::format("<div class=\"red\">error: {}</div>", html_escape(result.error->message));
    for (const auto& outcome : result.outcomes) {
      if (outcome.passed) continue;
      checks += fmt::format("<div><span class=\"red\">failed</span> <code>{}</code>: {}", html_escape(outcome.text),
                            html_escape(outcome.detail));
      for (const auto& artifact : outcome.artifacts)
        checks += fmt::format(" <a href=\"{0}\"><img src=\"{0}\" alt=\"{0}\"></a>", relative_link(artifact, dir));
      checks += "</div>";
    }
    if (checks.empty()) checks = fmt::format("{} checks passed", result.outcomes.size());
    std::string image;
    auto actual = result.report_dir / "actual.png";
    if (!result.report_dir.empty() && std::filesystem::exists(actual))
      image = fmt::format("<a href=\"{0}\"><img src=\"{0}\" alt=\"actual\"></a>", relative_link(actual, dir));
    std::string plot;
    auto trace = result.report_dir / "trace.pftrace";
    if (!result.report_dir.empty() && std::filesystem::exists(trace))
      plot = fmt::format("<a href=\"{}\">trace.pftrace</a><br>{}", relative_link(trace, dir), trace_plot(trace));
    html += fmt::format(
        "<tr><td><code>{}</code></td><td class=\"{}\">{}</td><td><code>{}</code></td><td><code>{}</code></td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        html_escape(result.test_name), result.green ? "green" : "red", result.green ? "GREEN" : "RED",
        html_escape(gauge_line(result.gauges)), html_escape(result.digest), checks, image, plot);
  }
  html += "</table>\n</body></html>\n";
  return write_file_atomically(dir / "summary.html", html);
}

}  // namespace tidemark::runner
