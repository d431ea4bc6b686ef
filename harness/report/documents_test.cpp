// The soak, bench and observation documents' codecs: what is written is what is read, and a
// document that is not one Tidemark wrote is refused with the file and the field named.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <fstream>

#include "report/bench_report.h"
#include "report/observation_record.h"
#include "report/soak_report.h"
#include "report/summary.h"
#include "core/testing/scratch.h"

namespace tidemark::report {
namespace {

namespace fs = std::filesystem;

using test_support::ScratchDir;

SoakReport soak_report() {
  SoakLaneReport lane{.lane = "spawn",
                      .separate_server = true,
                      .verdict = Verdict::Green,
                      .flat = true,
                      .digest = "d",
                      .calls = 20000,
                      .seconds = 1.5,
                      .client_rss_peak_kib = 9000,
                      .client_maps_peak = 300,
                      .server_rss_peak_kib = 8000,
                      .server_maps_peak = 200,
                      .client_rss = {12.5, 4},
                      .client_maps = {0, 4},
                      .server_rss = {-3, 4},
                      .server_maps = {0.5, 4},
                      .heap_held = {1, 4},
                      .heap_used = {2, 4},
                      .live_stores_peak = 3,
                      .parked_bytes_peak = 4096};
  lane.samples = {{10000, 0.5, {8000, 290}, {7000, 190}, 100, 50}, {20000, 1.5, {9000, 300}, {8000, 200}, 110, 55}};
  return {.max_rss_slope_kib = 22.2 * 1024, .max_maps_slope = 50, .warm_up_fraction = 0.2, .lanes = {lane}};
}

// Check that a soak report reads back as written (the store series are the page's alone).
TEST(SoakReport, WrittenIsRead) {
  const ScratchDir scratch("soak");
  const fs::path& dir = scratch.path();
  SoakReport written = soak_report();
  ASSERT_TRUE(write_soak_report(dir, written));
  auto read = read_soak_report(dir / "soak.json");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, written);
  EXPECT_TRUE(read->green());
  std::ifstream html(dir / "soak.html");
  EXPECT_TRUE(html.good());
}

// Check that a sample row of the wrong width and an unknown verdict are errors with their place.
TEST(SoakReport, ABadSampleRowOrVerdictIsNamed) {
  nlohmann::json json = to_json(soak_report());
  json["lanes"][0]["samples"][1] = {1, 2, 3};
  auto read = soak_report_from_json(json, "s.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "s.json: lanes[0].samples: expected rows of 8 numbers, found one of 3");
  json = to_json(soak_report());
  json["lanes"][0]["verdict"] = "fine";
  read = soak_report_from_json(json, "s.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().message, "s.json: lanes[0].verdict: expected a verdict, found 'fine'");
}

// Check that a lane that is not flat, or whose run was red, makes the report red.
TEST(SoakReport, ALaneNotFlatOrRedMakesItRed) {
  SoakReport report = soak_report();
  report.lanes[0].flat = false;
  EXPECT_FALSE(report.green());
  report.lanes[0].flat = true;
  report.lanes[0].verdict = Verdict::Red;
  EXPECT_FALSE(report.green());
}

BenchReport bench_report() {
  return {.label = "ctest",
          .date = "2026-12-03T06:00:00Z",
          .floor = "/b/tidemark-vulkan-floor",
          .results = {
              {"no-draw", "tcp", 100000, 1.25, 80000, 0.5, {1.2, 1.25, 1.3}, 0.25, 10000, 0.27, 700000, std::nullopt},
              {"no-draw",
               "monolith",
               100000,
               0.08,
               1250000,
               1,
               {0.08},
               0.016,
               640,
               0.031,
               700000,
               WholeProcess{0.26, 0.16, 1.65, 88.9, 78.4, 1.13},
               ObservedProcess{0.15, 0.17, 1.13}},
              {"draws",
               "monolith",
               500,
               0.5,
               1000,
               1,
               {0.5},
               std::nullopt,
               std::nullopt,
               std::nullopt,
               std::nullopt,
               std::nullopt,
               std::nullopt}}};
}

// Check that bench.json reads back as written, a floor or none.
TEST(BenchReport, WrittenIsRead) {
  for (bool floor : {true, false}) {
    BenchReport written = bench_report();
    if (!floor) written.floor.reset();
    nlohmann::json json = nlohmann::json::parse(to_json(written).dump());
    auto read = bench_report_from_json(json, "b.json");
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_EQ(*read, written);
  }
}

// Check that a ratio more than 10 % worse than the median of the nights before is named, and that
// one within it, or of a stream or lane the history lacks, is not.
TEST(BenchReport, ARatioTenPercentWorseThanTheHistorysMedianIsARegression) {
  auto night = [](double replay, double floor, double split_ratio) {
    BenchReport report;
    report.results.push_back({.stream = "respecify",
                              .lane = "monolith",
                              .commands = 100,
                              .median_seconds = replay,
                              .commands_per_second = 0,
                              .ratio_to_monolith = 1,
                              .runs = {},
                              .floor_seconds = floor,
                              .harness_ns_per_call = std::nullopt,
                              .layer_seconds = std::nullopt});
    report.results.push_back({.stream = "respecify",
                              .lane = "split",
                              .commands = 100,
                              .median_seconds = replay * split_ratio,
                              .commands_per_second = 0,
                              .ratio_to_monolith = 1 / split_ratio,
                              .runs = {},
                              .floor_seconds = std::nullopt,
                              .harness_ns_per_call = std::nullopt,
                              .layer_seconds = std::nullopt});
    return report;
  };
  // replay / floor 2.0, 2.2, 1.8 (median 2.0); split's time 1.2 times monolith's each night.
  const std::vector<BenchReport> nights = {night(2.0, 1.0, 1.2), night(4.4, 2.0, 1.2), night(1.8, 1.0, 1.2)};
  EXPECT_TRUE(regressions(nights, night(2.19, 1.0, 1.3)).empty());  // +9.5 %, +8.3 %
  const auto worse = regressions(nights, night(2.3, 1.0, 1.5));
  ASSERT_EQ(worse.size(), 2u);
  EXPECT_EQ(worse[0].describe(), "respecify monolith: replay / floor 2.30 vs 2.00 over 3 nights (+15%)");
  EXPECT_EQ(worse[1].describe(), "respecify split: lane / monolith 1.50 vs 1.20 over 3 nights (+25%)");
  // The layer's cost on the floor's calls is held the same way.
  std::vector<BenchReport> with_layer = nights;
  for (auto& each : with_layer) each.results[0].layer_seconds = *each.results[0].floor_seconds * 1.04;
  BenchReport slower = night(2.0, 1.0, 1.2);
  slower.results[0].layer_seconds = 1.2;
  const auto layer = regressions(with_layer, slower);
  ASSERT_EQ(layer.size(), 1u);
  EXPECT_EQ(layer[0].describe(), "respecify monolith: layer / floor 1.20 vs 1.04 over 3 nights (+15%)");
  // So are the whole process's time and peak memory against the floor with its draw.
  std::vector<BenchReport> with_whole = nights;
  for (auto& each : with_whole) each.results[0].whole = WholeProcess{.seconds_ratio = 1.5, .rss_ratio = 1.1};
  BenchReport heavier = night(2.0, 1.0, 1.2);
  heavier.results[0].whole = WholeProcess{.seconds_ratio = 1.6, .rss_ratio = 1.25};
  const auto whole = regressions(with_whole, heavier);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].describe(), "respecify monolith: peak RSS / floor+draw 1.25 vs 1.10 over 3 nights (+14%)");

  // And observe's whole cost on the floor against the floor run plainly.
  std::vector<BenchReport> with_observed = nights;
  for (auto& each : with_observed) each.results[0].observed = ObservedProcess{.ratio = 1.10};
  BenchReport observed_heavier = with_observed.back();
  observed_heavier.results[0].observed = ObservedProcess{.ratio = 1.30};
  const auto observed = regressions(with_observed, observed_heavier);
  ASSERT_EQ(observed.size(), 1u);
  EXPECT_EQ(observed[0].describe(), "respecify monolith: observe / plain 1.30 vs 1.10 over 3 nights (+18%)");
  BenchReport other = night(9.0, 1.0, 9.0);
  other.results[0].stream = other.results[1].stream = "a-new-stream";
  EXPECT_TRUE(regressions(nights, other).empty());
  EXPECT_TRUE(regressions({}, night(9.0, 1.0, 9.0)).empty());
}

// Check that the history keeps every night, and that a night of another version is refused at its line.
TEST(BenchReport, TheHistoryKeepsEveryNightAndRefusesAnotherVersionAtItsLine) {
  const ScratchDir scratch("bench");
  const fs::path& dir = scratch.path();
  const fs::path history = dir / "history.jsonl";
  ASSERT_TRUE(record_bench_history(history, {}, bench_report(), dir));
  auto nights = load_bench_history(history);
  ASSERT_TRUE(nights) << nights.error().message;
  ASSERT_TRUE(record_bench_history(history, *nights, bench_report(), dir));
  nights = load_bench_history(history);
  ASSERT_TRUE(nights) << nights.error().message;
  EXPECT_EQ(nights->size(), 2u);
  EXPECT_EQ(nights->back(), bench_report());
  std::ofstream(history, std::ios::app) << R"({"format": "tidemark-bench", "version": 0, "results": []})"
                                        << "\n";
  nights = load_bench_history(history);
  ASSERT_FALSE(nights);
  EXPECT_EQ(nights.error().message,
            history.string() + ":3: expected a bench report (bench.json) of version 1, found version 0");
}

ObservationRecord observation() {
  ObservedProcessRecord shell{.pid = 10, .parent = 1, .command = {"sh", "-c", "x"}, .kind = "no-device"};
  ObservedProcessRecord poller{.pid = 11,
                               .parent = 10,
                               .command = {"poller"},
                               .executable = "/b/poller",
                               .kind = "vulkan",
                               .folder = "layer/11-poller",
                               .forked_from = 0};
  poller.vulkan =
      VulkanProcessRecord{1, false, 42, {{"vkbufspk", 3005}}, {{"kpid", 4096}}, "layer/11-poller/trace.pftrace"};
  return {.command = {"sh", "-c", "x"},
          .exit_code = 137,
          .pid = 10,
          .settings = "completion=deterministic",
          .only = "",
          .processes = {shell, poller},
          .whole_observed = {{"vkbufspk", 3005}},
          .whole_kernel = {{"kpid", 4096}},
          .kernel_map = "pid 11: 4096\n",
          .checks = {{"vkbufspk <= 64", "pid 11 (poller)", false, "vkbufspk = 3005, bound <= 64"}}};
}

// Check that an observation reads back as written (and one with a tapped wire and a server that died), and
// a Vulkan process's figures missing one is named.
TEST(ObservationRecord, WrittenIsReadAndAMissingFigureIsNamed) {
  const ScratchDir scratch("observe");
  const fs::path file = scratch.path() / "observation.json";
  ASSERT_TRUE(write_observation_record(file, observation()));
  auto read = read_observation_record(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, observation());
  // One of a program whose wire to its renderer server was tapped, the server killed mid-run.
  ObservationRecord tapped = observation();
  tapped.wire_gauges = GaugeValues{{"wirerespk", 2002}, {"wirecmd_submit_cmd", 30}};
  tapped.server_ended = "the renderer server s (pid 12) ended mid-run: killed by signal 9 (SIGKILL)";
  ASSERT_TRUE(write_observation_record(file, tapped));
  auto tapped_read = read_observation_record(file);
  ASSERT_TRUE(tapped_read) << tapped_read.error().message;
  EXPECT_EQ(*tapped_read, tapped);
  nlohmann::json json = to_json(observation());
  json["processes"][1].erase("events");
  auto bad = observation_record_from_json(json, "o.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "o.json: expected 'processes[1].events', found none");
}

// A number past a double's range is bad input naming the file (nlohmann throws out_of_range for
// it, not parse_error: the summary fuzzer's second find).
TEST(DocumentKind, ANumberPastADoublesRangeIsBadInput) {
  auto summary = parse_summary(R"({"format": "tidemark-summary", "version": 1e380})", "s.json");
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().kind, ErrorKind::BadInput);
  EXPECT_TRUE(summary.error().message.starts_with("s.json: expected a JSON summary, found "))
      << summary.error().message;
  EXPECT_NE(summary.error().message.find("1e380"), std::string::npos) << summary.error().message;
}

// A syntax error is bad input at its line and column; one whose message quotes an 8 MiB token (an
// unterminated string) too: the message was read with std::regex, whose recursion crashed on it.
TEST(DocumentKind, ASyntaxErrorIsBadInputAtItsPlaceWhateverItQuotes) {
  auto short_one = parse_summary("{\n  \"format\": tidemark}", "s.json");
  ASSERT_FALSE(short_one);
  EXPECT_TRUE(short_one.error().message.starts_with("s.json:2:14: expected a JSON summary, found syntax error"))
      << short_one.error().message;
  auto long_one = parse_summary("{\"a\": \"" + std::string(8 << 20, 'x'), "s.json");
  ASSERT_FALSE(long_one);
  EXPECT_EQ(long_one.error().kind, ErrorKind::BadInput);
  EXPECT_TRUE(long_one.error().message.starts_with("s.json:1:")) << long_one.error().message.substr(0, 200);
}

// A document's format and version of the wrong JSON type are refused as another version, never
// thrown (a format of 5) or converted out of range (a version of 1e300): the fuzzer's first finds.
TEST(DocumentKind, AFormatOrVersionOfAnotherTypeIsAnotherDocument) {
  for (const char* text : {R"({"format": 5, "version": 3})", R"({"format": "tidemark-summary", "version": 1e300})",
                           R"({"format": "tidemark-summary", "version": "3"})",
                           R"({"format": "tidemark-summary", "version": 3.0})", R"({"format": null})", "[]", "7"}) {
    auto summary = parse_summary(text, "s.json");
    ASSERT_FALSE(summary) << text;
    EXPECT_EQ(summary.error().kind, ErrorKind::BadInput) << text;
    EXPECT_TRUE(summary.error().message.starts_with("s.json: expected a tidemark summary of version 3, found"))
        << summary.error().message;
  }
}

}  // namespace
}  // namespace tidemark::report
