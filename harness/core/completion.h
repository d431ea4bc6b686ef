// What a client beneath the Tidemark layer is shown of GPU progress: the deterministic rule
// (harness/layer/tidemark_layer.h states it) or the driver's own timing.
#pragma once

#include <cstdint>
#include <string_view>

namespace tidemark {

enum class Completion : uint8_t { Deterministic, Real };
inline constexpr std::string_view kCompletionNames[] = {"deterministic", "real"};

}  // namespace tidemark
