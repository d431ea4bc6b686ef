// summary.html: the run for people — one row per result, failed checks with their measured
// values, and the PNGs next to them. Plain HTML, no scripts, readable offline.
#include <fmt/format.h>

#include "core/files.h"
#include "runner/runner.h"

namespace tidemark::runner {

namespace {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string relative_link(const std::filesystem::path& target, const std::filesystem::path& dir) {
  std::error_code ec;
  auto relative = std::filesystem::relative(target, dir, ec);
  return escape((ec || relative.empty() ? target : relative).generic_string());
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
      "<tr><th>test</th><th>result</th><th>gauges</th><th>digest</th><th>checks</th><th>image</th></tr>\n",
      green, results.size() - green, green, results.size() - green);
  for (const auto& result : results) {
    std::string checks;
    if (result.error) checks += fmt::format("<div class=\"red\">error: {}</div>", escape(result.error->message));
    for (const auto& outcome : result.outcomes) {
      if (outcome.passed) continue;
      checks += fmt::format("<div><span class=\"red\">failed</span> <code>{}</code>: {}", escape(outcome.text),
                            escape(outcome.detail));
      for (const auto& artifact : outcome.artifacts)
        checks += fmt::format(" <a href=\"{0}\"><img src=\"{0}\" alt=\"{0}\"></a>", relative_link(artifact, dir));
      checks += "</div>";
    }
    if (checks.empty()) checks = fmt::format("{} checks passed", result.outcomes.size());
    std::string image;
    auto actual = result.report_dir / "actual.png";
    if (!result.report_dir.empty() && std::filesystem::exists(actual))
      image = fmt::format("<a href=\"{0}\"><img src=\"{0}\" alt=\"actual\"></a>", relative_link(actual, dir));
    html += fmt::format(
        "<tr><td><code>{}</code></td><td class=\"{}\">{}</td><td><code>{}</code></td><td><code>{}</code></td>"
        "<td>{}</td><td>{}</td></tr>\n",
        escape(result.test_name), result.green ? "green" : "red", result.green ? "GREEN" : "RED",
        escape(gauge_line(result.gauges)), escape(result.digest), checks, image);
  }
  html += "</table>\n</body></html>\n";
  return write_file_atomically(dir / "summary.html", html);
}

}  // namespace tidemark::runner
