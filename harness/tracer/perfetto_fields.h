// Field numbers of the Perfetto protos the tracer writes and reads (../shared/specs/perfetto.md),
// the one place they are spelled. protos/ holds the same facts as .proto files for the tests.
#pragma once

#include <cstdint>

namespace tidemark::tracer::fields {

inline constexpr uint32_t kTracePacket = 1;  // Trace.packet

namespace packet {
inline constexpr uint32_t kFtraceEvents = 1;
inline constexpr uint32_t kTimestamp = 8;
inline constexpr uint32_t kTrackEvent = 11;
inline constexpr uint32_t kTrustedPacketSequenceId = 10;
inline constexpr uint32_t kInternedData = 12;
inline constexpr uint32_t kSequenceFlags = 13;
inline constexpr uint32_t kGpuCounterEvent = 52;
inline constexpr uint32_t kTimestampClockId = 58;
inline constexpr uint32_t kGpuMemTotalEvent = 71;
inline constexpr uint32_t kTracePacketDefaults = 59;
inline constexpr uint32_t kTrackDescriptor = 60;
inline constexpr uint32_t kIncrementalStateCleared = 1;  // sequence_flags bits
inline constexpr uint32_t kNeedsIncrementalState = 2;
}  // namespace packet

namespace gpu_mem_total {  // GpuMemTotalEvent and GpuMemTotalFtraceEvent
inline constexpr uint32_t kGpuId = 1;
inline constexpr uint32_t kPid = 2;
inline constexpr uint32_t kSize = 3;
}  // namespace gpu_mem_total

namespace ftrace {
inline constexpr uint32_t kBundleCpu = 1;
inline constexpr uint32_t kBundleEvent = 2;
inline constexpr uint32_t kEventTimestamp = 1;
inline constexpr uint32_t kEventPid = 2;
inline constexpr uint32_t kEventGpuMemTotal = 340;
}  // namespace ftrace

namespace counter_event {  // GpuCounterEvent and GpuCounter
inline constexpr uint32_t kDescriptor = 1;
inline constexpr uint32_t kCounters = 2;
inline constexpr uint32_t kGpuId = 3;
inline constexpr uint32_t kDescriptorIid = 4;
inline constexpr uint32_t kCounterId = 1;
inline constexpr uint32_t kIntValue = 2;
inline constexpr uint32_t kDoubleValue = 3;
}  // namespace counter_event

namespace descriptor {  // GpuCounterDescriptor, GpuCounterSpec, GpuCounterBlock
inline constexpr uint32_t kSpecs = 1;
inline constexpr uint32_t kBlocks = 2;
inline constexpr uint32_t kMinSamplingPeriodNs = 3;
inline constexpr uint32_t kMaxSamplingPeriodNs = 4;
inline constexpr uint32_t kSupportsInstrumentedSampling = 5;
inline constexpr uint32_t kSpecCounterId = 1;
inline constexpr uint32_t kSpecName = 2;
inline constexpr uint32_t kSpecDescription = 3;
inline constexpr uint32_t kSpecIntPeak = 5;
inline constexpr uint32_t kSpecDoublePeak = 6;
inline constexpr uint32_t kSpecNumeratorUnits = 7;
inline constexpr uint32_t kSpecDenominatorUnits = 8;
inline constexpr uint32_t kSpecSelectByDefault = 9;
inline constexpr uint32_t kSpecGroups = 10;
inline constexpr uint32_t kSpecValueDirection = 11;
inline constexpr uint32_t kBlockId = 1;
inline constexpr uint32_t kBlockCapacity = 2;
inline constexpr uint32_t kBlockName = 3;
inline constexpr uint32_t kBlockDescription = 4;
inline constexpr uint32_t kBlockCounterIds = 5;
}  // namespace descriptor

namespace interned {  // InternedData, InternedGpuCounterDescriptor, EventName, DebugAnnotationName
inline constexpr uint32_t kEventNames = 2;
inline constexpr uint32_t kDebugAnnotationNames = 3;
inline constexpr uint32_t kGpuCounterDescriptors = 47;
inline constexpr uint32_t kNameIid = 1;  // EventName and DebugAnnotationName
inline constexpr uint32_t kName = 2;
inline constexpr uint32_t kIid = 1;
inline constexpr uint32_t kCounterDescriptor = 2;
inline constexpr uint32_t kGpuId = 3;
}  // namespace interned

// Track events (a wire's commands and replies): a TrackDescriptor names a track once (a process
// track names its process: the trace has then seen that pid), and each TrackEvent is an instant
// on a track by its uuid, its arguments as debug annotations; its name and its arguments' names are
// interned on the sequence (EventName, DebugAnnotationName), each written once.
namespace track_descriptor {  // TrackDescriptor, ProcessDescriptor
inline constexpr uint32_t kUuid = 1;
inline constexpr uint32_t kName = 2;
inline constexpr uint32_t kProcess = 3;
inline constexpr uint32_t kParentUuid = 5;
inline constexpr uint32_t kProcessPid = 1;
inline constexpr uint32_t kProcessName = 6;
}  // namespace track_descriptor

namespace packet_defaults {  // TracePacketDefaults, TrackEventDefaults: the sequence's default track
inline constexpr uint32_t kTrackEventDefaults = 11;
inline constexpr uint32_t kTrackUuid = 11;
}  // namespace packet_defaults

namespace track_event {  // TrackEvent, DebugAnnotation
inline constexpr uint32_t kDebugAnnotations = 4;
inline constexpr uint32_t kType = 9;
inline constexpr uint32_t kNameIid = 10;
inline constexpr uint32_t kTrackUuid = 11;
inline constexpr uint32_t kName = 23;
inline constexpr uint32_t kTypeInstant = 3;
inline constexpr uint32_t kAnnotationNameIid = 1;
inline constexpr uint32_t kAnnotationUintValue = 3;
inline constexpr uint32_t kAnnotationStringValue = 6;
inline constexpr uint32_t kAnnotationName = 10;
}  // namespace track_event

}  // namespace tidemark::tracer::fields
