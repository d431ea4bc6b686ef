// The name a user most likely meant: a mistyped command, knob or check answered with "did you
// mean ...?". Close means few edits (an insertion, a deletion, a substitution or two neighbours
// swapped, each one edit), at most a third of the typed word's length and never more than two.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace tidemark {

// The number of edits from one word to the other (optimal string alignment: Levenshtein's with a
// swap of two neighbours as one edit, as typos go).
size_t edit_distance(std::string_view from, std::string_view to);

// The closest of `names` to `typed` when it is close enough; the first of equally close ones.
std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names);

}  // namespace tidemark
