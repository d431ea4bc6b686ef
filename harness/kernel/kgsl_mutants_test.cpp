// The kgsl model's mutants change the text a reader sees (built only where mutants are compiled in).
#include <gtest/gtest.h>

#include "kernel/kgsl.h"

namespace tidemark::kernel {
namespace {

const uint64_t kTopHz = KgslConfig{}.freq_table_hz.front();

// Check that a gpu_load read that keeps its accumulators reports the load since the start,
// not since the previous read.
TEST(KgslMutants, LoadReadKeepsShowsTheLoadSinceTheStart) {
  KgslBusyStats stats({}, MutantId::KgslLoadReadKeeps);
  stats.sample(30, 100, kTopHz);
  EXPECT_EQ(stats.read_gpu_load(), "30\n");
  stats.sample(10, 100, kTopHz);
  EXPECT_EQ(stats.read_gpu_load(), "20\n");  // (30 + 10) * 100 / 200; the real node reads 10
}

// Check that a gpubusy read that always resets loses the window while the GPU is powered.
TEST(KgslMutants, GpubusyAlwaysResetsClearsWithPowerOn) {
  KgslBusyStats stats({}, MutantId::KgslGpubusyAlwaysResets);
  ASSERT_TRUE(stats.axi_power());
  stats.sample(68997, 1012709, kTopHz);
  EXPECT_EQ(stats.read_gpubusy(), "  68997 1012709\n");
  EXPECT_EQ(stats.read_gpubusy(), "      0       0\n");  // the real node repeats the window
}

// Check that without the overflow shift a long sample keeps its full weight against a short one.
TEST(KgslMutants, NoOverflowShiftWeighsLongSamplesInFull) {
  KgslBusyStats stats({}, MutantId::KgslNoOverflowShift);
  stats.sample(uint64_t{1} << 24, uint64_t{1} << 24, kTopHz);
  stats.sample(0, 131072, kTopHz);
  // 16777216 * 100 / (16777216 + 131072) = 1677721600 / 16908288 = 99.2 -> 99; the real one reads 50.
  EXPECT_EQ(stats.read_gpu_load(), "99\n");
  stats.sample(167773, uint64_t{1} << 24, kTopHz);
  EXPECT_EQ(stats.read_gpu_load(), "1\n");  // 16777300 / 16777216 -> 1; shifted it truncates to 0
}

// Check that unscaled busy time reads a low clock's load as if it were the maximum's.
TEST(KgslMutants, LoadUnscaledReadsALowClockTooHigh) {
  KgslConfig config;
  config.freq_table_hz = {800'000'000, 400'000'000};
  KgslBusyStats stats(config, MutantId::KgslLoadUnscaled);
  stats.sample(50, 100, 400'000'000);
  EXPECT_EQ(stats.read_gpu_load(), "50\n");  // 50 * 100 / 100; scaled it is 25
}

}  // namespace
}  // namespace tidemark::kernel
