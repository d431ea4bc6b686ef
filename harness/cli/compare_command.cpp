// `tidemark compare FILE... [--backend B]... [--expectations F] [--report DIR]`: the same
// scenarios on each backend (and driver), side by side: the verdict, the device gauges each
// gives and the image's hash, in the terminal and in compare.html / compare.json. Where a real
// driver and the reclaim model part ways shows as one row.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "cli/commands.h"
#include "core/files.h"
#include "report/plot.h"
#include "report/summary.h"
#include "runner/runner.h"
#include "session/builtin_backends.h"

namespace tidemark::cli {

namespace {

namespace fs = std::filesystem;

// The device gauges every backend that gives device gauges has: the ones worth a column.
constexpr const char* kShown[] = {"wlivepk", "devallocspk", "devbytespk", "dsetspk", "submits"};

std::string verdict(const runner::RunResult& result) {
  if (result.expected_failure) return "expected-red";
  if (result.unexpected_pass) return "unexpected-pass";
  return result.green ? "green" : "red";
}

using report::html_escape;

}  // namespace

int compare_command(const CompareArgs& args) {
  auto scenarios = load_all(args.inputs);
  if (!scenarios) return report_error(scenarios.error());
  for (const auto& name : args.backends)
    if (auto known = session::builtin_backends().lookup(name); !known)
      return report_error({ErrorKind::BadInput, "--backend: " + known.error().message});
  std::vector<runner::Expectation> expectations;
  runner::RunOptions options;
  if (!args.expectations.empty()) {
    auto loaded = runner::load_expectations(args.expectations);
    if (!loaded) return report_error(loaded.error());
    expectations = std::move(*loaded);
    options.expectations = &expectations;
  }
  options.report_dir = args.report.empty() ? default_report_dir() : fs::path(args.report);
  options.lane.backends = &session::builtin_backends();

  nlohmann::json rows = nlohmann::json::array();
  std::vector<runner::RunResult> all;
  bool failed = false;
  for (const auto& scenario : *scenarios) {
    std::vector<std::string> backends = args.backends.empty() ? scenario.backends : args.backends;
    if (backends.empty()) backends.push_back(runner::default_backend(scenario));
    nlohmann::json row{{"scenario", scenario.id()}, {"backends", nlohmann::json::object()}};
    fmt::print("{}/{}\n", scenario.group, scenario.name);
    for (const auto& backend : backends) {
      options.lane.backend = backend;
      auto result = runner::run(scenario, options);
      if (!result) {  // a backend that cannot judge it (its gauges) is a cell, not the end
        fmt::print("  {:<12} cannot judge it: {}\n", backend, result.error().message);
        row["backends"][backend] = {{"verdict", "cannot-judge"}, {"why", result.error().message}};
        continue;
      }
      failed = failed || !result->green;
      std::map<std::string, int64_t> gauges;
      for (const auto& [name, value] : named(result->gauges)) gauges[name] = value;
      std::string shown;
      for (const char* name : kShown) shown += fmt::format(" {}={}", name, gauges[name]);
      fmt::print("  {:<12} {:<15} pixels {}{}\n", backend, verdict(*result), result->pixel_hash, shown);
      nlohmann::json cell{{"verdict", verdict(*result)}, {"pixel_hash", result->pixel_hash}, {"digest", result->digest}};
      for (const char* name : kShown) cell["gauges"][name] = gauges[name];
      for (const auto& outcome : result->outcomes)
        if (!outcome.passed) cell["failed"].push_back(outcome.id.str() + ": " + outcome.detail);
      row["backends"][backend] = cell;
      all.push_back(std::move(*result));
    }
    rows.push_back(std::move(row));
  }

  if (auto ok = make_directories(options.report_dir); !ok) return report_error(ok.error());
  std::ofstream(options.report_dir / "compare.json") << nlohmann::json{{"rows", rows}}.dump(2) << '\n';
  // One table: a row per scenario, a cell per backend with its verdict, gauges and image hash.
  std::set<std::string> columns;
  for (const auto& row : rows)
    for (const auto& [backend, cell] : row["backends"].items()) columns.insert(backend);
  std::string html = "<!doctype html><meta charset=utf-8><title>Tidemark compare</title>"
                     "<style>td,th{border:1px solid #999;padding:4px;vertical-align:top;font:13px monospace}"
                     ".green{background:#dfd}.red,.unexpected-pass{background:#fdd}.expected-red{background:#ffd}"
                     "</style><table><tr><th>scenario</th>";
  for (const auto& column : columns) html += "<th>" + html_escape(column) + "</th>";
  html += "</tr>";
  for (const auto& row : rows) {
    html += "<tr><td>" + html_escape(row["scenario"].get<std::string>()) + "</td>";
    for (const auto& column : columns) {
      if (!row["backends"].contains(column)) {
        html += "<td></td>";
        continue;
      }
      const auto& cell = row["backends"][column];
      std::string verdict_text = cell["verdict"];
      html += "<td class=\"" + verdict_text + "\">" + verdict_text;
      if (cell.contains("pixel_hash")) html += "<br>pixels " + cell["pixel_hash"].get<std::string>();
      if (cell.contains("gauges"))
        for (const auto& [name, value] : cell["gauges"].items()) html += fmt::format("<br>{} {}", name, value.get<int64_t>());
      if (cell.contains("why")) html += "<br>" + html_escape(cell["why"].get<std::string>());
      html += "</td>";
    }
    html += "</tr>";
  }
  html += "</table>\n";
  std::ofstream(options.report_dir / "compare.html") << html;
  if (auto ok = report::write_summary(options.report_dir, {.command = "compare", .series = "compare"},
                                      runner::results_json(all));
      !ok)
    return report_error(ok.error());
  fmt::print("compare: {}\n", fs::absolute(options.report_dir / "compare.html").string());
  return failed ? kRed : kGreen;
}

}  // namespace tidemark::cli
