// Tracer tests only: MeasureUnit values written by hand from the table in
// shared/specs/perfetto.md, so that a test never takes the code's own values as expected.
#pragma once

#include "core/counters.h"

namespace tidemark::tracer::test_units {

inline constexpr MeasureUnit kNone = 0, kByte = 7, kHertz = 13, kMillisecond = 21, kSecond = 22, kVertex = 25,
                             kPixel = 26, kTriangle = 27, kPercent = 37, kFragment = 39, kInstruction = 40;

}  // namespace tidemark::tracer::test_units
