#include "kernel/gpu_memory.h"

#include <gtest/gtest.h>

namespace tidemark::kernel {
namespace {

// Check that allocations and frees become the pid's and the GPU's new totals in the map, and
// entries in the per-type views, with all three agreeing after every change.
TEST(GpuMemoryModel, TheMapTheViewsAndTheDriverAgreeAfterEveryChange) {
  GpuMemoryModel model;
  model.allocate(0, 42, MemoryType::GlBuffer, 1, 4096);
  model.allocate(0, 42, MemoryType::Transient, 2, 512);
  model.allocate(0, 7, MemoryType::GlBuffer, 3, 100);
  EXPECT_EQ(model.map().lookup(map_key(0, 42)), 4608u);
  EXPECT_EQ(model.map().lookup(map_key(0, 0)), 4708u);
  EXPECT_EQ(model.views().total(42), 4608u);
  EXPECT_EQ(model.views().node(42, MemoryType::Transient), "512");
  EXPECT_TRUE(model.free(0, 42, 2));
  EXPECT_FALSE(model.free(0, 42, 2));
  EXPECT_EQ(model.map().lookup(map_key(0, 42)), 4096u);
  EXPECT_EQ(model.driver_total(0, 42), 4096u);
  EXPECT_TRUE(model.free(0, 42, 1));
  EXPECT_FALSE(model.map().lookup(map_key(0, 42))) << "a pid back at zero leaves the map";
  EXPECT_EQ(model.map().lookup(map_key(0, 0)), 100u);
  EXPECT_EQ(model.map().counters().events, 10u);  // two events per change
}

}  // namespace
}  // namespace tidemark::kernel
