// The search of `tidemark bisect` as a pure function: candidates oldest first (the good end
// first) and a judge saying good, bad, skip or nondeterministic of one; bisect.h gives the judge.
// Our own rather than `git bisect`: candidates need not be commits (a list of driver builds), git
// bisect keeps its state in the user's repository, and it has no "nondeterministic".
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark::bisect {

enum class Judgement { Good, Bad, Skip, Nondeterministic };
std::string_view judgement_name(Judgement judgement);  // "good", "bad", "skip", "nondeterministic"
Result<Judgement> judgement_from_name(std::string_view name);

// A candidate judged, and why. Not a run's verdict (report::Verdict): runs of the candidate are
// judged good or bad by the bisect's predicate.
struct Judged {
  Judgement judgement = Judgement::Good;
  std::string why;  // a skip's reason, a nondeterministic candidate's digests, a bad one's red
};

// Judges the candidate at `index`; an error (the machine lacks something) ends the search.
using Judge = std::function<Result<Judged>(size_t index)>;

struct Tried {
  size_t index = 0;
  Judged judged;
};

struct SearchResult {
  size_t last_good = 0;  // the newest candidate judged good
  size_t first_bad = 0;  // the oldest candidate judged bad
  // Candidates between the two that could not be judged (skipped or nondeterministic): when
  // there are any, the first bad is one of them or first_bad, and the result says so (never a guess).
  std::vector<size_t> undecided;
  std::vector<Tried> tried;  // in the order judged, the two ends first
};

// The most judgements of candidates that were neither skipped nor nondeterministic for `count`
// candidates: the two ends, then ceil(log2(count)) halvings at most.
size_t judgement_bound(size_t count);

// Told, before each judgement, of the candidates that may be judged after it (whichever way it
// goes), nearest first: a caller that builds candidates can build those meanwhile (--jobs).
using Ahead = std::function<void(const std::vector<size_t>& next)>;

// Judges the two ends first (the first must be good, the last bad: else bad input naming which
// end and its judgement), then halves the range between the newest good and the oldest bad,
// judging the candidate nearest the middle that is not yet known to be unjudgeable.
Result<SearchResult> search(size_t count, const Judge& judge, const Ahead& ahead = {});

}  // namespace tidemark::bisect
