#include "core/nearest_name.h"

#include <algorithm>
#include <vector>

namespace tidemark {

// By hand: a dozen lines, and none of Debian's libraries Tidemark links offers it.
size_t edit_distance(std::string_view from, std::string_view to) {
  const size_t columns = to.size() + 1;
  // Three rows of the table: the swap looks two rows back.
  std::vector<size_t> before(columns), previous(columns), current(columns);
  for (size_t j = 0; j < columns; ++j) previous[j] = j;
  for (size_t i = 1; i <= from.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j < columns; ++j) {
      const size_t substitution = previous[j - 1] + (from[i - 1] == to[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && from[i - 1] == to[j - 2] && from[i - 2] == to[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[to.size()];
}

std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names) {
  const size_t allowed = std::clamp<size_t>(typed.size() / 3, 1, 2);
  std::optional<std::string> nearest;
  size_t best = allowed + 1;
  for (const std::string& name : names)
    if (const size_t distance = edit_distance(typed, name); distance < best) {
      best = distance;
      nearest = name;
    }
  return nearest;
}

}  // namespace tidemark
