#include "report/soak_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/files.h"
#include "report/json_fields.h"

namespace tidemark::report {

namespace {

constexpr DocumentKind kSoakDocument{"tidemark-soak", 1, "a soak report (soak.json)"};

// A sample is a row of numbers in this order (a long soak has tens of thousands of them).
constexpr const char* kSampleColumns[] = {
    "calls",          "seconds",     "client_rss_kib",       "client_maps",
    "server_rss_kib", "server_maps", "client_heap_held_kib", "client_heap_used_kib"};

nlohmann::json slope_json(const Slope& slope) {
  return {{"per_million_calls", slope.per_million_calls}, {"samples", slope.samples}};
}

void read_slope(JsonFields& fields, std::string_view key, Slope& slope) {
  fields.object(key, [&](JsonFields& inner) {
    slope.per_million_calls = inner.take<double>("per_million_calls");
    slope.samples = inner.take<uint64_t>("samples");
  });
}

std::string lane_row(const SoakLaneReport& lane) {
  const auto server = [&](int64_t value) { return lane.separate_server ? fmt::format("{}", value) : "(client)"; };
  return fmt::format(
      "<tr><td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td><td>{}</td><td>{:+.0f}</td><td>{:+.1f}</td>"
      "<td>{}</td><td>{}</td><td>{:+.0f}</td><td>{:+.1f}</td><td>{}</td><td>{}</td></tr>\n",
      html_escape(lane.lane), lane.calls, lane.seconds, lane.client_rss_peak_kib / 1024, lane.client_maps_peak,
      lane.client_rss.per_million_calls, lane.client_maps.per_million_calls, server(lane.server_rss_peak_kib / 1024),
      server(lane.server_maps_peak), lane.server_rss.per_million_calls, lane.server_maps.per_million_calls,
      lane.live_stores_peak, lane.parked_bytes_peak);
}

std::string lane_plots(const SoakLaneReport& lane) {
  auto series = [&](std::string label, auto value) {
    PlotSeries s{std::move(label), {}, static_cast<double>(lane.calls)};
    for (const auto& sample : lane.samples)
      s.points.emplace_back(static_cast<double>(sample.calls), static_cast<double>(value(sample)));
    return s;
  };
  std::vector<PlotSeries> memory = {
      series("client RSS KiB over calls", [](const SoakSample& s) { return s.client.rss_kib; }),
      series("client mappings over calls", [](const SoakSample& s) { return s.client.mappings; }),
      series("client malloc heap held KiB over calls", [](const SoakSample& s) { return s.heap_held_kib; }),
      series("client malloc heap in use KiB over calls", [](const SoakSample& s) { return s.heap_used_kib; })};
  if (lane.separate_server) {
    memory.push_back(series("server RSS KiB over calls", [](const SoakSample& s) { return s.server.rss_kib; }));
    memory.push_back(series("server mappings over calls", [](const SoakSample& s) { return s.server.mappings; }));
  }
  return fmt::format("<h2>{}</h2>\n{}\n{}\n", html_escape(lane.lane), step_plot(memory, {"calls", 1}),
                     lane.store_series.empty() ? "" : step_plot(lane.store_series, kTraceTime));
}

std::string soak_html(const SoakReport& report) {
  std::string rows, plots;
  for (const auto& lane : report.lanes) {
    rows += lane_row(lane);
    plots += lane_plots(lane);
  }
  return fmt::format(
      "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Tidemark soak</title>"
      "<style>body{{font-family:sans-serif}}td,th{{padding:2px 8px;text-align:right}}</style></head><body>\n"
      "<h1>Soak</h1>\n<p>Slopes are least-squares fits after the first {:.0f}% of the samples, per million "
      "calls; bounds: RSS {} KiB, mappings {}.</p>\n<table>\n<tr><th>lane</th><th>calls</th><th>s</th>"
      "<th>client peak MiB</th><th>client maps</th><th>client KiB/Mcall</th><th>client maps/Mcall</th>"
      "<th>server peak MiB</th><th>server maps</th><th>server KiB/Mcall</th><th>server maps/Mcall</th>"
      "<th>live stores peak</th><th>parked bytes peak</th></tr>\n{}</table>\n{}</body></html>\n",
      report.warm_up_fraction * 100, report.max_rss_slope_kib, report.max_maps_slope, rows, plots);
}

}  // namespace

bool SoakReport::green() const {
  return std::all_of(lanes.begin(), lanes.end(), [](const SoakLaneReport& lane) { return lane.green(); });
}

nlohmann::json to_json(const SoakReport& report) {
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& lane : report.lanes) {
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : lane.samples)
      samples.push_back({s.calls, s.seconds, s.client.rss_kib, s.client.mappings, s.server.rss_kib, s.server.mappings,
                         s.heap_held_kib, s.heap_used_kib});
    lanes.push_back({{"lane", lane.lane},
                     {"separate_server", lane.separate_server},
                     {"verdict", verdict_name(lane.verdict)},
                     {"flat", lane.flat},
                     {"digest", lane.digest},
                     {"calls", lane.calls},
                     {"seconds", lane.seconds},
                     {"client",
                      {{"rss_peak_kib", lane.client_rss_peak_kib},
                       {"maps_peak", lane.client_maps_peak},
                       {"rss_slope_kib", slope_json(lane.client_rss)},
                       {"maps_slope", slope_json(lane.client_maps)},
                       {"heap_held_slope_kib", slope_json(lane.heap_held)},
                       {"heap_used_slope_kib", slope_json(lane.heap_used)}}},
                     {"server",
                      {{"rss_peak_kib", lane.server_rss_peak_kib},
                       {"maps_peak", lane.server_maps_peak},
                       {"rss_slope_kib", slope_json(lane.server_rss)},
                       {"maps_slope", slope_json(lane.server_maps)}}},
                     {"live_stores_peak", lane.live_stores_peak},
                     {"parked_bytes_peak", lane.parked_bytes_peak},
                     {"sample_columns", kSampleColumns},
                     {"samples", std::move(samples)}});
  }
  return {{"max_rss_slope_kib_per_million_calls", report.max_rss_slope_kib},
          {"max_maps_slope_per_million_calls", report.max_maps_slope},
          {"warm_up_fraction", report.warm_up_fraction},
          {"lanes", std::move(lanes)}};
}

Result<SoakReport> soak_report_from_json(const nlohmann::json& json, const std::string& where) {
  JsonFields fields(json, where);
  SoakReport report;
  report.max_rss_slope_kib = fields.take<double>("max_rss_slope_kib_per_million_calls");
  report.max_maps_slope = fields.take<double>("max_maps_slope_per_million_calls");
  report.warm_up_fraction = fields.take<double>("warm_up_fraction");
  std::vector<std::string> verdicts;
  std::optional<std::string> bad_row;
  fields.objects("lanes", [&](JsonFields& in) {
    SoakLaneReport& lane = report.lanes.emplace_back();
    lane.lane = in.take<std::string>("lane");
    lane.separate_server = in.take<bool>("separate_server");
    verdicts.push_back(in.take<std::string>("verdict"));
    lane.flat = in.take<bool>("flat");
    lane.digest = in.take<std::string>("digest");
    lane.calls = in.take<uint64_t>("calls");
    lane.seconds = in.take<double>("seconds");
    in.object("client", [&](JsonFields& client) {
      lane.client_rss_peak_kib = client.take<int64_t>("rss_peak_kib");
      lane.client_maps_peak = client.take<int64_t>("maps_peak");
      read_slope(client, "rss_slope_kib", lane.client_rss);
      read_slope(client, "maps_slope", lane.client_maps);
      read_slope(client, "heap_held_slope_kib", lane.heap_held);
      read_slope(client, "heap_used_slope_kib", lane.heap_used);
    });
    in.object("server", [&](JsonFields& server) {
      lane.server_rss_peak_kib = server.take<int64_t>("rss_peak_kib");
      lane.server_maps_peak = server.take<int64_t>("maps_peak");
      read_slope(server, "rss_slope_kib", lane.server_rss);
      read_slope(server, "maps_slope", lane.server_maps);
    });
    lane.live_stores_peak = in.take<int64_t>("live_stores_peak");
    lane.parked_bytes_peak = in.take<int64_t>("parked_bytes_peak");
    in.skip("sample_columns");  // written for a reader's eyes; the order is kSampleColumns
    for (const auto& row : in.take<std::vector<std::vector<double>>>("samples")) {
      if (row.size() != std::size(kSampleColumns)) {
        bad_row = fmt::format("{}: lanes[{}].samples: expected rows of {} numbers, found one of {}", where,
                              report.lanes.size() - 1, std::size(kSampleColumns), row.size());
        continue;
      }
      auto integer = [](double value) { return static_cast<int64_t>(value); };
      lane.samples.push_back({static_cast<uint64_t>(row[0]),
                              row[1],
                              {integer(row[2]), integer(row[3])},
                              {integer(row[4]), integer(row[5])},
                              integer(row[6]),
                              integer(row[7])});
    }
  });
  TIDEMARK_CHECK(fields.finish());
  if (bad_row) return fail(ErrorKind::BadInput, *bad_row);
  for (size_t k = 0; k < verdicts.size(); ++k) {
    auto verdict = verdict_named(verdicts[k]);
    if (!verdict)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: lanes[{}].verdict: expected a verdict, found '{}'", where, k, verdicts[k]));
    report.lanes[k].verdict = *verdict;
  }
  return report;
}

Status write_soak_report(const std::filesystem::path& dir, const SoakReport& report) {
  TIDEMARK_CHECK(write_document(dir / "soak.json", to_json(report), kSoakDocument));
  return write_file_atomically(dir / "soak.html", soak_html(report));
}

Result<SoakReport> read_soak_report(const std::filesystem::path& file) {
  TIDEMARK_TRY(json, read_document(file, kSoakDocument));
  return soak_report_from_json(json, file.string());
}

}  // namespace tidemark::report
