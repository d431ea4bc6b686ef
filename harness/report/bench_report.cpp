#include "report/bench_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>

#include "core/files.h"
#include "report/json_fields.h"
#include "report/plot.h"

namespace tidemark::report {

namespace fs = std::filesystem;

namespace {

constexpr DocumentKind kBenchDocument{"tidemark-bench", 1, "a bench report (bench.json)"};

// The history's plot: a panel per stream and lane, the harness's ns per call night by night.
std::string history_plot(const std::vector<BenchReport>& nights) {
  std::map<std::string, PlotSeries> series;  // by "stream lane"
  for (size_t night = 0; night < nights.size(); ++night)
    for (const auto& row : nights[night].results)
      if (row.harness_ns_per_call) {
        const std::string name = row.stream + " " + row.lane;
        PlotSeries& line = series[name];
        line.label = name + ": harness ns per call";
        line.unit = "ns";
        line.points.emplace_back(static_cast<double>(night + 1), *row.harness_ns_per_call);
        line.x_end = static_cast<double>(night + 2);  // a night's value holds until the next
      }
  std::vector<PlotSeries> panels;
  for (auto& [name, line] : series) panels.push_back(std::move(line));
  return step_plot(panels, {"night", 1});
}

}  // namespace

nlohmann::json to_json(const BenchReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& row : report.results) {
    nlohmann::json out = {{"stream", row.stream},
                          {"lane", row.lane},
                          {"commands", row.commands},
                          {"median_seconds", row.median_seconds},
                          {"commands_per_second", row.commands_per_second},
                          {"ratio_to_monolith", row.ratio_to_monolith},
                          {"runs", row.runs}};
    if (row.floor_seconds) out["floor_seconds"] = *row.floor_seconds;
    if (row.harness_ns_per_call) out["harness_ns_per_call"] = *row.harness_ns_per_call;
    if (row.layer_seconds) out["layer_seconds"] = *row.layer_seconds;
    if (row.floor_calls) out["floor_calls"] = *row.floor_calls;
    if (row.whole)
      out["whole_process"] = {
          {"replay_seconds", row.whole->replay_seconds}, {"floor_seconds", row.whole->floor_seconds},
          {"seconds_ratio", row.whole->seconds_ratio},   {"replay_rss_mib", row.whole->replay_rss_mib},
          {"floor_rss_mib", row.whole->floor_rss_mib},   {"rss_ratio", row.whole->rss_ratio}};
    if (row.observed)
      out["observed_process"] = {{"plain_seconds", row.observed->plain_seconds},
                                 {"observed_seconds", row.observed->observed_seconds},
                                 {"ratio", row.observed->ratio}};
    results.push_back(std::move(out));
  }
  return {{"label", report.label},
          {"date", report.date},
          {"floor", report.floor ? nlohmann::json(*report.floor) : nlohmann::json(nullptr)},
          {"results", std::move(results)}};
}

Result<BenchReport> bench_report_from_json(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  BenchReport report;
  report.label = fields.take<std::string>("label");
  report.date = fields.take<std::string>("date");
  if (json.is_object() && json.contains("floor") && json["floor"].is_null())
    fields.skip("floor");
  else
    report.floor = fields.take<std::string>("floor");
  fields.objects("results", [&](JsonFields& in) {
    BenchRow& row = report.results.emplace_back();
    row.stream = in.take<std::string>("stream");
    row.lane = in.take<std::string>("lane");
    row.commands = in.take<uint64_t>("commands");
    row.median_seconds = in.take<double>("median_seconds");
    row.commands_per_second = in.take<double>("commands_per_second");
    row.ratio_to_monolith = in.take<double>("ratio_to_monolith");
    row.runs = in.take<std::vector<double>>("runs");
    row.floor_seconds = in.take_optional<double>("floor_seconds");
    row.harness_ns_per_call = in.take_optional<double>("harness_ns_per_call");
    row.layer_seconds = in.take_optional<double>("layer_seconds");
    row.floor_calls = in.take_optional<uint64_t>("floor_calls");
    in.object(
        "whole_process",
        [&](JsonFields& whole) {
          row.whole = WholeProcess{.replay_seconds = whole.take<double>("replay_seconds"),
                                   .floor_seconds = whole.take<double>("floor_seconds"),
                                   .seconds_ratio = whole.take<double>("seconds_ratio"),
                                   .replay_rss_mib = whole.take<double>("replay_rss_mib"),
                                   .floor_rss_mib = whole.take<double>("floor_rss_mib"),
                                   .rss_ratio = whole.take<double>("rss_ratio")};
        },
        /*required=*/false);
    in.object(
        "observed_process",
        [&](JsonFields& observed) {
          row.observed = ObservedProcess{.plain_seconds = observed.take<double>("plain_seconds"),
                                         .observed_seconds = observed.take<double>("observed_seconds"),
                                         .ratio = observed.take<double>("ratio")};
        },
        /*required=*/false);
  });
  TIDEMARK_CHECK(fields.finish());
  return report;
}

Status write_bench_report(const fs::path& file, const BenchReport& report) {
  return write_document(file, to_json(report), kBenchDocument);
}

// One report a line (no file: no nights), read before anything is measured so that a bad
// history costs no run.
Result<std::vector<BenchReport>> load_bench_history(const fs::path& history) {
  std::vector<BenchReport> nights;
  TIDEMARK_TRY(text, read_file_if_present(history, "bench history"));
  if (!text) return nights;
  std::istringstream in(std::move(*text));
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", history.string(), number);
    auto night = too_deep(line) ? nlohmann::json() : nlohmann::json::parse(line, nullptr, false);
    if (!night.is_object())
      return fail(ErrorKind::BadInput, fmt::format("{}:1: expected one night's bench results as JSON, found '{}'",
                                                   where, line.substr(0, 40)));
    TIDEMARK_TRY(body, without_kind(std::move(night), where, kBenchDocument));
    TIDEMARK_TRY(report, bench_report_from_json(body, where));
    nights.push_back(std::move(report));
  }
  return nights;
}

Status record_bench_history(const fs::path& history, std::vector<BenchReport> nights, const BenchReport& tonight,
                            const fs::path& report_dir) {
  nights.push_back(tonight);
  std::string text;
  for (const auto& night : nights) text += with_kind(to_json(night), kBenchDocument).dump() + '\n';
  TIDEMARK_CHECK(write_file_atomically(history, text));
  std::string html =
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tidemark bench history</title></head>"
      "<body>\n<h1>Harness nanoseconds per call above the Vulkan floor</h1>\n" +
      history_plot(nights) + "</body></html>\n";
  return write_file_atomically(report_dir / "bench-history.html", html);
}

namespace {

// A row's ratios by name (a ratio a row lacks is not there).
std::vector<std::pair<std::string, double>> ratios_of(const BenchRow& row) {
  std::vector<std::pair<std::string, double>> out;
  if (row.floor_seconds && *row.floor_seconds > 0)
    out.emplace_back("replay / floor", row.median_seconds / *row.floor_seconds);
  if (row.layer_seconds && row.floor_seconds && *row.floor_seconds > 0)
    out.emplace_back("layer / floor", *row.layer_seconds / *row.floor_seconds);
  // ratio_to_monolith is of rates (higher is faster): the lane's time against monolith's is its inverse.
  if (row.lane != "monolith" && row.ratio_to_monolith > 0)
    out.emplace_back("lane / monolith", 1 / row.ratio_to_monolith);
  if (row.whole) {
    out.emplace_back("whole / floor+draw", row.whole->seconds_ratio);
    out.emplace_back("peak RSS / floor+draw", row.whole->rss_ratio);
  }
  if (row.observed) out.emplace_back("observe / plain", row.observed->ratio);
  return out;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

std::string BenchRegression::describe() const {
  return fmt::format("{} {}: {} {:.2f} vs {:.2f} over {} night{} ({:+.0f}%)", stream, lane, ratio, tonight, median,
                     nights, nights == 1 ? "" : "s", (tonight / median - 1) * 100);
}

std::vector<BenchRegression> regressions(const std::vector<BenchReport>& nights, const BenchReport& tonight,
                                         double allowed) {
  std::vector<BenchRegression> out;
  for (const auto& row : tonight.results)
    for (const auto& [ratio, value] : ratios_of(row)) {
      std::vector<double> before;
      for (const auto& night : nights)
        for (const auto& earlier : night.results)
          if (earlier.stream == row.stream && earlier.lane == row.lane)
            for (const auto& [name, then] : ratios_of(earlier))
              if (name == ratio) before.push_back(then);
      if (before.empty()) continue;
      const double median = median_of(before);
      if (value > median * (1 + allowed))
        out.push_back({.stream = row.stream,
                       .lane = row.lane,
                       .ratio = ratio,
                       .tonight = value,
                       .median = median,
                       .nights = before.size()});
    }
  return out;
}

}  // namespace tidemark::report
