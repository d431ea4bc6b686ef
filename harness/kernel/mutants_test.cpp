// The kernel model's mutants break what they name (built only where mutants are compiled in).
#include <gtest/gtest.h>

#include "kernel/gpu_mem.h"
#include "kernel/gpu_memory.h"

namespace tidemark::kernel {
namespace {

GpuMemTotalEvent total_event(uint32_t gpu, uint32_t pid, uint64_t size) { return {gpu, pid, size}; }

// Check the mutants: size 0 that keeps its entry, and a global entry not counted.
TEST(GpuMemMap, MutantsBreakWhatTheyName) {
  GpuMemMap keeps(4, MutantId::GpuMemZeroKeepsEntry);
  keeps.on_event(total_event(0, 1, 10));
  keeps.on_event(total_event(0, 1, 0));
  EXPECT_EQ(keeps.lookup(map_key(0, 1)), 0u);

  GpuMemMap uncounted(4, MutantId::GpuMemGlobalNotCounted);
  for (uint32_t pid = 0; pid < 5; ++pid) uncounted.on_event(total_event(0, pid, 1));
  EXPECT_EQ(uncounted.size(), 5u);  // the real map holds 4, the global entry among them
  EXPECT_EQ(uncounted.counters().dropped, 0u);
}

// Check that the delta mutant breaks the ABI's "new total" the way a driver bug would.
TEST(GpuMemoryModel, TheDeltaMutantReportsChangesNotTotals) {
  GpuMemoryModel model(GpuMemMap::kDefaultCapacity, MutantId::GpuMemDeltaEvents);
  model.allocate(0, 42, MemoryType::GlBuffer, 1, 4096);
  model.allocate(0, 42, MemoryType::GlBuffer, 2, 4096);
  EXPECT_EQ(model.map().lookup(map_key(0, 42)), 4096u);  // the real total is 8192
  EXPECT_EQ(model.driver_total(0, 42), 8192u);
}

}  // namespace
}  // namespace tidemark::kernel
