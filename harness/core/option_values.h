// Numbers a user writes in an option (--max-fails 5, --timeout 2.5, --knob NAME=VALUE, bisect's
// --worse-than VALUE), read whole, in one way for every command: a value that does not fit is bad
// input, never wrapped (-1 as a count), clamped (a 20-digit number as INT64_MAX) or taken as "no
// limit" (nan seconds).
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

#include "core/error.h"

namespace tidemark {

// A whole number in decimal from `min` to `max`: "expected an integer from MIN to MAX, found 'TEXT'".
Result<int64_t> parse_whole_number(std::string_view text, int64_t min = std::numeric_limits<int64_t>::min(),
                                   int64_t max = std::numeric_limits<int64_t>::max());

// A duration in seconds: a finite number above 0, or 0 where it means "no limit".
enum class ZeroSeconds { Refused, MeansNoLimit };
Result<double> parse_seconds(std::string_view text, ZeroSeconds zero);

// A finite number from 0 (a bound such as a slope).
Result<double> parse_finite_bound(std::string_view text);

}  // namespace tidemark
