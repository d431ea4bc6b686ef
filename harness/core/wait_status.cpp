#include "core/wait_status.h"

#include <algorithm>

namespace tidemark {

std::string_view to_string(WaitStatus status) {
  auto index = static_cast<size_t>(status);
  return index < kWaitStatusNames.size() ? kWaitStatusNames[index] : "?";
}

std::optional<WaitStatus> parse_wait_status(std::string_view name) {
  auto found = std::find(kWaitStatusNames.begin(), kWaitStatusNames.end(), name);
  if (found == kWaitStatusNames.end()) return std::nullopt;
  return static_cast<WaitStatus>(found - kWaitStatusNames.begin());
}

}  // namespace tidemark
