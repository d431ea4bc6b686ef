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
// `batch` candidates at most go to the judge at once. When `stop` says so (a budget spent, an
// interrupt) before a round, the subset reached so far: interesting, not yet 1-minimal. With
// `max_parts`, a coarse pass: ddmin that never splits into more parts (what it reaches is
// interesting, 1-minimal only where it ran out of items first).
std::vector<size_t> minimize(const std::vector<size_t>& items, const Judge& judge, size_t batch,
                             const std::function<bool()>& stop = {}, size_t max_parts = 0);

// Verdicts for values, which the judge may try in parallel.
using ValueJudge = std::function<std::vector<bool>(const std::vector<int64_t>& values)>;

// The least value in [low, high] that holds, `high` holding: a search that tries two values a
// round, cutting the interval in three (about 1.6 times fewer rounds than bisection with two
// cores, and the same values tried whatever the cores, so the same result on every machine).
// Where the property is not monotone it is still a value that holds.
int64_t least_value(int64_t low, int64_t high, const ValueJudge& holds);

// The shortest run of `items` (in their order) two searches for a least count find: the
// shortest interesting prefix, then the fewest of its last items that are interesting. Where
// the property needs many items (a threshold crossed by repetition) it takes O(log n)
// judgements, where ddmin's complements near the threshold take O(n) and more. `items` as a
// whole must be interesting; what `stop` cuts short is still an interesting run.
std::vector<size_t> shortest_window(const std::vector<size_t>& items, const Judge& judge,
                                    const std::function<bool()>& stop = {});

}  // namespace tidemark::reduce
