#include "tracer/trace_writer.h"

#include <cstring>

#include "tracer/perfetto_fields.h"
#include "tracer/proto.h"

namespace tidemark::tracer {

namespace {

using proto::Out;
using proto::put_varint;
using proto::tag;
using proto::tag_size;
using proto::varint_size;
namespace f = fields;

uint64_t as_varint(int64_t value) { return static_cast<uint64_t>(value); }  // int32/int64: sign-extended

void write_spec(Out& out, const CounterSpec& spec) {
  if (spec.counter_id) out.varint(f::descriptor::kSpecCounterId, *spec.counter_id);
  if (spec.name) out.bytes(f::descriptor::kSpecName, *spec.name);
  if (!spec.description.empty()) out.bytes(f::descriptor::kSpecDescription, spec.description);
  if (const auto* peak = std::get_if<int64_t>(&spec.peak)) out.int64(f::descriptor::kSpecIntPeak, *peak);
  if (const auto* peak = std::get_if<double>(&spec.peak)) out.fixed64_double(f::descriptor::kSpecDoublePeak, *peak);
  for (MeasureUnit unit : spec.numerator_units) out.varint(f::descriptor::kSpecNumeratorUnits, unit);
  for (MeasureUnit unit : spec.denominator_units) out.varint(f::descriptor::kSpecDenominatorUnits, unit);
  if (spec.select_by_default) out.boolean(f::descriptor::kSpecSelectByDefault, true);
  for (CounterGroup group : spec.groups) out.varint(f::descriptor::kSpecGroups, group);
  if (spec.direction != ValueDirection::Unspecified)
    out.varint(f::descriptor::kSpecValueDirection, static_cast<uint32_t>(spec.direction));
}

void write_block(Out& out, const CounterBlock& block) {
  out.varint(f::descriptor::kBlockId, block.block_id);
  if (block.capacity) out.varint(f::descriptor::kBlockCapacity, *block.capacity);
  if (!block.name.empty()) out.bytes(f::descriptor::kBlockName, block.name);
  if (!block.description.empty()) out.bytes(f::descriptor::kBlockDescription, block.description);
  for (uint32_t id : block.counter_ids) out.varint(f::descriptor::kBlockCounterIds, id);
}

void write_descriptor(Out& out, const CounterDescriptor& descriptor) {
  for (const auto& spec : descriptor.specs)
    out.message(f::descriptor::kSpecs, [&](Out& nested) { write_spec(nested, spec); });
  for (const auto& block : descriptor.blocks)
    out.message(f::descriptor::kBlocks, [&](Out& nested) { write_block(nested, block); });
  if (descriptor.min_sampling_period_ns)
    out.varint(f::descriptor::kMinSamplingPeriodNs, *descriptor.min_sampling_period_ns);
  if (descriptor.max_sampling_period_ns)
    out.varint(f::descriptor::kMaxSamplingPeriodNs, *descriptor.max_sampling_period_ns);
  if (descriptor.supports_instrumented_sampling) out.boolean(f::descriptor::kSupportsInstrumentedSampling, true);
}

void write_counter(Out& out, const CounterSample& sample) {
  out.varint(f::counter_event::kCounterId, sample.counter_id);
  if (const auto* value = std::get_if<int64_t>(&sample.value))
    out.int64(f::counter_event::kIntValue, *value);
  else
    out.fixed64_double(f::counter_event::kDoubleValue, std::get<double>(sample.value));
}

size_t counter_size(const CounterSample& sample) {
  size_t size = tag_size(f::counter_event::kCounterId) + varint_size(sample.counter_id);
  if (const auto* value = std::get_if<int64_t>(&sample.value))
    return size + tag_size(f::counter_event::kIntValue) + varint_size(as_varint(*value));
  return size + tag_size(f::counter_event::kDoubleValue) + 8;
}

// A packet: `body` writes the TracePacket's fields, in field-number order.
template <class Body>
void append_packet(std::string& out, Body&& body) {
  Out trace(out);
  trace.message(f::kTracePacket, body);
}

}  // namespace

void TraceWriter::gpu_mem_total(uint32_t sequence, uint64_t timestamp, uint32_t gpu_id, uint32_t pid, uint64_t size) {
  append_packet(out_, [&](Out& packet) {
    packet.varint(f::packet::kTimestamp, timestamp);
    packet.varint(f::packet::kTrustedPacketSequenceId, sequence);
    packet.message(f::packet::kGpuMemTotalEvent, [&](Out& event) {
      event.varint(f::gpu_mem_total::kGpuId, gpu_id);
      event.varint(f::gpu_mem_total::kPid, pid);
      event.varint(f::gpu_mem_total::kSize, size);
    });
  });
  ++packets_;
}

void TraceWriter::reserve(size_t bytes) { out_.reserve(bytes); }

// A hot path (two tracepoint events per respecify): every size is computed first, the buffer
// grows once, and the bytes are written through a pointer, as Out would write them.
void TraceWriter::ftrace_gpu_mem_totals(uint32_t sequence, uint32_t cpu, std::span<const FtraceGpuMemTotal> events) {
  auto total_size = [](const FtraceGpuMemTotal& hit) {
    return tag_size(f::gpu_mem_total::kGpuId) + varint_size(hit.gpu_id) + tag_size(f::gpu_mem_total::kPid) +
           varint_size(hit.pid) + tag_size(f::gpu_mem_total::kSize) + varint_size(hit.size);
  };
  auto event_size = [](const FtraceGpuMemTotal& hit, size_t total) {
    return tag_size(f::ftrace::kEventTimestamp) + varint_size(hit.timestamp) + tag_size(f::ftrace::kEventPid) +
           varint_size(hit.thread) + tag_size(f::ftrace::kEventGpuMemTotal) + varint_size(total) + total;
  };
  size_t bundle = tag_size(f::ftrace::kBundleCpu) + varint_size(cpu);
  for (const auto& hit : events) {
    const size_t event = event_size(hit, total_size(hit));
    bundle += tag_size(f::ftrace::kBundleEvent) + varint_size(event) + event;
  }
  const size_t packet = tag_size(f::packet::kFtraceEvents) + varint_size(bundle) + bundle +
                        tag_size(f::packet::kTrustedPacketSequenceId) + varint_size(sequence);
  const size_t total = tag_size(f::kTracePacket) + varint_size(packet) + packet;
  const size_t at = out_.size();
  out_.resize(at + total);
  proto::Cursor out{out_.data() + at};
  out.nested(f::kTracePacket, packet);
  out.nested(f::packet::kFtraceEvents, bundle);
  out.field(f::ftrace::kBundleCpu, cpu);
  for (const auto& hit : events) {
    const size_t total_bytes = total_size(hit);
    out.nested(f::ftrace::kBundleEvent, event_size(hit, total_bytes));
    out.field(f::ftrace::kEventTimestamp, hit.timestamp);
    out.field(f::ftrace::kEventPid, hit.thread);
    out.nested(f::ftrace::kEventGpuMemTotal, total_bytes);
    out.field(f::gpu_mem_total::kGpuId, hit.gpu_id);
    out.field(f::gpu_mem_total::kPid, hit.pid);
    out.field(f::gpu_mem_total::kSize, hit.size);
  }
  out.field(f::packet::kTrustedPacketSequenceId, sequence);
  ++packets_;
}

void TraceWriter::counter_descriptor(uint32_t sequence, uint64_t timestamp, int32_t gpu_id,
                                     const CounterDescriptor& descriptor, std::span<const CounterSample> samples) {
  append_packet(out_, [&](Out& packet) {
    packet.varint(f::packet::kTimestamp, timestamp);
    packet.varint(f::packet::kTrustedPacketSequenceId, sequence);
    packet.message(f::packet::kGpuCounterEvent, [&](Out& event) {
      event.message(f::counter_event::kDescriptor, [&](Out& nested) { write_descriptor(nested, descriptor); });
      for (const auto& sample : samples)
        event.message(f::counter_event::kCounters, [&](Out& counter) { write_counter(counter, sample); });
      event.varint(f::counter_event::kGpuId, as_varint(gpu_id));
    });
  });
  ++packets_;
}

void TraceWriter::intern_counter_descriptor(uint32_t sequence, uint64_t timestamp, uint64_t iid, int32_t gpu_id,
                                            const CounterDescriptor& descriptor, bool clear_state) {
  append_packet(out_, [&](Out& packet) {
    packet.varint(f::packet::kTimestamp, timestamp);
    packet.varint(f::packet::kTrustedPacketSequenceId, sequence);
    packet.message(f::packet::kInternedData, [&](Out& interned) {
      interned.message(f::interned::kGpuCounterDescriptors, [&](Out& entry) {
        entry.varint(f::interned::kIid, iid);
        entry.message(f::interned::kCounterDescriptor, [&](Out& nested) { write_descriptor(nested, descriptor); });
        entry.varint(f::interned::kGpuId, as_varint(gpu_id));
      });
    });
    packet.varint(f::packet::kSequenceFlags,
                  clear_state ? f::packet::kIncrementalStateCleared : f::packet::kNeedsIncrementalState);
  });
  ++packets_;
}

// The hot path: sizes are computed, nothing is built twice and nothing is allocated.
void TraceWriter::counter_samples(uint32_t sequence, uint64_t timestamp, std::optional<int32_t> gpu_id,
                                  std::optional<uint64_t> iid, std::span<const CounterSample> samples) {
  size_t event = 0;
  for (const auto& sample : samples) {
    size_t counter = counter_size(sample);
    event += tag_size(f::counter_event::kCounters) + varint_size(counter) + counter;
  }
  if (gpu_id) event += tag_size(f::counter_event::kGpuId) + varint_size(as_varint(*gpu_id));
  if (iid) event += tag_size(f::counter_event::kDescriptorIid) + varint_size(*iid);
  size_t packet = tag_size(f::packet::kTimestamp) + varint_size(timestamp) +
                  tag_size(f::packet::kTrustedPacketSequenceId) + varint_size(sequence) +
                  tag_size(f::packet::kGpuCounterEvent) + varint_size(event) + event;
  if (iid) packet += tag_size(f::packet::kSequenceFlags) + varint_size(f::packet::kNeedsIncrementalState);

  // The packet's exact size is known: grow the buffer once and write through a pointer.
  size_t total = tag_size(f::kTracePacket) + varint_size(packet) + packet;
  size_t at = out_.size();
  out_.resize(at + total);
  proto::Cursor out{out_.data() + at};
  out.nested(f::kTracePacket, packet);
  out.field(f::packet::kTimestamp, timestamp);
  out.field(f::packet::kTrustedPacketSequenceId, sequence);
  if (iid) out.field(f::packet::kSequenceFlags, f::packet::kNeedsIncrementalState);
  out.nested(f::packet::kGpuCounterEvent, event);
  for (const auto& sample : samples) {
    out.nested(f::counter_event::kCounters, counter_size(sample));
    out.field(f::counter_event::kCounterId, sample.counter_id);
    if (const auto* value = std::get_if<int64_t>(&sample.value))
      out.field(f::counter_event::kIntValue, as_varint(*value));
    else
      out.fixed64_double(f::counter_event::kDoubleValue, std::get<double>(sample.value));
  }
  if (gpu_id) out.field(f::counter_event::kGpuId, as_varint(*gpu_id));
  if (iid) out.field(f::counter_event::kDescriptorIid, *iid);
  ++packets_;
}

void TraceWriter::track_descriptor(uint32_t sequence, uint64_t timestamp, const TrackDescriptor& track) {
  append_packet(out_, [&](Out& packet) {
    packet.varint(f::packet::kTimestamp, timestamp);
    packet.varint(f::packet::kTrustedPacketSequenceId, sequence);
    packet.message(f::packet::kTrackDescriptor, [&](Out& descriptor) {
      descriptor.varint(f::track_descriptor::kUuid, track.uuid);
      descriptor.bytes(f::track_descriptor::kName, track.name);
      if (track.pid)
        descriptor.message(f::track_descriptor::kProcess, [&](Out& process) {
          process.varint(f::track_descriptor::kProcessPid, *track.pid);
          process.bytes(f::track_descriptor::kProcessName, track.name);
        });
      if (track.parent) descriptor.varint(f::track_descriptor::kParentUuid, *track.parent);
    });
  });
  ++packets_;
}

void TraceWriter::track_instant(uint32_t sequence, uint64_t timestamp, std::optional<uint64_t> track_uuid,
                                uint64_t name_iid, std::span<const InternedArgument> arguments,
                                const NewInternedNames& interned) {
  // Fields in their numbers' order, as libprotobuf writes them.
  append_packet(out_, [&](Out& packet) {
    packet.varint(f::packet::kTimestamp, timestamp);
    packet.varint(f::packet::kTrustedPacketSequenceId, sequence);
    packet.message(f::packet::kTrackEvent, [&](Out& event) {
      for (const auto& argument : arguments)
        event.message(f::track_event::kDebugAnnotations, [&](Out& annotation) {
          annotation.varint(f::track_event::kAnnotationNameIid, argument.name_iid);
          if (const auto* number = std::get_if<uint64_t>(argument.value))
            annotation.varint(f::track_event::kAnnotationUintValue, *number);
          else
            annotation.bytes(f::track_event::kAnnotationStringValue, std::get<std::string>(*argument.value));
        });
      event.varint(f::track_event::kType, f::track_event::kTypeInstant);
      event.varint(f::track_event::kNameIid, name_iid);
      if (track_uuid) event.varint(f::track_event::kTrackUuid, *track_uuid);
    });
    if (!interned.event_names.empty() || !interned.argument_names.empty())
      packet.message(f::packet::kInternedData, [&](Out& data) {
        auto names = [&](uint32_t field, std::span<const InternedName> entries) {
          for (const InternedName& entry : entries)
            data.message(field, [&](Out& name) {
              name.varint(f::interned::kNameIid, entry.iid);
              name.bytes(f::interned::kName, entry.name);
            });
        };
        names(f::interned::kEventNames, interned.event_names);
        names(f::interned::kDebugAnnotationNames, interned.argument_names);
      });
    packet.varint(f::packet::kSequenceFlags,
                  f::packet::kNeedsIncrementalState | (interned.clear_state ? f::packet::kIncrementalStateCleared : 0));
    if (interned.default_track)
      packet.message(f::packet::kTracePacketDefaults, [&](Out& defaults) {
        defaults.message(f::packet_defaults::kTrackEventDefaults,
                         [&](Out& events) { events.varint(f::packet_defaults::kTrackUuid, *interned.default_track); });
      });
  });
  ++packets_;
}

uint64_t TrackEventNames::intern(Iids& iids, std::string_view name, std::vector<InternedName>& added) {
  if (auto found = iids.find(name); found != iids.end()) return found->second;
  const uint64_t iid = iids.size() + 1;
  auto made = iids.emplace(std::string(name), iid).first;
  added.push_back({iid, made->first});  // the map's key: it outlives the packet
  return iid;
}

void TrackEventNames::instant(TraceWriter& writer, uint32_t sequence, uint64_t timestamp, uint64_t track_uuid,
                              std::string_view name, std::span<const TrackEventArgument> arguments) {
  added_events_.clear();
  added_arguments_.clear();
  interned_.clear();
  const bool first = !default_track_;
  if (first) default_track_ = track_uuid;
  const uint64_t name_iid = intern(events_, name, added_events_);
  for (const TrackEventArgument& argument : arguments)
    interned_.push_back({intern(arguments_, argument.name, added_arguments_), &argument.value});
  writer.track_instant(sequence, timestamp, track_uuid == default_track_ ? std::nullopt : std::optional(track_uuid),
                       name_iid, interned_,
                       {.event_names = added_events_,
                        .argument_names = added_arguments_,
                        .clear_state = first,
                        .default_track = first ? default_track_ : std::nullopt});
}

}  // namespace tidemark::tracer
