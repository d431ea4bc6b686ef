// Delta debugging: the generic part of `tidemark reduce`, knowing nothing of scenarios.
// Zeller and Hildebrandt's ddmin over a list of items, and a bisection for the least value of
// a number that keeps a property. Candidates are judged in batches the judge may run in
// parallel; the first interesting candidate of a batch, in batch order, is the one taken, so
// the result never depends on which candidate finished first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace tidemark::reduce {

// One verdict for each candidate (a subset of the items, in their order): true when it is
// still interesting.
using Judge = std::function<std::vector<bool>(const std::vector<std::vector<size_t>>& candidates)>;

// The subset of `items` ddmin reaches (complements first, then subsets): interesting, and
// 1-minimal — without any one of its items it is not. `items` as a whole must be interesting;
// `batch` candidates at most go to the judge at once.
std::vector<size_t> minimize(const std::vector<size_t>& items, const Judge& judge, size_t batch);

// The least value in [low, high] that `holds`, by bisection from `high` (which holds). Where
// the property is not monotone it is still a value that holds.
int64_t least_value(int64_t low, int64_t high, const std::function<bool(int64_t)>& holds);

}  // namespace tidemark::reduce
