// The kernel gauges' two fillers against the catalogue's half column: KernelDriver::fill writes
// exactly the driver half, and host::ModelHost::kernel_gauges() adds the memory half. (A test
// of the host beside the kernel's own, since the host has no test target of its own.)
#include "core/gauges.h"

#include <gtest/gtest.h>

#include "host/model_host.h"
#include "kernel/driver.h"

namespace tidemark::kernel {
namespace {

constexpr int64_t kUnwritten = INT64_MIN + 0x5eed;  // no filler writes this: counters are >= 0

KernelGauges unwritten() {
  KernelGauges g;
  for (const auto& spec : kKernelGauges) g.*spec.field = kUnwritten;
  return g;
}

// Check that the driver writes every gauge of its half and none of the memory half's.
TEST(KernelGaugeHalves, TheDriverFillsExactlyItsHalf) {
  KernelGauges g = unwritten();
  KernelDriver({}, {}, MutantId::None).fill(g);
  for (const auto& spec : kKernelGauges) {
    if (spec.half == KernelHalf::Driver)
      EXPECT_NE(g.*spec.field, kUnwritten) << spec.name << ": not filled";
    else
      EXPECT_EQ(g.*spec.field, kUnwritten) << spec.name << ": the memory half's, written by the driver";
  }
}

// Drives the host's memory half until every memory gauge is non-zero: a walk that reads one
// entry after an update and loses the next to a delete, the scenario pid's allocation, an
// attach, two samples, a map overflowing its capacity and a device change whose claim is wrong.
void drive_the_memory_half(host::ModelHost& host, const api::ModelConfig& config) {
  for (uint32_t pid = 1; pid <= 3; ++pid) ASSERT_TRUE(host.kernel_event({0, pid, 100}));
  api::WalkUpdates updates;
  for (uint32_t pid = 1; pid <= 3; ++pid) {
    updates.push_back({1, {0, pid, 200}});  // before the second entry's read: read from a later moment
    updates.push_back({4, {0, pid, 0}});    // between the third entry's key and its value: the walk ends
  }
  ASSERT_TRUE(host.kernel_walk(updates));
  ASSERT_TRUE(host.kernel_allocate(config.kernel_gpu, config.kernel_pid, MemoryType::Unknown, 1, 4096));
  ASSERT_TRUE(host.kernel_attach({.failures = 0}));
  ASSERT_TRUE(host.kernel_sample());
  ASSERT_TRUE(host.kernel_sample());
  for (uint32_t pid = 2'000; pid < 2'000 + GpuMemMap::kDefaultCapacity; ++pid)
    ASSERT_TRUE(host.kernel_event({1, pid, 1}));
  host.memory_changed({.allocated = true, .id = 7, .size = 100, .claimed_bytes = 1});
}

// Check that after a workload that moves every memory gauge, the host's gauges have every
// memory gauge non-zero and every driver gauge as the driver alone fills it.
TEST(KernelGaugeHalves, TheHostFillsTheMemoryHalfAndTheDriverTheRest) {
  api::ModelConfig config;
  host::ModelHost host(config, MutantId::None);
  drive_the_memory_half(host, config);
  KernelGauges g = host.kernel_gauges().value();
  KernelGauges driver = unwritten();
  KernelDriver(config.kmd, config.kgsl, MutantId::None).fill(driver);
  for (const auto& spec : kKernelGauges) {
    if (spec.half == KernelHalf::Memory)
      EXPECT_NE(g.*spec.field, 0) << spec.name << ": not filled, or the workload misses it";
    else
      EXPECT_EQ(g.*spec.field, driver.*spec.field) << spec.name;
  }
  EXPECT_EQ(g.kwalked, 2);
  EXPECT_EQ(g.kwalkmixed, 1);
  EXPECT_EQ(g.kwalkcut, 1);
  EXPECT_EQ(g.kstable, 2);
}

}  // namespace
}  // namespace tidemark::kernel
