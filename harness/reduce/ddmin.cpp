#include "reduce/ddmin.h"

#include <algorithm>
#include <optional>

namespace tidemark::reduce {

namespace {

// `items` cut into `parts` runs of near-equal length, in order.
std::vector<std::vector<size_t>> split(const std::vector<size_t>& items, size_t parts) {
  std::vector<std::vector<size_t>> chunks;
  size_t start = 0;
  for (size_t k = 0; k < parts; ++k) {
    size_t end = start + (items.size() - start) / (parts - k);
    chunks.emplace_back(items.begin() + static_cast<std::ptrdiff_t>(start),
                        items.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return chunks;
}

std::vector<size_t> without(const std::vector<size_t>& items, const std::vector<size_t>& chunk) {
  std::vector<size_t> rest;
  std::set_difference(items.begin(), items.end(), chunk.begin(), chunk.end(), std::back_inserter(rest));
  return rest;
}

// The first interesting candidate, judged `batch` at a time in order.
std::optional<size_t> first_interesting(const std::vector<std::vector<size_t>>& candidates, const Judge& judge,
                                        size_t batch) {
  for (size_t start = 0; start < candidates.size(); start += batch) {
    size_t end = std::min(candidates.size(), start + batch);
    std::vector<std::vector<size_t>> slice(candidates.begin() + static_cast<std::ptrdiff_t>(start),
                                           candidates.begin() + static_cast<std::ptrdiff_t>(end));
    std::vector<bool> verdicts = judge(slice);
    for (size_t k = 0; k < verdicts.size(); ++k)
      if (verdicts[k]) return start + k;
  }
  return std::nullopt;
}

}  // namespace

std::vector<size_t> minimize(const std::vector<size_t>& input, const Judge& judge, size_t batch,
                             const std::function<bool()>& stop, size_t max_parts) {
  std::vector<size_t> items = input;
  std::sort(items.begin(), items.end());
  batch = std::max<size_t>(batch, 1);
  size_t parts = 2;
  auto stopped = [&] { return stop && stop(); };
  while (items.size() >= 2) {
    if (stopped()) return items;
    parts = std::min(parts, items.size());
    auto chunks = split(items, parts);
    // Complements first: with a small core spread through much noise, dropping one part at a
    // time is what succeeds; with two parts a complement is the other subset.
    std::vector<std::vector<size_t>> complements;
    for (const auto& chunk : chunks) complements.push_back(without(items, chunk));
    if (auto found = first_interesting(complements, judge, batch)) {
      items = std::move(complements[*found]);
      parts = std::max<size_t>(parts - 1, 2);
      continue;
    }
    if (parts > 2) {
      if (auto found = first_interesting(chunks, judge, batch)) {
        items = std::move(chunks[*found]);
        parts = 2;
        continue;
      }
    }
    if (parts >= items.size()) break;
    if (max_parts && parts >= max_parts) return items;  // a coarse pass ends here
    parts = std::min(parts * 2, items.size());
    if (max_parts) parts = std::min(parts, max_parts);
  }
  if (items.size() == 1 && !stopped() && first_interesting({{}}, judge, 1)) return {};
  return items;
}

int64_t least_value(int64_t low, int64_t high, const ValueJudge& holds) {
  // Invariant: `high` holds; nothing below `low` is tried.
  while (low < high) {
    std::vector<int64_t> values;
    for (int64_t k = 1; k <= 2; ++k) {
      int64_t value = low + (high - low) * k / 3;
      if (values.empty() || value > values.back()) values.push_back(value);
    }
    std::vector<bool> verdicts = holds(values);
    size_t first = 0;
    while (first < values.size() && !verdicts[first]) ++first;
    if (first < values.size()) high = values[first];
    if (first > 0) low = values[first - 1] + 1;
  }
  return high;
}

std::vector<size_t> shortest_window(const std::vector<size_t>& input, const Judge& judge,
                                    const std::function<bool()>& stop) {
  std::vector<size_t> items = input;
  std::sort(items.begin(), items.end());
  // A value not judged (stopped) does not hold: the search then settles on one that did.
  auto counts = [&](auto candidate_of) {
    return [&, candidate_of](const std::vector<int64_t>& values) {
      if (stop && stop()) return std::vector<bool>(values.size(), false);
      std::vector<std::vector<size_t>> candidates;
      for (int64_t value : values) candidates.push_back(candidate_of(static_cast<size_t>(value)));
      return judge(candidates);
    };
  };
  const auto prefix = static_cast<size_t>(
      least_value(0, static_cast<int64_t>(items.size()), counts([&](size_t n) {
                    return std::vector<size_t>(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(n));
                  })));
  items.resize(prefix);
  const auto last = static_cast<size_t>(least_value(0, static_cast<int64_t>(items.size()), counts([&](size_t n) {
                                                      return std::vector<size_t>(
                                                          items.end() - static_cast<std::ptrdiff_t>(n), items.end());
                                                    })));
  return std::vector<size_t>(items.end() - static_cast<std::ptrdiff_t>(last), items.end());
}

}  // namespace tidemark::reduce
