// The types the client API's calls take and give (api/calls.yaml): the device's handles and
// draw call, the model's walk updates, and the core types both halves speak.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/counters.h"
#include "core/error.h"
#include "core/gauges.h"
#include "core/image.h"
#include "core/kernel_types.h"
#include "core/memory_type.h"
#include "core/trace_memory.h"
#include "core/wait_status.h"

namespace tidemark::api {

using BufferId = uint32_t;
using FenceId = uint32_t;

struct Rect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // pixels, x1/y1 exclusive
  static auto fields(auto& m) { return std::tie(m.x0, m.y0, m.x1, m.y1); }
  bool operator==(const Rect&) const = default;
};

struct DrawCall {
  BufferId uniform = 0;   // the first 4 bytes of its store are the RGBA8 colour
  BufferId vertices = 0;  // 0: none; else the first 8 bytes of its store, a float2 offset
  Rect rect;
  static auto fields(auto& m) { return std::tie(m.uniform, m.vertices, m.rect); }
  bool operator==(const DrawCall&) const = default;
};

// (walk step, the tracepoint hit that lands before that step's read)
using WalkUpdates = std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>>;

}  // namespace tidemark::api
