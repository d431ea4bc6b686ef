#include "kernel/driver.h"

#include "core/limits.h"

#include <gtest/gtest.h>

namespace tidemark::kernel {
namespace {

// Check that a devfreq status read is time passing: both queues' clocks move on by its total
// time, as a kmd_advance of as much would, and the load it leaves is readable without a reset.
TEST(KernelDriver, AKgslSampleMovesBothQueuesOnByItsTotalTime) {
  KernelDriver driver(KmdConfig{}, KgslConfig{}, MutantId::None);
  const uint64_t scene = driver.queue(Queue::Scene).now(), backend = driver.queue(Queue::Backend).now();
  ASSERT_TRUE(
      driver.apply(KgslSampleOp{.busy_us = 250'000, .total_us = 1'000'000, .freq_hz = KgslConfig{}.freq_table_hz[0]}));
  EXPECT_EQ(driver.queue(Queue::Scene).now(), scene + 1'000'000'000);
  EXPECT_EQ(driver.queue(Queue::Backend).now(), backend + 1'000'000'000);
  EXPECT_EQ(driver.kgsl().load_percent(), 25);
  EXPECT_EQ(driver.kgsl().load_percent(), 25);
}

// Check that unread kgsl_gpubusy events are bounded: the sample that keeps one more than
// kMaxKeptRecords is an error naming the bound, and a trace_pipe read makes room again.
TEST(KernelDriver, UnreadKgslEventsAreBoundedAndATracePipeReadFreesThem) {
  KernelDriver driver({}, {}, MutantId::None);
  const KgslSampleOp closing{.busy_us = 1, .total_us = 1'000'000, .freq_hz = KgslConfig{}.freq_table_hz[0]};
  for (size_t i = 0; i < kMaxKeptRecords; ++i) ASSERT_TRUE(driver.apply(closing)) << "sample " << i;
  auto over = driver.apply(closing);
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().kind, ErrorKind::BadInput);
  EXPECT_NE(over.error().message.find("found 100001"), std::string::npos) << over.error().message;

  KernelDriver read_in_time({}, {}, MutantId::None);
  for (size_t i = 0; i <= kMaxKeptRecords; ++i) {
    ASSERT_TRUE(read_in_time.apply(closing));
    if (i % 1000 == 0) {
      ASSERT_TRUE(read_in_time.apply(KgslReadOp{.node = KgslNode::TracePipe, .name = "pipe"}));
    }
  }
}

}  // namespace
}  // namespace tidemark::kernel
