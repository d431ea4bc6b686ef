// The driver's side of GPU-memory accounting: allocations and frees per process and type
// become `gpu_mem_total` events (the process's new total, then the GPU's) into the
// GpuService map, and entries of the per-type views. The backend reports its device memory
// here, so a respecify/draw workload is also a memory event sequence.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "core/mutants.h"
#include "kernel/gpu_mem.h"

namespace tidemark::kernel {

class GpuMemoryModel {
 public:
  explicit GpuMemoryModel(uint32_t map_capacity = GpuMemMap::kDefaultCapacity, MutantId mutant = MutantId::None);

  // The driver after an allocate or free of GPU-addressable memory: the tracepoint fires with
  // the pid's new total, then with the GPU's new global total (pid 0).
  void allocate(uint32_t gpu, uint32_t pid, MemoryType type, uint64_t id, uint64_t size);
  // False when `id` is not a live allocation of `pid` on `gpu`.
  bool free(uint32_t gpu, uint32_t pid, uint64_t id);
  // A tracepoint hit written by hand (a scenario's raw event).
  void emit(const GpuMemTotalEvent& event) { hit(event); }
  // Who else sees every tracepoint hit (the run's trace, as ftrace does).
  void on_tracepoint(std::function<void(const GpuMemTotalEvent&)> listener) { listener_ = std::move(listener); }

  const GpuMemMap& map() const { return map_; }
  GpuMemMap& map() { return map_; }
  const MemoryViews& views() const { return views_; }
  GpuMemReader& reader() { return reader_; }
  const GpuMemReader& reader() const { return reader_; }
  // What the driver believes a pid (0: the GPU) holds.
  uint64_t driver_total(uint32_t gpu, uint32_t pid) const;

 private:
  void report(uint32_t gpu, uint32_t pid, uint64_t old_total, uint64_t new_total);
  void hit(const GpuMemTotalEvent& event) {
    map_.on_event(event);
    if (listener_) listener_(event);
  }
  std::function<void(const GpuMemTotalEvent&)> listener_;

  MutantId mutant_;
  bool lost_a_free_ = false;  // gpumem.one_free_untraced
  GpuMemMap map_;
  MemoryViews views_;
  GpuMemReader reader_;
  // Only looked up, never walked: hashed, and flat (open addressing, no node per entry), so an
  // event costs no allocation once the tables have grown to the run's live set.
  absl::flat_hash_map<std::pair<uint32_t, uint32_t>, uint64_t> totals_;  // (gpu, pid) -> bytes; pid 0 = global
  struct LiveKey {
    uint32_t gpu, pid;
    uint64_t id;
    bool operator==(const LiveKey&) const = default;
    template <class H>
    friend H AbslHashValue(H state, const LiveKey& key) {
      return H::combine(std::move(state), key.gpu, key.pid, key.id);
    }
  };
  absl::flat_hash_map<LiveKey, std::pair<uint64_t, MemoryType>> live_;  // (gpu, pid, id) -> size, type
};

}  // namespace tidemark::kernel
