// The hand-written writer against libprotobuf over our own .proto files (protos/): every
// method's packet parses, carries exactly the fields given, and re-serializes to the writer's
// very bytes (minimal encoding, fields in number order).
#include "tracer/trace_writer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "protos/trace.pb.h"

namespace tidemark::tracer {
namespace {

namespace tp = tidemark::testproto;
using Descriptor = tp::GpuCounterDescriptor;

std::string hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char byte : bytes) {
    if (!out.empty()) out += ' ';
    out += kDigits[byte >> 4];
    out += kDigits[byte & 15];
  }
  return out;
}

// Whether `message` or any message inside it holds fields our .proto files do not know (a
// wrong field number would re-serialize unchanged at the end of its message, so look).
bool has_unknown_fields(const google::protobuf::Message& message) {
  const auto* reflection = message.GetReflection();
  if (!reflection->GetUnknownFields(message).empty()) return true;
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const auto* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i)
        if (has_unknown_fields(reflection->GetRepeatedMessage(message, field, i))) return true;
    } else if (has_unknown_fields(reflection->GetMessage(message, field))) {
      return true;
    }
  }
  return false;
}

// Parses the writer's bytes, checks that every field is one the .proto files know, and that
// libprotobuf writes them back byte for byte.
tp::Trace parse_minimal(const std::string& bytes) {
  tp::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes)) << hex(bytes);
  EXPECT_FALSE(has_unknown_fields(trace)) << hex(bytes);
  std::string again = trace.SerializeAsString();
  EXPECT_EQ(hex(again), hex(bytes)) << "libprotobuf's bytes (left) differ from the writer's (right)";
  return trace;
}

// Check that the unknown-field guard notices a field number no .proto knows, nested at a message's end.
TEST(TraceWriterTestGuard, AFieldNumberNoProtoKnowsIsNoticed) {
  TraceWriter writer;
  writer.gpu_mem_total(1, 11, 0, 0, 0);
  tp::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(writer.bytes()));
  EXPECT_FALSE(has_unknown_fields(trace));
  // The same GpuMemTotalEvent with an extra field 4 (varint 1) at its end.
  tp::Trace odd;
  auto* event = odd.add_packet()->mutable_gpu_mem_total_event();
  event->set_size(1);
  event->GetReflection()->MutableUnknownFields(event)->AddVarint(4, 1);
  ASSERT_TRUE(trace.ParseFromString(odd.SerializeAsString()));
  EXPECT_TRUE(has_unknown_fields(trace));
}

CounterSample int_sample(uint32_t id, int64_t value) { return {id, value}; }
CounterSample double_sample(uint32_t id, double value) { return {id, value}; }

// A descriptor with every field set, chosen by hand: three specs (int peak, double peak, none;
// units, groups, both directions), a spec without an id, two blocks, 64-bit periods.
CounterDescriptor full_descriptor() {
  CounterDescriptor d;
  d.specs.push_back({.counter_id = 1,
                     .name = "Vertices/s",
                     .description = "Vertices shaded per second",
                     .peak = int64_t{5'000'000'000},
                     .numerator_units = {25},    // VERTEX
                     .denominator_units = {22},  // SECOND
                     .select_by_default = true,
                     .groups = {2, 1},  // VERTICES, SYSTEM
                     .direction = ValueDirection::Forwards});
  d.specs.push_back({.counter_id = 2,
                     .name = "GPU busy",
                     .description = std::string(200, 'd'),  // a two-byte length
                     .peak = 99.5,
                     .numerator_units = {37},  // PERCENT
                     .groups = {5},            // MEMORY
                     .direction = ValueDirection::Backwards});
  d.specs.push_back({.counter_id = 300,  // a two-byte varint
                     .name = "Triangles",
                     .numerator_units = {27, 0},       // TRIANGLE, NONE
                     .denominator_units = {21, 21}});  // MILLISECOND, MILLISECOND
  d.specs.push_back({.name = "no id"});
  d.blocks.push_back(
      {.block_id = 7, .capacity = 4, .name = "SP", .description = "Shader processor", .counter_ids = {1, 2, 300}});
  d.blocks.push_back({.block_id = 0});
  d.min_sampling_period_ns = 1'000'000;
  d.max_sampling_period_ns = 10'000'000'000;
  d.supports_instrumented_sampling = true;
  return d;
}

// Checks `got` against full_descriptor(), field by field.
void expect_full_descriptor(const Descriptor& got) {
  ASSERT_EQ(got.specs_size(), 4);
  const auto& a = got.specs(0);
  EXPECT_EQ(a.counter_id(), 1u);
  EXPECT_EQ(a.name(), "Vertices/s");
  EXPECT_EQ(a.description(), "Vertices shaded per second");
  ASSERT_EQ(a.peak_value_case(), Descriptor::GpuCounterSpec::kIntPeakValue);
  EXPECT_EQ(a.int_peak_value(), 5'000'000'000);
  ASSERT_EQ(a.numerator_units_size(), 1);
  EXPECT_EQ(a.numerator_units(0), Descriptor::VERTEX);
  ASSERT_EQ(a.denominator_units_size(), 1);
  EXPECT_EQ(a.denominator_units(0), Descriptor::SECOND);
  EXPECT_TRUE(a.has_select_by_default());
  EXPECT_TRUE(a.select_by_default());
  ASSERT_EQ(a.groups_size(), 2);
  EXPECT_EQ(a.groups(0), Descriptor::VERTICES);
  EXPECT_EQ(a.groups(1), Descriptor::SYSTEM);
  EXPECT_EQ(a.value_direction(), Descriptor::VALUE_DIRECTION_FORWARDS);

  const auto& b = got.specs(1);
  EXPECT_EQ(b.counter_id(), 2u);
  EXPECT_EQ(b.name(), "GPU busy");
  EXPECT_EQ(b.description(), std::string(200, 'd'));
  ASSERT_EQ(b.peak_value_case(), Descriptor::GpuCounterSpec::kDoublePeakValue);
  EXPECT_EQ(b.double_peak_value(), 99.5);
  ASSERT_EQ(b.numerator_units_size(), 1);
  EXPECT_EQ(b.numerator_units(0), Descriptor::PERCENT);
  EXPECT_EQ(b.denominator_units_size(), 0);
  EXPECT_FALSE(b.has_select_by_default());
  ASSERT_EQ(b.groups_size(), 1);
  EXPECT_EQ(b.groups(0), Descriptor::MEMORY);
  EXPECT_EQ(b.value_direction(), Descriptor::VALUE_DIRECTION_BACKWARDS);

  const auto& c = got.specs(2);
  EXPECT_EQ(c.counter_id(), 300u);
  EXPECT_EQ(c.name(), "Triangles");
  EXPECT_FALSE(c.has_description());
  EXPECT_EQ(c.peak_value_case(), Descriptor::GpuCounterSpec::PEAK_VALUE_NOT_SET);
  ASSERT_EQ(c.numerator_units_size(), 2);
  EXPECT_EQ(c.numerator_units(0), Descriptor::TRIANGLE);
  EXPECT_EQ(c.numerator_units(1), Descriptor::NONE);
  ASSERT_EQ(c.denominator_units_size(), 2);
  EXPECT_EQ(c.denominator_units(0), Descriptor::MILLISECOND);
  EXPECT_EQ(c.denominator_units(1), Descriptor::MILLISECOND);
  EXPECT_EQ(c.groups_size(), 0);
  EXPECT_FALSE(c.has_value_direction());

  const auto& d = got.specs(3);
  EXPECT_FALSE(d.has_counter_id());
  EXPECT_EQ(d.name(), "no id");
  EXPECT_FALSE(d.has_description());
  EXPECT_FALSE(d.has_select_by_default());
  EXPECT_FALSE(d.has_value_direction());

  ASSERT_EQ(got.blocks_size(), 2);
  const auto& sp = got.blocks(0);
  EXPECT_EQ(sp.block_id(), 7u);
  EXPECT_TRUE(sp.has_block_capacity());
  EXPECT_EQ(sp.block_capacity(), 4u);
  EXPECT_EQ(sp.name(), "SP");
  EXPECT_EQ(sp.description(), "Shader processor");
  ASSERT_EQ(sp.counter_ids_size(), 3);
  EXPECT_EQ(sp.counter_ids(0), 1u);
  EXPECT_EQ(sp.counter_ids(1), 2u);
  EXPECT_EQ(sp.counter_ids(2), 300u);
  const auto& bare = got.blocks(1);
  EXPECT_TRUE(bare.has_block_id());
  EXPECT_EQ(bare.block_id(), 0u);
  EXPECT_FALSE(bare.has_block_capacity());
  EXPECT_FALSE(bare.has_name());
  EXPECT_FALSE(bare.has_description());
  EXPECT_EQ(bare.counter_ids_size(), 0);

  EXPECT_EQ(got.min_sampling_period_ns(), 1'000'000u);
  EXPECT_EQ(got.max_sampling_period_ns(), 10'000'000'000u);
  EXPECT_TRUE(got.supports_instrumented_sampling());
}

// Check that a GPU-memory snapshot packet carries timestamp, sequence and the event's gpu, pid and 64-bit size.
TEST(TraceWriter, GpuMemTotalWritesOnePacketWithEveryField) {
  TraceWriter writer;
  writer.gpu_mem_total(/*sequence=*/3, /*timestamp=*/11, /*gpu_id=*/1, /*pid=*/4321, /*size=*/0x1'2345'6789ull);
  writer.gpu_mem_total(3, 21, 0, 0, 0);
  EXPECT_EQ(writer.packets(), 2u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 2);

  const auto& p = trace.packet(0);
  EXPECT_EQ(p.timestamp(), 11u);
  EXPECT_EQ(p.trusted_packet_sequence_id(), 3u);
  EXPECT_FALSE(p.has_timestamp_clock_id());
  EXPECT_FALSE(p.has_sequence_flags());
  EXPECT_FALSE(p.has_interned_data());
  ASSERT_EQ(p.data_case(), tp::TracePacket::kGpuMemTotalEvent);
  EXPECT_EQ(p.gpu_mem_total_event().gpu_id(), 1u);
  EXPECT_EQ(p.gpu_mem_total_event().pid(), 4321u);
  EXPECT_EQ(p.gpu_mem_total_event().size(), 0x1'2345'6789ull);

  // The global entry: pid 0 and size 0 are written, not left out.
  const auto& q = trace.packet(1);
  EXPECT_EQ(q.timestamp(), 21u);
  ASSERT_EQ(q.data_case(), tp::TracePacket::kGpuMemTotalEvent);
  EXPECT_TRUE(q.gpu_mem_total_event().has_gpu_id());
  EXPECT_TRUE(q.gpu_mem_total_event().has_pid());
  EXPECT_TRUE(q.gpu_mem_total_event().has_size());
  EXPECT_EQ(q.gpu_mem_total_event().size(), 0u);
}

// Check that a process's track, a track under it and instants with a number and a text argument
// parse with every field the writer was given, in libprotobuf's own bytes: the first instant
// carries its interned names, clears the sequence's state and makes its track the default; the second
// carries only iids and names no track.
TEST(TraceWriter, TrackDescriptorsAndInstantsCarryEveryField) {
  TraceWriter writer;
  writer.track_descriptor(9, 5, {.uuid = 70, .name = "renderer server", .pid = 4242});
  writer.track_descriptor(9, 6, {.uuid = 300, .name = "wire", .parent = 70});
  const std::variant<uint64_t, std::string> resource = uint64_t{12}, direction = std::string("client->server");
  const InternedArgument arguments[] = {{1, &resource}, {2, &direction}};
  const InternedName event_names[] = {{1, "VCMD_RESOURCE_CREATE2"}};
  const InternedName argument_names[] = {{1, "resource"}, {2, "direction"}};
  writer.track_instant(
      9, 7, 300, 1, arguments,
      {.event_names = event_names, .argument_names = argument_names, .clear_state = true, .default_track = 300});
  writer.track_instant(9, 8, std::nullopt, 1, std::span(arguments, 1), {});
  EXPECT_EQ(writer.packets(), 4u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 4);

  const auto& process = trace.packet(0);
  EXPECT_EQ(process.timestamp(), 5u);
  EXPECT_EQ(process.trusted_packet_sequence_id(), 9u);
  ASSERT_EQ(process.data_case(), tp::TracePacket::kTrackDescriptor);
  EXPECT_EQ(process.track_descriptor().uuid(), 70u);
  EXPECT_EQ(process.track_descriptor().name(), "renderer server");
  EXPECT_EQ(process.track_descriptor().process().pid(), 4242);
  EXPECT_EQ(process.track_descriptor().process().process_name(), "renderer server");
  EXPECT_FALSE(process.track_descriptor().has_parent_uuid());

  const auto& wire = trace.packet(1).track_descriptor();
  EXPECT_EQ(wire.uuid(), 300u);
  EXPECT_EQ(wire.parent_uuid(), 70u);
  EXPECT_FALSE(wire.has_process());

  const auto& instant = trace.packet(2);
  EXPECT_EQ(instant.timestamp(), 7u);
  ASSERT_EQ(instant.data_case(), tp::TracePacket::kTrackEvent);
  EXPECT_EQ(instant.track_event().type(), tp::TrackEvent::TYPE_INSTANT);
  EXPECT_EQ(instant.track_event().track_uuid(), 300u);
  EXPECT_EQ(instant.track_event().name_iid(), 1u);
  EXPECT_FALSE(instant.track_event().has_name());
  EXPECT_EQ(instant.sequence_flags(),
            tp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED | tp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  ASSERT_EQ(instant.interned_data().event_names_size(), 1);
  EXPECT_EQ(instant.interned_data().event_names(0).iid(), 1u);
  EXPECT_EQ(instant.interned_data().event_names(0).name(), "VCMD_RESOURCE_CREATE2");
  ASSERT_EQ(instant.interned_data().debug_annotation_names_size(), 2);
  EXPECT_EQ(instant.interned_data().debug_annotation_names(1).iid(), 2u);
  EXPECT_EQ(instant.interned_data().debug_annotation_names(1).name(), "direction");
  ASSERT_EQ(instant.track_event().debug_annotations_size(), 2);
  EXPECT_EQ(instant.track_event().debug_annotations(0).name_iid(), 1u);
  EXPECT_EQ(instant.track_event().debug_annotations(0).uint_value(), 12u);
  EXPECT_EQ(instant.track_event().debug_annotations(1).name_iid(), 2u);
  EXPECT_EQ(instant.track_event().debug_annotations(1).string_value(), "client->server");

  EXPECT_EQ(instant.trace_packet_defaults().track_event_defaults().track_uuid(), 300u);

  const auto& again = trace.packet(3);
  EXPECT_FALSE(again.has_interned_data());
  EXPECT_FALSE(again.has_trace_packet_defaults());
  EXPECT_FALSE(again.track_event().has_track_uuid());
  EXPECT_EQ(again.sequence_flags(), tp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  EXPECT_EQ(again.track_event().name_iid(), 1u);
  ASSERT_EQ(again.track_event().debug_annotations_size(), 1);
  EXPECT_EQ(again.track_event().debug_annotations(0).name_iid(), 1u);
}

// Check that the largest values (max uint32 ids, max uint64 size and timestamp) survive the round trip.
TEST(TraceWriter, GpuMemTotalKeepsExtremeValues) {
  TraceWriter writer;
  constexpr uint32_t kMax32 = std::numeric_limits<uint32_t>::max();
  constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
  writer.gpu_mem_total(kMax32, kMax64, kMax32, kMax32, kMax64);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  EXPECT_EQ(trace.packet(0).timestamp(), kMax64);
  EXPECT_EQ(trace.packet(0).trusted_packet_sequence_id(), kMax32);
  EXPECT_EQ(trace.packet(0).gpu_mem_total_event().gpu_id(), kMax32);
  EXPECT_EQ(trace.packet(0).gpu_mem_total_event().pid(), kMax32);
  EXPECT_EQ(trace.packet(0).gpu_mem_total_event().size(), kMax64);
}

// Check that an ftrace bundle carries the cpu and each event's timestamp, thread and gpu_mem_total fields, with no
// packet timestamp.
TEST(TraceWriter, FtraceBundleCarriesEveryEventInOrder) {
  TraceWriter writer;
  std::vector<FtraceGpuMemTotal> hits = {
      {.timestamp = 11, .thread = 700, .gpu_id = 0, .pid = 0, .size = 1 << 20},
      {.timestamp = 21, .thread = 701, .gpu_id = 1, .pid = 4321, .size = 0x3'0000'0000ull},
      {.timestamp = 31, .thread = 0, .gpu_id = 0, .pid = 4321, .size = 0},
  };
  writer.ftrace_gpu_mem_totals(/*sequence=*/9, /*cpu=*/2, hits);
  EXPECT_EQ(writer.packets(), 1u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& p = trace.packet(0);
  EXPECT_FALSE(p.has_timestamp());
  EXPECT_EQ(p.trusted_packet_sequence_id(), 9u);
  ASSERT_EQ(p.data_case(), tp::TracePacket::kFtraceEvents);
  const auto& bundle = p.ftrace_events();
  EXPECT_EQ(bundle.cpu(), 2u);
  ASSERT_EQ(bundle.event_size(), 3);
  const uint64_t timestamps[] = {11, 21, 31};
  for (int i = 0; i < 3; ++i) {
    const auto& event = bundle.event(i);
    const auto& hit = hits[static_cast<size_t>(i)];
    EXPECT_EQ(event.timestamp(), timestamps[i]);
    EXPECT_EQ(event.pid(), hit.thread);
    ASSERT_EQ(event.event_case(), tp::FtraceEvent::kGpuMemTotal);
    EXPECT_EQ(event.gpu_mem_total().gpu_id(), hit.gpu_id);
    EXPECT_EQ(event.gpu_mem_total().pid(), hit.pid);
    EXPECT_TRUE(event.gpu_mem_total().has_size());
    EXPECT_EQ(event.gpu_mem_total().size(), hit.size);
  }
}

// Check that an ftrace bundle with no events is still a packet with the cpu set.
TEST(TraceWriter, FtraceBundleWithoutEventsKeepsTheCpu) {
  TraceWriter writer;
  writer.ftrace_gpu_mem_totals(1, 5, {});
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  ASSERT_TRUE(trace.packet(0).has_ftrace_events());
  EXPECT_EQ(trace.packet(0).ftrace_events().cpu(), 5u);
  EXPECT_EQ(trace.packet(0).ftrace_events().event_size(), 0);
}

// Check that an inline descriptor packet carries the whole descriptor, its samples and a negative gpu_id.
TEST(TraceWriter, InlineDescriptorCarriesEveryFieldAndItsSamples) {
  TraceWriter writer;
  std::vector<CounterSample> samples = {int_sample(1, 5), double_sample(2, 15.5), int_sample(300, -3)};
  writer.counter_descriptor(/*sequence=*/4, /*timestamp=*/11, /*gpu_id=*/-2, full_descriptor(), samples);
  EXPECT_EQ(writer.packets(), 1u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& p = trace.packet(0);
  EXPECT_EQ(p.timestamp(), 11u);
  EXPECT_EQ(p.trusted_packet_sequence_id(), 4u);
  EXPECT_FALSE(p.has_sequence_flags());
  EXPECT_FALSE(p.has_interned_data());
  ASSERT_EQ(p.data_case(), tp::TracePacket::kGpuCounterEvent);
  const auto& event = p.gpu_counter_event();
  EXPECT_EQ(event.gpu_id(), -2);
  EXPECT_FALSE(event.has_counter_descriptor_iid());
  ASSERT_TRUE(event.has_counter_descriptor());
  expect_full_descriptor(event.counter_descriptor());
  ASSERT_EQ(event.counters_size(), 3);
  EXPECT_EQ(event.counters(0).counter_id(), 1u);
  ASSERT_EQ(event.counters(0).value_case(), tp::GpuCounterEvent::GpuCounter::kIntValue);
  EXPECT_EQ(event.counters(0).int_value(), 5);
  EXPECT_EQ(event.counters(1).counter_id(), 2u);
  ASSERT_EQ(event.counters(1).value_case(), tp::GpuCounterEvent::GpuCounter::kDoubleValue);
  EXPECT_EQ(event.counters(1).double_value(), 15.5);
  EXPECT_EQ(event.counters(2).counter_id(), 300u);
  ASSERT_EQ(event.counters(2).value_case(), tp::GpuCounterEvent::GpuCounter::kIntValue);
  EXPECT_EQ(event.counters(2).int_value(), -3);
}

// Check that an inline descriptor without samples, and an empty descriptor, are still present and minimal.
TEST(TraceWriter, InlineDescriptorWithoutSamplesOrFieldsIsStillPresent) {
  TraceWriter writer;
  writer.counter_descriptor(1, 11, 0, CounterDescriptor{});
  writer.counter_descriptor(1, 21, 3, full_descriptor());
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 2);
  const auto& empty = trace.packet(0).gpu_counter_event();
  EXPECT_TRUE(empty.has_counter_descriptor());
  EXPECT_EQ(empty.counter_descriptor().specs_size(), 0);
  EXPECT_EQ(empty.counter_descriptor().blocks_size(), 0);
  EXPECT_FALSE(empty.counter_descriptor().has_min_sampling_period_ns());
  EXPECT_FALSE(empty.counter_descriptor().has_max_sampling_period_ns());
  EXPECT_FALSE(empty.counter_descriptor().has_supports_instrumented_sampling());
  EXPECT_EQ(empty.counters_size(), 0);
  EXPECT_TRUE(empty.has_gpu_id());
  EXPECT_EQ(empty.gpu_id(), 0);
  const auto& full = trace.packet(1).gpu_counter_event();
  EXPECT_EQ(trace.packet(1).timestamp(), 21u);
  EXPECT_EQ(full.gpu_id(), 3);
  EXPECT_EQ(full.counters_size(), 0);
  expect_full_descriptor(full.counter_descriptor());
}

// Check that an interning packet carries iid, descriptor and gpu_id in InternedData and INCREMENTAL_STATE_CLEARED.
TEST(TraceWriter, InternedDescriptorClearingStateIsMarkedCleared) {
  TraceWriter writer;
  writer.intern_counter_descriptor(/*sequence=*/5, /*timestamp=*/11, /*iid=*/0x1'0000'0001ull, /*gpu_id=*/-7,
                                   full_descriptor(), /*clear_state=*/true);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& p = trace.packet(0);
  EXPECT_EQ(p.timestamp(), 11u);
  EXPECT_EQ(p.trusted_packet_sequence_id(), 5u);
  EXPECT_EQ(p.sequence_flags(), static_cast<uint32_t>(tp::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED));
  EXPECT_EQ(p.data_case(), tp::TracePacket::DATA_NOT_SET);
  ASSERT_TRUE(p.has_interned_data());
  ASSERT_EQ(p.interned_data().gpu_counter_descriptors_size(), 1);
  const auto& entry = p.interned_data().gpu_counter_descriptors(0);
  EXPECT_EQ(entry.iid(), 0x1'0000'0001ull);
  EXPECT_EQ(entry.gpu_id(), -7);
  ASSERT_TRUE(entry.has_counter_descriptor());
  expect_full_descriptor(entry.counter_descriptor());
}

// Check that an interning packet that does not clear state is marked NEEDS_INCREMENTAL_STATE instead.
TEST(TraceWriter, InternedDescriptorKeepingStateNeedsIncrementalState) {
  TraceWriter writer;
  writer.intern_counter_descriptor(5, 21, 2, 1, CounterDescriptor{}, /*clear_state=*/false);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& p = trace.packet(0);
  EXPECT_EQ(p.sequence_flags(), static_cast<uint32_t>(tp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE));
  const auto& entry = p.interned_data().gpu_counter_descriptors(0);
  EXPECT_EQ(entry.iid(), 2u);
  EXPECT_EQ(entry.gpu_id(), 1);
  EXPECT_TRUE(entry.has_counter_descriptor());
  EXPECT_EQ(entry.counter_descriptor().specs_size(), 0);
}

// Check that samples with neither gpu_id nor iid carry timestamp, sequence and counters only, with no sequence flags.
TEST(TraceWriter, SamplesWithoutGpuOrIidCarryOnlyCounters) {
  TraceWriter writer;
  std::vector<CounterSample> samples = {int_sample(1, 5), int_sample(2, 10), double_sample(3, 15.5)};
  writer.counter_samples(/*sequence=*/2, /*timestamp=*/11, std::nullopt, std::nullopt, samples);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& p = trace.packet(0);
  EXPECT_EQ(p.timestamp(), 11u);
  EXPECT_EQ(p.trusted_packet_sequence_id(), 2u);
  EXPECT_FALSE(p.has_sequence_flags());
  EXPECT_FALSE(p.has_interned_data());
  ASSERT_EQ(p.data_case(), tp::TracePacket::kGpuCounterEvent);
  const auto& event = p.gpu_counter_event();
  EXPECT_FALSE(event.has_gpu_id());
  EXPECT_FALSE(event.has_counter_descriptor_iid());
  EXPECT_FALSE(event.has_counter_descriptor());
  ASSERT_EQ(event.counters_size(), 3);
  EXPECT_EQ(event.counters(0).counter_id(), 1u);
  EXPECT_EQ(event.counters(0).int_value(), 5);
  EXPECT_EQ(event.counters(1).counter_id(), 2u);
  EXPECT_EQ(event.counters(1).int_value(), 10);
  EXPECT_EQ(event.counters(2).counter_id(), 3u);
  ASSERT_EQ(event.counters(2).value_case(), tp::GpuCounterEvent::GpuCounter::kDoubleValue);
  EXPECT_EQ(event.counters(2).double_value(), 15.5);
}

// Check that every gpu_id/iid combination round-trips: gpu_id alone, iid alone (NEEDS_INCREMENTAL_STATE), both, and
// extreme values.
TEST(TraceWriter, SamplesCarryEachGpuIdAndIidCombination) {
  TraceWriter writer;
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr uint64_t kMax64 = std::numeric_limits<uint64_t>::max();
  std::vector<CounterSample> one = {int_sample(4, 1)};
  writer.counter_samples(1, 11, -1, std::nullopt, one);
  writer.counter_samples(1, 21, std::nullopt, 7, one);
  writer.counter_samples(1, 31, 2, 300, one);
  writer.counter_samples(1, 41, kMin32, kMax64, one);
  writer.counter_samples(1, 51, 0, 0, one);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 5);

  struct Want {
    uint64_t ts;
    std::optional<int32_t> gpu;
    std::optional<uint64_t> iid;
  };
  const Want want[] = {{11, -1, std::nullopt}, {21, std::nullopt, 7}, {31, 2, 300}, {41, kMin32, kMax64}, {51, 0, 0}};
  for (int i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    const auto& p = trace.packet(i);
    const auto& w = want[i];
    EXPECT_EQ(p.timestamp(), w.ts);
    EXPECT_EQ(p.trusted_packet_sequence_id(), 1u);
    if (w.iid) {
      EXPECT_EQ(p.sequence_flags(), static_cast<uint32_t>(tp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE));
    } else {
      EXPECT_FALSE(p.has_sequence_flags());
    }
    const auto& event = p.gpu_counter_event();
    EXPECT_EQ(event.has_gpu_id(), w.gpu.has_value());
    if (w.gpu) {
      EXPECT_EQ(event.gpu_id(), *w.gpu);
    }
    EXPECT_EQ(event.has_counter_descriptor_iid(), w.iid.has_value());
    if (w.iid) {
      EXPECT_EQ(event.counter_descriptor_iid(), *w.iid);
    }
    ASSERT_EQ(event.counters_size(), 1);
    EXPECT_EQ(event.counters(0).counter_id(), 4u);
    EXPECT_EQ(event.counters(0).int_value(), 1);
  }
}

// Check that an empty samples span still writes a packet with an empty (present) counter event.
TEST(TraceWriter, EmptySamplesSpanWritesAnEmptyCounterEvent) {
  TraceWriter writer;
  writer.counter_samples(6, 11, std::nullopt, std::nullopt, {});
  writer.counter_samples(6, 21, -4, 9, {});
  EXPECT_EQ(writer.packets(), 2u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 2);
  ASSERT_EQ(trace.packet(0).data_case(), tp::TracePacket::kGpuCounterEvent);
  EXPECT_EQ(trace.packet(0).gpu_counter_event().counters_size(), 0);
  EXPECT_FALSE(trace.packet(0).gpu_counter_event().has_gpu_id());
  EXPECT_EQ(trace.packet(0).timestamp(), 11u);
  EXPECT_EQ(trace.packet(1).gpu_counter_event().counters_size(), 0);
  EXPECT_EQ(trace.packet(1).gpu_counter_event().gpu_id(), -4);
  EXPECT_EQ(trace.packet(1).gpu_counter_event().counter_descriptor_iid(), 9u);
  EXPECT_EQ(trace.packet(1).sequence_flags(), static_cast<uint32_t>(tp::TracePacket::SEQ_NEEDS_INCREMENTAL_STATE));
}

// Check that int values of every varint width (0, 1 byte, 2 bytes, max, min, negative) and doubles (inf, -0, tiny)
// round-trip.
TEST(TraceWriter, SampleValuesOfEveryWidthRoundTrip) {
  const std::vector<CounterSample> samples = {
      int_sample(1, 0),
      int_sample(1, 127),
      int_sample(1, 128),
      int_sample(1, 1ll << 40),
      int_sample(1, std::numeric_limits<int64_t>::max()),
      int_sample(1, std::numeric_limits<int64_t>::min()),
      int_sample(1, -1),
      double_sample(0, 0.0),
      double_sample(std::numeric_limits<uint32_t>::max(), -0.0),
      double_sample(2, std::numeric_limits<double>::infinity()),
      double_sample(2, std::numeric_limits<double>::denorm_min()),
      double_sample(2, -1e300),
  };
  TraceWriter writer;
  writer.counter_samples(1, 11, 1, std::nullopt, samples);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  const auto& event = trace.packet(0).gpu_counter_event();
  ASSERT_EQ(event.counters_size(), static_cast<int>(samples.size()));
  for (size_t i = 0; i < samples.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& got = event.counters(static_cast<int>(i));
    EXPECT_EQ(got.counter_id(), samples[i].counter_id);
    if (const auto* value = std::get_if<int64_t>(&samples[i].value)) {
      ASSERT_EQ(got.value_case(), tp::GpuCounterEvent::GpuCounter::kIntValue);
      EXPECT_EQ(got.int_value(), *value);
    } else {
      ASSERT_EQ(got.value_case(), tp::GpuCounterEvent::GpuCounter::kDoubleValue);
      double want = std::get<double>(samples[i].value);
      double written = got.double_value();
      EXPECT_EQ(std::memcmp(&want, &written, sizeof want), 0) << written;
    }
  }
}

// Check that a packet larger than 16 KiB (a three-byte length) is framed correctly on the hot path.
TEST(TraceWriter, LargeSamplePacketsAreFramedCorrectly) {
  std::vector<CounterSample> samples;
  for (uint32_t id = 0; id < 2000; ++id) samples.push_back(double_sample(id, id * 0.25));
  TraceWriter writer;
  writer.counter_samples(1, 11, 0, 1, samples);
  ASSERT_GT(writer.bytes().size(), 16384u);
  auto trace = parse_minimal(writer.bytes());
  ASSERT_EQ(trace.packet_size(), 1);
  ASSERT_EQ(trace.packet(0).gpu_counter_event().counters_size(), 2000);
  EXPECT_EQ(trace.packet(0).gpu_counter_event().counters(1999).counter_id(), 1999u);
  EXPECT_EQ(trace.packet(0).gpu_counter_event().counters(1999).double_value(), 1999 * 0.25);
}

// Check that the bytes are a valid, minimal trace after every packet, whichever method wrote it.
TEST(TraceWriter, BytesAreAValidTraceAfterEveryPacket) {
  TraceWriter writer;
  std::vector<FtraceGpuMemTotal> hits = {{.timestamp = 15, .thread = 3, .gpu_id = 0, .pid = 3, .size = 4096}};
  std::vector<CounterSample> samples = {int_sample(1, 5), double_sample(2, 2.5)};
  auto check = [&](size_t packets) {
    SCOPED_TRACE(packets);
    EXPECT_EQ(writer.packets(), packets);
    auto trace = parse_minimal(writer.bytes());
    EXPECT_EQ(trace.packet_size(), static_cast<int>(packets));
  };
  check(0);
  writer.gpu_mem_total(1, 11, 0, 0, 1 << 20);
  check(1);
  writer.ftrace_gpu_mem_totals(1, 0, hits);
  check(2);
  writer.counter_descriptor(2, 21, 0, full_descriptor(), samples);
  check(3);
  writer.intern_counter_descriptor(3, 21, 1, 0, full_descriptor(), true);
  check(4);
  writer.counter_samples(3, 31, std::nullopt, 1, samples);
  check(5);
  writer.counter_samples(2, 31, 0, std::nullopt, samples);
  check(6);
  writer.counter_samples(2, 41, std::nullopt, std::nullopt, {});
  check(7);
  // Sequences are kept per packet, in the order written.
  auto trace = parse_minimal(writer.bytes());
  const uint32_t sequences[] = {1, 1, 2, 3, 3, 2, 2};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(trace.packet(i).trusted_packet_sequence_id(), sequences[i]) << i;
  // take() hands the bytes over.
  std::string taken = writer.take();
  EXPECT_EQ(parse_minimal(taken).packet_size(), 7);
}

// Check that 10 000 one-sample packets (ids 1..4, varying values) take exactly as many bytes as libprotobuf's encoding:
// ratio 1.0.
TEST(TraceWriter, TenThousandSamplePacketsMatchLibprotobufSizeExactly) {
  TraceWriter writer;
  tp::Trace expected;
  uint64_t x = 12345;
  for (int i = 0; i < 10'000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    auto id = static_cast<uint32_t>(1 + i % 4);
    // Values from 1 to 5 bytes of varint, now and then negative.
    int64_t value = static_cast<int64_t>((x >> 33) >> ((x >> 7) % 32));
    if ((x & 0xf) == 0) value = -value;
    uint64_t ts = 1'000'000'000ull + static_cast<uint64_t>(i) * 1'000'000ull;
    CounterSample sample = int_sample(id, value);
    writer.counter_samples(1, ts, std::nullopt, std::nullopt, {&sample, 1});

    auto* packet = expected.add_packet();
    packet->set_timestamp(ts);
    packet->set_trusted_packet_sequence_id(1);
    auto* counter = packet->mutable_gpu_counter_event()->add_counters();
    counter->set_counter_id(id);
    counter->set_int_value(value);
  }
  std::string reference = expected.SerializeAsString();
  ASSERT_FALSE(reference.empty());
  double ratio = static_cast<double>(writer.bytes().size()) / static_cast<double>(reference.size());
  EXPECT_EQ(ratio, 1.0) << writer.bytes().size() << " writer bytes, " << reference.size() << " libprotobuf bytes";
  EXPECT_TRUE(writer.bytes() == reference) << "same size, different bytes";
  EXPECT_EQ(writer.packets(), 10'000u);
}

}  // namespace
}  // namespace tidemark::tracer
