// The layer's tables keyed by a Vulkan handle (harness/layer/): open addressing
// (absl::flat_hash_map), so a create and its destroy allocate no node of their own and a lookup
// divides by nothing; the layer counts every object a program makes, on the program's thread.
// Nothing iterates one of these for an order that reaches an answer (device_idle sorts).
#pragma once

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include <cstdint>

namespace tidemark::layer {

template <class Value>
using HandleMap = absl::flat_hash_map<uint64_t, Value>;
using HandleSet = absl::flat_hash_set<uint64_t>;

}  // namespace tidemark::layer
