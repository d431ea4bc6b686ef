#include "bisect/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <set>

namespace tidemark::bisect {

namespace {

constexpr std::string_view kNames[] = {"good", "bad", "skip", "nondeterministic"};

// The candidate strictly between `low` and `high` nearest their middle that is not in `unjudgeable`
// (alternating above and below it), or none.
std::optional<size_t> nearest_middle(size_t low, size_t high, const std::set<size_t>& unjudgeable) {
  const size_t middle = low + (high - low) / 2;
  auto open = [&](size_t candidate) { return candidate > low && candidate < high && !unjudgeable.contains(candidate); };
  for (size_t distance = 0; distance < high - low; ++distance) {
    if (open(middle + distance)) return middle + distance;
    if (distance <= middle - low && open(middle - distance)) return middle - distance;
  }
  return std::nullopt;
}

}  // namespace

std::string_view judgement_name(Judgement judgement) { return kNames[static_cast<size_t>(judgement)]; }

Result<Judgement> judgement_from_name(std::string_view name) {
  for (size_t at = 0; at < std::size(kNames); ++at)
    if (kNames[at] == name) return static_cast<Judgement>(at);
  return fail(ErrorKind::BadInput, fmt::format("expected good, bad, skip or nondeterministic, found '{}'", name));
}

size_t judgement_bound(size_t count) { return count < 2 ? count : std::bit_width(count - 1) + 2; }

Result<SearchResult> search(size_t count, const Judge& judge, const Ahead& ahead) {
  if (count < 2)
    return fail(ErrorKind::BadInput,
                fmt::format("expected at least two candidates (a good end and a bad end), found {}", count));
  SearchResult result;
  auto judged = [&](size_t index) -> Result<Judgement> {
    TIDEMARK_TRY(judgement, judge(index));
    result.tried.push_back({index, judgement});
    return judgement.judgement;
  };
  // The ends first: a range whose good end is not good (or bad end not bad) has nothing to find.
  const struct {
    size_t index;
    Judgement expected;
    std::string_view name;
  } ends[] = {{0, Judgement::Good, "good"}, {count - 1, Judgement::Bad, "bad"}};
  auto tell = [&](std::vector<std::optional<size_t>> next) {
    std::vector<size_t> known;
    for (const auto& index : next)
      if (index && std::ranges::find(known, *index) == known.end()) known.push_back(*index);
    if (ahead) ahead(known);
  };
  const auto first_middle = nearest_middle(0, count - 1, {});
  for (const auto& end : ends) {
    tell({end.index == 0 ? std::optional(count - 1) : std::nullopt, first_middle});
    TIDEMARK_TRY(judgement, judged(end.index));
    if (judgement != end.expected)
      return fail(ErrorKind::BadInput,
                  fmt::format("the {} end (candidate {}) is {}, expected {}: {}", end.name, end.index + 1,
                              judgement_name(judgement), end.name, result.tried.back().judged.why));
  }
  size_t low = 0, high = count - 1;
  std::set<size_t> unjudgeable;
  while (auto next = nearest_middle(low, high, unjudgeable)) {
    std::set<size_t> if_unjudgeable = unjudgeable;
    if_unjudgeable.insert(*next);
    tell({nearest_middle(*next, high, unjudgeable), nearest_middle(low, *next, unjudgeable),
          nearest_middle(low, high, if_unjudgeable)});
    TIDEMARK_TRY(judgement, judged(*next));
    switch (judgement) {
      case Judgement::Good:
        low = *next;
        break;
      case Judgement::Bad:
        high = *next;
        break;
      case Judgement::Skip:
      case Judgement::Nondeterministic:
        unjudgeable.insert(*next);
        break;
    }
  }
  result.last_good = low;
  result.first_bad = high;
  for (size_t index : unjudgeable)
    if (index > low && index < high) result.undecided.push_back(index);
  return result;
}

}  // namespace tidemark::bisect
