// The importer against Trace Processor's documented behaviour (../shared/specs/perfetto.md),
// on traces the writer produced (its bytes are proven against libprotobuf in
// trace_writer_test.cpp) and on hand-made packets for what the writer never writes.
#include "tracer/importer.h"
#include "tracer/measure_units_test.h"

#include <gtest/gtest.h>

#include "tracer/perfetto_fields.h"
#include "tracer/proto.h"
#include "tracer/trace_writer.h"

namespace tidemark::tracer {
namespace {

using namespace test_units;

CounterSpec spec(uint32_t id, std::string name, ValueDirection direction = ValueDirection::Unspecified) {
  CounterSpec s;
  s.counter_id = id;
  s.name = std::move(name);
  s.direction = direction;
  return s;
}

CounterDescriptor descriptor_of(std::vector<CounterSpec> specs) {
  CounterDescriptor d;
  d.specs = std::move(specs);
  return d;
}

// Check the spec's own example: samples 5, 10, 15.5 at 11, 21, 31 import as (11, 10),
// (21, 15.5), (31, 0): each value lands in the previous row, the first is dropped.
TEST(ImporterCounters, BackwardsLookingSamplesLandInThePreviousRow) {
  TraceWriter writer;
  writer.counter_descriptor(1, 1, 0, descriptor_of({spec(7, "Load")}));
  CounterSample five{7, int64_t{5}}, ten{7, int64_t{10}}, fifteen_and_a_half{7, 15.5};
  writer.counter_samples(1, 11, 0, std::nullopt, {&five, 1});
  writer.counter_samples(1, 21, 0, std::nullopt, {&ten, 1});
  writer.counter_samples(1, 31, 0, std::nullopt, {&fifteen_and_a_half, 1});
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 1u);
  EXPECT_EQ(trace.tracks[0].label(), "Load (gpu 0)");
  EXPECT_EQ(trace.tracks[0].rows, (std::vector<TrackRow>{{11, 10}, {21, 15.5}, {31, 0}}));
  EXPECT_EQ(trace.stats.rejected_specs + trace.stats.dropped_samples, 0);
}

// Check that a forward-looking spec pushes each sample at its own timestamp.
TEST(ImporterCounters, ForwardLookingSamplesArePushedAsTheyCome) {
  TraceWriter writer;
  CounterSample first{1, int64_t{5}}, second{1, int64_t{10}};
  writer.counter_descriptor(1, 11, 0, descriptor_of({spec(1, "Load", ValueDirection::Forwards)}), {&first, 1});
  writer.counter_samples(1, 21, 0, std::nullopt, {&second, 1});
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 1u);
  EXPECT_TRUE(trace.tracks[0].forwards);
  EXPECT_EQ(trace.tracks[0].rows, (std::vector<TrackRow>{{11, 5}, {21, 10}}));
}

// Check that one spec interned on two GPUs' sequences makes one track per GPU, and that the
// interned descriptor's GPU wins over the event's.
TEST(ImporterCounters, TheSameCountersInternedOnTwoGpusMakeTwoTracks) {
  TraceWriter writer;
  CounterDescriptor d = descriptor_of({spec(1, "Fragments")});
  writer.intern_counter_descriptor(1, 1, 1, 1, d, true);
  writer.intern_counter_descriptor(2, 1, 1, 2, d, true);
  CounterSample a{1, int64_t{3}}, b{1, int64_t{4}};
  for (uint64_t ts : {10, 20}) {
    writer.counter_samples(1, ts, 9, 1, {&a, 1});
    writer.counter_samples(2, ts, 9, 1, {&b, 1});
  }
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 2u);
  ASSERT_NE(trace.find("Fragments (gpu 1)"), nullptr);
  ASSERT_NE(trace.find("Fragments (gpu 2)"), nullptr);
  EXPECT_EQ(trace.find("Fragments (gpu 1)")->rows, (std::vector<TrackRow>{{10, 3}, {20, 0}}));
  EXPECT_EQ(trace.find("Fragments (gpu 2)")->rows, (std::vector<TrackRow>{{10, 4}, {20, 0}}));
}

// Check that clearing a sequence's incremental state forgets what it interned: later samples
// naming the old iid are dropped, not attached to a stale descriptor.
TEST(ImporterCounters, ClearedIncrementalStateDropsSamplesOfAnOldIid) {
  TraceWriter writer;
  writer.intern_counter_descriptor(1, 1, 5, 0, descriptor_of({spec(1, "Load")}), true);
  writer.intern_counter_descriptor(1, 2, 6, 0, descriptor_of({spec(1, "Other")}), true);  // clears iid 5
  CounterSample sample{1, int64_t{1}};
  writer.counter_samples(1, 10, std::nullopt, 5, {&sample, 1});
  ImportedTrace trace = import_trace(writer.bytes());
  EXPECT_TRUE(trace.tracks.empty());
  EXPECT_EQ(trace.stats.dropped_samples, 1);
}

// Check the rejections: a spec without an id, one without a name, and a global id declared
// twice are rejected; a sample of an undeclared id is dropped.
TEST(ImporterCounters, SpecsWithoutIdOrNameAndDuplicateIdsAreRejected) {
  TraceWriter writer;
  CounterSpec no_id;
  no_id.name = "Nameless id";
  CounterSpec no_name;
  no_name.counter_id = 2;
  writer.counter_descriptor(1, 1, 0, descriptor_of({spec(1, "Load"), no_id, no_name}));
  writer.counter_descriptor(1, 2, 0, descriptor_of({spec(1, "Load again")}));
  CounterSample unknown{2, int64_t{1}};
  writer.counter_samples(1, 10, 0, std::nullopt, {&unknown, 1});
  ImportedTrace trace = import_trace(writer.bytes());
  EXPECT_EQ(trace.stats.rejected_specs, 3);
  EXPECT_EQ(trace.stats.dropped_samples, 1);
  EXPECT_TRUE(trace.tracks.empty());
  EXPECT_EQ(trace.notes.size(), 4u);
}

// Check that a counter packet without a timestamp is dropped whole (the writer never writes
// one: built by hand).
TEST(ImporterCounters, APacketWithoutATimestampIsDropped) {
  TraceWriter writer;
  writer.counter_descriptor(1, 1, 0, descriptor_of({spec(1, "Load")}));
  std::string bytes = writer.take();
  proto::Out trace(bytes);
  trace.message(fields::kTracePacket, [](proto::Out& packet) {
    packet.message(fields::packet::kGpuCounterEvent, [](proto::Out& event) {
      event.message(fields::counter_event::kCounters, [](proto::Out& counter) {
        counter.varint(fields::counter_event::kCounterId, 1);
        counter.int64(fields::counter_event::kIntValue, 9);
      });
    });
  });
  ImportedTrace imported = import_trace(bytes);
  EXPECT_EQ(imported.stats.untimed_packets, 1);
  EXPECT_TRUE(imported.tracks.empty());
}

// Check that a name whose units disagree (seen in a real test input: "Fragment / Second" with
// units Pixel/Second) is kept as written and flagged, never repaired.
TEST(ImporterCounters, ANameWhoseUnitsDisagreeIsKeptAndFlagged) {
  CounterSpec odd = spec(1, "Fragment / Second");
  odd.numerator_units = {kPixel};
  odd.denominator_units = {kSecond};
  CounterSpec fine = spec(2, "Fragments / Second");
  fine.numerator_units = {kFragment};
  fine.denominator_units = {kSecond};
  TraceWriter writer;
  CounterSample samples[] = {{1, int64_t{1}}, {2, int64_t{1}}};
  writer.counter_descriptor(1, 1, 0, descriptor_of({odd, fine}), samples);
  ImportedTrace trace = import_trace(writer.bytes());
  const Track* flagged = trace.find("Fragment / Second (gpu 0)");
  ASSERT_NE(flagged, nullptr);
  EXPECT_EQ(flagged->unit, "Pixel/s");
  EXPECT_EQ(flagged->unit_disagreement, "the name says Fragment, the units say Pixel/s");
  const Track* agreed = trace.find("Fragments / Second (gpu 0)");
  ASSERT_NE(agreed, nullptr);
  EXPECT_EQ(agreed->unit, "Fragment/s");
  EXPECT_EQ(agreed->unit_disagreement, std::nullopt);
}

// Check that each row lasts until the next row and the last one until the trace's end.
TEST(ImporterCounters, SpansRunToTheNextRowAndTheLastToTheTracesEnd) {
  TraceWriter writer;
  writer.counter_descriptor(1, 1, 0, descriptor_of({spec(1, "Load", ValueDirection::Forwards)}));
  CounterSample a{1, int64_t{2}}, b{1, int64_t{3}};
  writer.counter_samples(1, 10, 0, std::nullopt, {&a, 1});
  writer.counter_samples(1, 25, 0, std::nullopt, {&b, 1});
  writer.gpu_mem_total(2, 100, 0, 0, 4096);  // the trace goes on to 100
  ImportedTrace trace = import_trace(writer.bytes());
  EXPECT_EQ(trace.end_ts, 100u);
  EXPECT_EQ(spans(*trace.find("Load (gpu 0)"), trace.end_ts), (std::vector<Span>{{10, 15, 2}, {25, 75, 3}}));
}

// --- GPU memory --------------------------------------------------------------------------

// Check a trace with only the data source's snapshot: one row per entry, the global one on a
// per-GPU track, each process on its own, values pushed as they are.
TEST(ImporterGpuMemory, OnlyTheSnapshotGivesOneRowPerEntry) {
  TraceWriter writer;
  writer.gpu_mem_total(1, 10, 0, 0, 8192);
  writer.gpu_mem_total(1, 11, 0, 1000, 4096);
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 2u);
  EXPECT_EQ(trace.find("GPU Memory (gpu 0)")->rows, (std::vector<TrackRow>{{10, 8192}}));
  EXPECT_EQ(trace.find("GPU Memory (gpu 0, pid 1000)")->rows, (std::vector<TrackRow>{{11, 4096}}));
  EXPECT_EQ(trace.find("GPU Memory (gpu 0)")->unit, "B");
}

// Check a trace with only ftrace: there is no baseline, and the per-process events are dropped
// because the trace never saw the process; the global track keeps its changes.
TEST(ImporterGpuMemory, OnlyFtraceHasNoBaselineAndDropsUnseenProcesses) {
  TraceWriter writer;
  FtraceGpuMemTotal events[] = {{20, 1234, 0, 1000, 8192}, {20, 1234, 0, 0, 12288}};
  writer.ftrace_gpu_mem_totals(3, 0, events);
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 1u);
  EXPECT_EQ(trace.tracks[0].label(), "GPU Memory (gpu 0)");
  EXPECT_EQ(trace.tracks[0].rows, (std::vector<TrackRow>{{20, 12288}}));
  EXPECT_EQ(trace.stats.dropped_ftrace, 1);
}

// Check both: the snapshot creates the process, so its later ftrace changes are kept.
TEST(ImporterGpuMemory, SnapshotThenFtraceGivesTheWholeSeries) {
  TraceWriter writer;
  writer.gpu_mem_total(1, 10, 0, 1000, 4096);
  FtraceGpuMemTotal events[] = {{20, 1234, 0, 1000, 8192}, {30, 1234, 0, 1000, 0}};
  writer.ftrace_gpu_mem_totals(3, 0, events);
  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.tracks.size(), 1u);
  EXPECT_EQ(trace.tracks[0].rows, (std::vector<TrackRow>{{10, 4096}, {20, 8192}, {30, 0}}));
  EXPECT_EQ(trace.stats.dropped_ftrace, 0);
}

// Check that a trace cut inside a packet keeps what came before and counts the damage.
TEST(ImporterRobustness, ATruncatedTraceKeepsTheCompletePackets) {
  TraceWriter writer;
  writer.gpu_mem_total(1, 10, 0, 0, 1);
  writer.gpu_mem_total(1, 20, 0, 0, 2);
  std::string bytes = writer.bytes();
  bytes.resize(bytes.size() - 3);
  ImportedTrace trace = import_trace(bytes);
  EXPECT_EQ(trace.stats.malformed, 1);
  ASSERT_EQ(trace.tracks.size(), 1u);
  EXPECT_EQ(trace.tracks[0].rows, (std::vector<TrackRow>{{10, 1}}));
}

// Check that the listing prints whole values as integers and any other value, however large,
// as a double: converting 1.4e155 to int64 first was undefined (found by the importer's fuzz
// target under UBSan; its input is in the seed corpus).
TEST(TraceListing, ValuesBeyondIntegersPrintAsDoubles) {
  ImportedTrace trace;
  Track track;
  track.name = "Load";
  track.rows = {{1, 3}, {2, -2.5}, {3, 1.4e155}, {4, -1e300}};
  trace.tracks.push_back(track);
  std::string listing = describe(trace);
  EXPECT_NE(listing.find("  1 3\n  2 -2.5\n  3 1.4e+155\n  4 -1e+300\n"), std::string::npos) << listing;
}

// Check that track events import on the track their descriptor named, in time order with their
// arguments; that a process track makes its pid one whose GPU-memory ftrace events are kept; and
// that an event on a track never named is counted and noted, not kept.
TEST(ImporterTrackEvents, InstantsLandOnTheirNamedTrackAndAProcessTrackIsSeen) {
  TraceWriter writer;
  const FtraceGpuMemTotal unseen{.timestamp = 2, .thread = 1, .gpu_id = 0, .pid = 4242, .size = 64};
  writer.ftrace_gpu_mem_totals(2, 0, {&unseen, 1});  // before the process track: dropped
  writer.track_descriptor(9, 3, {.uuid = 70, .name = "renderer server", .pid = 4242});
  writer.track_descriptor(9, 4, {.uuid = 300, .name = "wire", .parent = 70});
  const TrackEventArgument create[] = {{"resource", uint64_t{12}}, {"data_bytes", uint64_t{256}}};
  TrackEventNames names;
  names.instant(writer, 9, 8, 300, "VCMD_RESOURCE_CREATE2", create);
  names.instant(writer, 9, 6, 300, "VCMD_SUBMIT_CMD", {});
  names.instant(writer, 9, 9, 301, "VCMD_RESOURCE_UNREF", {});
  names.instant(writer, 9, 10, 300, "VCMD_RESOURCE_CREATE2", std::span(create, 1));  // its names by iid only
  const FtraceGpuMemTotal seen{.timestamp = 10, .thread = 1, .gpu_id = 0, .pid = 4242, .size = 128};
  writer.ftrace_gpu_mem_totals(2, 0, {&seen, 1});

  ImportedTrace trace = import_trace(writer.bytes());
  ASSERT_EQ(trace.event_tracks.size(), 2u);
  EXPECT_EQ(trace.event_tracks[0].pid, 4242u);
  const EventTrack* wire = trace.find_events("wire");
  ASSERT_NE(wire, nullptr);
  EXPECT_EQ(wire->parent, 70u);
  ASSERT_EQ(wire->instants.size(), 3u);
  EXPECT_EQ(wire->instants[0].name, "VCMD_SUBMIT_CMD");
  EXPECT_EQ(wire->instants[1].ts, 8u);
  EXPECT_EQ(wire->instants[1].number("data_bytes"), 256u);
  EXPECT_EQ(wire->instants[1].number("absent"), std::nullopt);
  EXPECT_EQ(wire->instants[2].number("resource"), 12u);
  EXPECT_EQ(wire->count("VCMD_RESOURCE_CREATE2"), 2u);
  EXPECT_EQ(trace.stats.unnamed_events, 1);
  EXPECT_EQ(trace.stats.dropped_ftrace, 1);
  const Track* memory = trace.find("GPU Memory (gpu 0, pid 4242)");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->rows, (std::vector<TrackRow>{{10, 128}}));
  EXPECT_NE(describe(trace).find("events 'wire' (track 300, under track 70): 3 instants"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::tracer
