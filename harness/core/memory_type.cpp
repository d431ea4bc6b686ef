#include "core/memory_type.h"

#include <algorithm>

namespace tidemark {

std::string_view to_string(MemoryType type) { return kMemoryTypeNames[static_cast<size_t>(type)]; }

std::optional<MemoryType> parse_memory_type(std::string_view name) {
  auto found = std::find(kMemoryTypeNames.begin(), kMemoryTypeNames.end(), name);
  if (found == kMemoryTypeNames.end()) return std::nullopt;
  return static_cast<MemoryType>(found - kMemoryTypeNames.begin());
}

}  // namespace tidemark
