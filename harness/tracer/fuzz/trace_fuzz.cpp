// Fuzz target (libFuzzer entry point) for the trace importer: any bytes must import into
// tracks, counts and notes — never a crash, a hang or an unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tracer/importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tidemark::tracer;
  ImportedTrace trace = import_trace(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& track : trace.tracks) (void)spans(track, trace.end_ts);
  (void)describe(trace);
  return 0;
}
