#include "kernel/driver.h"

#include <gtest/gtest.h>

namespace tidemark::kernel {
namespace {

// Check that a devfreq status read is time passing: both queues' clocks move on by its total
// time, as a kmd_advance of as much would, and the load it leaves is readable without a reset.
TEST(KernelDriver, AKgslSampleMovesBothQueuesOnByItsTotalTime) {
  KernelDriver driver(KmdConfig{}, KgslConfig{}, MutantId::None);
  const uint64_t scene = driver.queue(Queue::Scene).now(), backend = driver.queue(Queue::Backend).now();
  ASSERT_TRUE(driver.apply(KgslSampleOp{.busy_us = 250'000, .total_us = 1'000'000, .freq_hz = KgslConfig{}.freq_table_hz[0]}));
  EXPECT_EQ(driver.queue(Queue::Scene).now(), scene + 1'000'000'000);
  EXPECT_EQ(driver.queue(Queue::Backend).now(), backend + 1'000'000'000);
  EXPECT_EQ(driver.kgsl().load_percent(), 25);
  EXPECT_EQ(driver.kgsl().load_percent(), 25);
}

}  // namespace
}  // namespace tidemark::kernel
