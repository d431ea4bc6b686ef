// Limits that several layers enforce (the scenario loader, the wire, the backend), written once.
#pragma once

#include <cstdint>

namespace tidemark {

inline constexpr int32_t kMaxTargetSide = 4096;          // each side of the offscreen target
inline constexpr int64_t kMaxRepeatCount = 10'000'000;   // iterations of one repeat step

}  // namespace tidemark
