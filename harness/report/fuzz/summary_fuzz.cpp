// Fuzz target (libFuzzer entry point) for the summary reader, the one codec merge, compare's
// baselines and --shard-durations read summaries through: any bytes must read as a summary or
// be one error naming the field, never a crash, a hang, deep recursion or an allocation that
// grows past the input's own bounds (shard totals, nesting, sizes: core/limits.h).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tidemark::report::parse_summary(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  return 0;
}
