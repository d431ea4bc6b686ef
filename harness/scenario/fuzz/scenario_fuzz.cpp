// Fuzz target (libFuzzer entry point) for the scenario loader: any text must load into a
// scenario or a one-line error at a file position, never a crash, a hang or an unbounded
// allocation (loops, sizes and expressions are all written by the file's author).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)tidemark::scenario::load_text(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  return 0;
}
