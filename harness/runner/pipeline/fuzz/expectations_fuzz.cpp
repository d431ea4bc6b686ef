// Fuzz target (libFuzzer entry point) for the expectations reader: any text must read as known
// failures or be one error at a line and column, never a crash or time that grows faster than
// the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runner/pipeline/expectations.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tidemark::runner::parse_expectations(std::string_view(reinterpret_cast<const char*>(data), size),
                                             "fuzz-expectations.txt");
  return 0;
}
