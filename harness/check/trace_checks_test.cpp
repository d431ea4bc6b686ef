#include "check/trace_checks.h"

#include <gtest/gtest.h>

#include "check/outcome_test.h"

namespace tidemark::check {
namespace {

using scenario::CheckKind;

const SourceLocation trace_yaml{"scenarios/trace.yaml", 20, 3};

tracer::Track track(std::string name, uint32_t gpu, std::vector<tracer::TrackRow> rows,
                    std::optional<uint32_t> pid = std::nullopt) {
  // Built whole: assigning "B" to the unit trips GCC 12's -Wrestrict false positive at -O3.
  return tracer::Track{.name = std::move(name), .unit = "B", .gpu = gpu, .pid = pid, .rows = std::move(rows)};
}

// ---- one track -----------------------------------------------------------------

tracer::ImportedTrace parked_trace() {
  tracer::ImportedTrace trace;
  trace.tracks.push_back(track("Parked bytes", 0, {{10, 0}, {20, 4096}, {30, 0}}));
  trace.tracks.push_back(track("Live stores", 0, {{10, 1}}));
  return trace;
}

TEST(Trace, RowsCountLastAndUnitAsWrittenPass) {
  scenario::TraceCheck check{.track = "Parked bytes (gpu 0)",
                             .rows = std::vector<scenario::TraceRow>{{10, 0}, {20, 4096}, {30, 0}},
                             .count = 3,
                             .last = 0,
                             .unit = "B",
                             .where = trace_yaml};
  Outcome outcome = check_trace(check, parked_trace(), 4);
  EXPECT_TRUE(outcome.passed) << outcome.detail;
  expect_names(outcome, CheckKind::Trace, 4,
               "trace track 'Parked bytes (gpu 0)': 3 rows as written, 3 rows, last 0, unit B", trace_yaml);
  EXPECT_EQ(outcome.detail, "3 rows as expected");
}

TEST(Trace, TheFirstDifferingRowIsNamedWithBothSides) {
  scenario::TraceCheck check{.track = "Parked bytes (gpu 0)",
                             .rows = std::vector<scenario::TraceRow>{{10, 0}, {20, 2048}, {30, 0}},
                             .where = trace_yaml};
  Outcome outcome = check_trace(check, parked_trace(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "row 1 is [20, 4096], expected [20, 2048]");
}

TEST(Trace, ExtraRowsAfterAnAgreeingPrefixAreCounted) {
  scenario::TraceCheck check{.track = "Parked bytes (gpu 0)",
                             .rows = std::vector<scenario::TraceRow>{{10, 0}, {20, 4096}},
                             .where = trace_yaml};
  Outcome outcome = check_trace(check, parked_trace(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "3 rows, expected 2; the first 2 agree");
}

TEST(Trace, EveryOtherPartThatDiffersIsListed) {
  scenario::TraceCheck check{.track = "Parked bytes (gpu 0)",
                             .count = 2,
                             .last = 4096,
                             .unit = "Pixel/s",
                             .flagged = true,
                             .where = trace_yaml};
  Outcome outcome = check_trace(check, parked_trace(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail,
            "3 rows, expected 2; unit 'B', expected 'Pixel/s'; not flagged; last value 0, expected 4096");
}

TEST(Trace, AMissingTrackListsTheTracksThereAre) {
  scenario::TraceCheck check{.track = "Parked bytes (gpu 1)", .count = 3, .where = trace_yaml};
  Outcome outcome = check_trace(check, parked_trace(), 0);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "no such track (the trace has: Parked bytes (gpu 0); Live stores (gpu 0))");
}

TEST(Trace, AbsentPassesOnlyWithoutTheTrack) {
  scenario::TraceCheck gone{.track = "Parked bytes (gpu 1)", .absent = true, .where = trace_yaml};
  Outcome passed = check_trace(gone, parked_trace(), 0);
  EXPECT_TRUE(passed.passed);
  EXPECT_EQ(passed.text, "trace track 'Parked bytes (gpu 1)': absent");
  EXPECT_EQ(passed.detail, "no such track");

  scenario::TraceCheck there{.track = "Live stores (gpu 0)", .absent = true, .where = trace_yaml};
  Outcome failed = check_trace(there, parked_trace(), 0);
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.detail, "the track is there, with 1 rows");
}

// ---- reconciliation ------------------------------------------------------------

const CounterTracks tracks{.device_bytes = "Dev (gpu 0)", .map_entry = "Map (gpu 0)"};

scenario::Scenario reconciled() {
  scenario::Scenario scenario;
  scenario.session.width = 2;  // 16 bytes
  scenario.session.height = 2;
  scenario.session.model.kernel_pid = 1000;
  scenario.session.model.kernel_gpu = 0;
  scenario.expect.reconcile = trace_yaml;
  return scenario;
}

// The backend sampled at 10 and 20 ns; the pid's track changed at 5 and 15 ns.
tracer::ImportedTrace memory_trace(uint64_t second_change = 15) {
  tracer::ImportedTrace trace;
  trace.tracks.push_back(track("Dev", 0, {{10, 100}, {20, 200}}));
  trace.tracks.push_back(track("Map", 0, {{10, 116}, {20, 216}}));
  trace.tracks.push_back(track("GPU Memory", 0, {{5, 116}, {second_change, 216}}, 1000));
  return trace;
}

Gauges end_gauges() {
  Gauges gauges;
  gauges.devbytes = 200;
  return gauges;
}

KernelGauges end_kernel(int64_t kpid) {
  KernelGauges kernel;
  kernel.kpid = kpid;
  return kernel;
}

TEST(Reconcile, ThreeAccountsAgreeingEverywherePass) {
  Outcome outcome = check_reconcile(reconciled(), end_gauges(), end_kernel(216), memory_trace(), tracks);
  EXPECT_TRUE(outcome.passed) << outcome.detail;
  expect_names(outcome, CheckKind::Reconcile, 0,
               "the backend, the kernel map and the trace agree on the pid's GPU memory", trace_yaml);
  EXPECT_EQ(outcome.detail,
            "agree at 2 sampled points and at the end: backend 216 (device bytes 200 + target 16), map entry 216, "
            "trace 'GPU Memory (gpu 0, pid 1000)' 216");
}

TEST(Reconcile, ATraceThatLagsASampledPointFailsThere) {
  Outcome outcome = check_reconcile(reconciled(), end_gauges(), end_kernel(216), memory_trace(25), tracks);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail,
            "at 20 ns (sampled point 2 of 2): backend 216 (device bytes 200 + target 16), map entry 216, "
            "trace 'GPU Memory (gpu 0, pid 1000)' 116");
}

TEST(Reconcile, AnEndWithoutKernelGaugesReadsTheMapAsZero) {
  Outcome outcome = check_reconcile(reconciled(), end_gauges(), std::nullopt, memory_trace(), tracks);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail,
            "at the end: backend 216 (device bytes 200 + target 16), map entry 0, "
            "trace 'GPU Memory (gpu 0, pid 1000)' 216");
}

TEST(Reconcile, AMissingCounterTrackIsNamed) {
  tracer::ImportedTrace trace = memory_trace();
  trace.tracks.erase(trace.tracks.begin() + 1);  // the map entry's
  Outcome outcome = check_reconcile(reconciled(), end_gauges(), end_kernel(216), trace, tracks);
  EXPECT_FALSE(outcome.passed);
  EXPECT_EQ(outcome.detail, "the trace has no 'Map (gpu 0)' track to take the sampled points from");
}

// A real driver's account, counted by the layer: the target is in its bytes, and the map is
// sampled at its points, though its track has rows (the start) the device's has not.
TEST(Reconcile, ALayersAccountHoldsTheTargetAndMeetsTheMapAtItsOwnPoints) {
  tracer::ImportedTrace trace;
  trace.tracks.push_back(track("Dev", 0, {{10, 116}, {20, 216}}));
  trace.tracks.push_back(track("Map", 0, {{1, 0}, {10, 116}, {20, 216}}));
  trace.tracks.push_back(track("GPU Memory", 0, {{5, 116}, {15, 216}}, 1000));
  const CounterTracks layer{.device_bytes = "Dev (gpu 0)", .map_entry = "Map (gpu 0)", .target_in_device_bytes = true};
  Gauges gauges;
  gauges.devbytes = 216;
  Outcome agreed = check_reconcile(reconciled(), gauges, end_kernel(216), trace, layer);
  EXPECT_TRUE(agreed.passed) << agreed.detail;
  EXPECT_EQ(agreed.detail,
            "agree at 2 sampled points and at the end: backend 216 (device bytes 216 with the target), map entry 216, "
            "trace 'GPU Memory (gpu 0, pid 1000)' 216");

  trace.tracks[1] = track("Map", 0, {{1, 0}, {10, 100}, {20, 216}});  // the map 16 bytes short at 10 ns
  Outcome short_map = check_reconcile(reconciled(), gauges, end_kernel(216), trace, layer);
  EXPECT_FALSE(short_map.passed);
  EXPECT_EQ(short_map.detail,
            "at 10 ns (sampled point 1 of 2): backend 116 (device bytes 116 with the target), map entry 100, "
            "trace 'GPU Memory (gpu 0, pid 1000)' 116");
}

}  // namespace
}  // namespace tidemark::check
