#include "kernel/gpu_memory.h"

#include <utility>

namespace tidemark::kernel {

GpuMemoryModel::GpuMemoryModel(uint32_t map_capacity, MutantId mutant)
    : mutant_(mutant), map_(map_capacity, mutant), reader_(mutant) {
  reader_.initialise({});
}

uint64_t GpuMemoryModel::driver_total(uint32_t gpu, uint32_t pid) const {
  auto it = totals_.find({gpu, pid});
  return it == totals_.end() ? 0 : it->second;
}

void GpuMemoryModel::report(uint32_t gpu, uint32_t pid, uint64_t old_total, uint64_t new_total) {
  // The ABI says new total; the mutant sends the change, as a driver mixing up the two would.
  uint64_t size = new_total;
  if (mutant_is(mutant_, MutantId::GpuMemDeltaEvents))
    size = new_total > old_total ? new_total - old_total : old_total - new_total;
  hit({gpu, pid, size});
}

void GpuMemoryModel::allocate(uint32_t gpu, uint32_t pid, MemoryType type, uint64_t id, uint64_t size) {
  live_[{gpu, pid, id}] = {size, type};
  views_.allocate(pid, type, id, size);
  for (uint32_t who : {pid, uint32_t{0}}) {
    uint64_t& total = totals_[{gpu, who}];
    uint64_t old_total = total;
    total += size;
    report(gpu, who, old_total, total);
  }
}

bool GpuMemoryModel::free(uint32_t gpu, uint32_t pid, uint64_t id) {
  auto it = live_.find({gpu, pid, id});
  if (it == live_.end()) return false;
  auto [size, type] = it->second;
  live_.erase(it);
  bool untraced = (type == MemoryType::Transient && mutant_is(mutant_, MutantId::GpuMemTransientFreeUntraced)) ||
                  (type == MemoryType::GlBuffer && mutant_is(mutant_, MutantId::GpuMemOneFreeUntraced) &&
                   !std::exchange(lost_a_free_, true));
  views_.free(pid, id);
  for (uint32_t who : {pid, uint32_t{0}}) {
    uint64_t& total = totals_[{gpu, who}];
    uint64_t old_total = total;
    total -= size;
    if (!untraced) report(gpu, who, old_total, total);
  }
  return true;
}

}  // namespace tidemark::kernel
