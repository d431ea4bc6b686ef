#include "wire/protocol_layout.h"

#include <fmt/format.h>
#include <xxhash.h>

namespace tidemark::wire {

std::string protocol_layout() {
  std::string out;
#define TIDEMARK_DESCRIBE(name, code, text) \
  out += fmt::format("{} {} ", text, code); \
  describe_layout<name>(out);               \
  out += "\n";
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_DESCRIBE)
#undef TIDEMARK_DESCRIBE
  return out;
}

uint64_t protocol_layout_hash() {
  std::string layout = protocol_layout();
  return XXH3_64bits(layout.data(), layout.size());
}

}  // namespace tidemark::wire
