// What the submission model's tests share: the time units their expectations are written in, and
// a draw command. One home, so that the tests can also be compiled as one unit (CI's unity build).
#pragma once

#include <cstdint>

#include "kernel/submission.h"

namespace tidemark::kernel::test_support {

inline constexpr uint64_t kUs = 1'000;
inline constexpr uint64_t kMs = 1'000'000;

inline Command draw(uint64_t cost_ns = kUs) { return {CommandKind::Draw, cost_ns, 0}; }

}  // namespace tidemark::kernel::test_support
