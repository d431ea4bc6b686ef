// Which GPU-memory sources a run trace records: a plain choice the client API and scenarios
// name, kept out of tracer/ so that naming it needs no trace writer.
#pragma once

#include <cstdint>
#include <string_view>

namespace tidemark::tracer {

// What the GPU-memory part of the trace records: the data source's snapshot and the ftrace
// events after it (the whole series), only the snapshot (no later change), or only ftrace (no
// baseline: Trace Processor drops the events of processes it never saw).
enum class MemorySource : uint8_t { Both, Snapshot, Ftrace };
inline constexpr std::string_view kMemorySourceNames[] = {"both", "snapshot", "ftrace"};

}  // namespace tidemark::tracer
