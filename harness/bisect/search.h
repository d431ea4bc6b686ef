// The search of `tidemark bisect`, as a pure function: an ordered list of candidates (oldest
// first: the good end first, the bad end last) and a judge that says of one candidate whether it
// is good, bad, to be skipped (it does not build, it is not the driver it claims to be) or
// nondeterministic (its repeats disagree). Nothing here runs a driver: bisect.h gives the judge.
//
// Our own search rather than driving `git bisect`: the candidates are not always commits (an
// ordered list of driver builds has no git history), git bisect keeps its state in the user's
// repository (BISECT_* refs and files under .git, which a user's own bisect would collide with),
// and a nondeterministic judgement has no place in its good/bad/skip. The same few lines serve a
// list and a git range, and are tested here with planted answers.
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
