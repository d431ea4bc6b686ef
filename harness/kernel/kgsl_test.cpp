#include "kernel/kgsl.h"

#include <gtest/gtest.h>

namespace tidemark::kernel {
namespace {

using Lines = std::vector<std::string>;

// The default table's maximum: a sample at it is counted unscaled by the governor.
const uint64_t kMaxHz = KgslConfig{}.freq_table_hz.front();

KgslConfig two_level_table() {
  KgslConfig config;
  config.freq_table_hz = {800'000'000, 400'000'000};
  return config;
}

// Check seed 002's example: one window of 1 012 709 us (>= 1 000 000) moves the sums at once,
// emits one event in the source's d_name= format, and gpubusy pads busy to 7 columns.
TEST(KgslGpubusy, TheSeedsSampleEmitsOneEventAndReadsBack) {
  KgslBusyStats stats;
  stats.sample(68997, 1012709, kMaxHz);
  EXPECT_EQ(stats.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d0 busy=68997 elapsed=1012709"});
  EXPECT_EQ(stats.take_trace(), Lines{});  // consumed, like trace_pipe
  // 68997 has 5 digits: 2 spaces of padding; 1012709 has 7: none.
  EXPECT_EQ(stats.read_gpubusy(), "  68997 1012709\n");
  EXPECT_EQ(stats.samples(), 1);
  EXPECT_EQ(stats.events(), 1);
}

// Check that windows below update_busy_us only accumulate, and that the sample that takes the
// sum to it moves the summed busy and total, then starts a fresh window.
TEST(KgslGpubusy, SamplesAccumulateUntilTheUpdateValueIsReached) {
  KgslBusyStats stats;
  stats.sample(100, 400000, kMaxHz);
  stats.sample(100, 400000, kMaxHz);  // total 800 000 < 1 000 000
  EXPECT_EQ(stats.take_trace(), Lines{});
  EXPECT_EQ(stats.read_gpubusy(), "      0       0\n");
  stats.sample(300, 400000, kMaxHz);  // total 1 200 000, busy 100 + 100 + 300 = 500
  EXPECT_EQ(stats.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d0 busy=500 elapsed=1200000"});
  EXPECT_EQ(stats.read_gpubusy(), "    500 1200000\n");
  stats.sample(7, 10, kMaxHz);  // the accumulators restarted from 0: 10 < 1 000 000
  EXPECT_EQ(stats.take_trace(), Lines{});
  EXPECT_EQ(stats.read_gpubusy(), "    500 1200000\n");
  EXPECT_EQ(stats.samples(), 4);
  EXPECT_EQ(stats.events(), 1);
}

// Check that the seed's 1 ms UPDATE_BUSY_VAL makes events fire on windows the source's 1 s
// value still accumulates, and that the device name is the configured one.
TEST(KgslGpubusy, AOneMillisecondUpdateValueFiresSooner) {
  KgslConfig seed;
  seed.update_busy_us = 1000;
  seed.device_name = "kgsl-3d1";
  KgslBusyStats fast(seed);
  KgslBusyStats slow;
  for (auto* stats : {&fast, &slow}) {
    stats->sample(400, 600, kMaxHz);
    stats->sample(300, 500, kMaxHz);  // total 1100: >= 1000, < 1 000 000
  }
  EXPECT_EQ(fast.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d1 busy=700 elapsed=1100"});
  EXPECT_EQ(fast.read_gpubusy(), "    700    1100\n");
  EXPECT_EQ(slow.take_trace(), Lines{});
  EXPECT_EQ(slow.read_gpubusy(), "      0       0\n");
}

// Check that a read keeps busy_old/total_old while the AXI power flag is on and clears them
// once it is off.
TEST(KgslGpubusy, AReadClearsOnlyWithAxiPowerOff) {
  KgslBusyStats stats;
  EXPECT_TRUE(stats.axi_power());
  stats.sample(68997, 1012709, kMaxHz);
  EXPECT_EQ(stats.read_gpubusy(), "  68997 1012709\n");
  EXPECT_EQ(stats.read_gpubusy(), "  68997 1012709\n");
  stats.set_axi_power(false);
  EXPECT_FALSE(stats.axi_power());
  EXPECT_EQ(stats.read_gpubusy(), "  68997 1012709\n");
  EXPECT_EQ(stats.read_gpubusy(), "      0       0\n");
  stats.set_axi_power(true);
  stats.sample(1, 1000000, kMaxHz);  // exactly 1 000 000: the comparison is `total < VAL`
  EXPECT_EQ(stats.read_gpubusy(), "      1 1000000\n");
  EXPECT_EQ(stats.read_gpubusy(), "      1 1000000\n");
}

// Check that the 32-bit clock stats print as the kernel does: elapsed above INT_MAX is negative
// in the event, busy prints unsigned there and signed in the node.
TEST(KgslGpubusy, ValuesAboveIntMaxPrintLikeTheKernel) {
  KgslBusyStats stats;
  stats.sample(5, 2147483648u, kMaxHz);  // 2^31 as %d: -2147483648
  EXPECT_EQ(stats.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d0 busy=5 elapsed=-2147483648"});
  EXPECT_EQ(stats.read_gpubusy(), "      5 -2147483648\n");
  stats.sample(3000000000u, 3000000000u, kMaxHz);  // 3e9 - 2^32 = -1294967296 as %d
  EXPECT_EQ(stats.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d0 busy=3000000000 elapsed=-1294967296"});
  EXPECT_EQ(stats.read_gpubusy(), "-1294967296 -1294967296\n");
}

// Check that a 64-bit window lands in the unsigned int sums mod 2^32: 2^32 + 5 us adds 5, so
// it fires nothing and the next 999 995 us completes the window.
TEST(KgslGpubusy, TimesWrapAtThirtyTwoBits) {
  KgslBusyStats stats;
  stats.sample(1, (uint64_t{1} << 32) + 5, kMaxHz);
  EXPECT_EQ(stats.take_trace(), Lines{});
  stats.sample(0, 999995, kMaxHz);  // 5 + 999 995 = 1 000 000
  EXPECT_EQ(stats.take_trace(), Lines{"kgsl_gpubusy: d_name=kgsl-3d0 busy=1 elapsed=1000000"});
}

// Check that gpu_load is the load since the previous read: each read resets, and a read with
// nothing sampled is 0.
TEST(KgslGpuLoad, EachReadShowsOnlyTheLoadSinceThePreviousOne) {
  KgslBusyStats stats;
  EXPECT_EQ(stats.read_gpu_load(), "0\n");
  stats.sample(30, 100, kMaxHz);  // 30 * max / max = 30; 30 * 100 / 100 = 30
  EXPECT_EQ(stats.read_gpu_load(), "30\n");
  stats.sample(10, 100, kMaxHz);  // only this one: 10 * 100 / 100 = 10, not 40 * 100 / 200 = 20
  EXPECT_EQ(stats.read_gpu_load(), "10\n");
  EXPECT_EQ(stats.read_gpu_load(), "0\n");
}

// Check that the load the trace samples is what a read would print, and that taking it leaves
// the accumulators alone (the trace must not reset what a later read shows).
TEST(KgslGpuLoad, PeekingTheLoadDoesNotResetIt) {
  KgslBusyStats stats;
  EXPECT_EQ(stats.load_percent(), 0);
  stats.sample(30, 100, kMaxHz);
  EXPECT_EQ(stats.load_percent(), 30);
  stats.sample(10, 100, kMaxHz);
  EXPECT_EQ(stats.load_percent(), 20);  // (30 + 10) * 100 / 200
  EXPECT_EQ(stats.read_gpu_load(), "20\n");
  EXPECT_EQ(stats.load_percent(), 0);
}

// Check that busy time is scaled by current / maximum frequency, with integer truncation.
TEST(KgslGpuLoad, BusyIsScaledToTheMaximumFrequency) {
  KgslBusyStats half(two_level_table());
  half.sample(50, 100, 400'000'000);  // 50 * 400 MHz / 800 MHz = 25; 25 * 100 / 100 = 25
  EXPECT_EQ(half.read_gpu_load(), "25\n");

  KgslBusyStats low;
  low.sample(50, 100, 257'000'000);  // 50 * 257 / 585 = 21.96 -> 21; 21 * 100 / 100 = 21
  EXPECT_EQ(low.read_gpu_load(), "21\n");

  KgslBusyStats mixed(two_level_table());
  mixed.sample(50, 100, 800'000'000);  // 50
  mixed.sample(50, 100, 400'000'000);  // 25: (50 + 25) * 100 / 200 = 37.5 -> 37
  EXPECT_EQ(mixed.read_gpu_load(), "37\n");
}

// Check the overflow guard: a time of 2^24 us or more shifts both right by 7 before they are
// accumulated, which truncates a single sample's load and reweights it against a small one.
TEST(KgslGpuLoad, TimesFromTwoToTheTwentyFourAreShiftedBeforeAccumulating) {
  KgslBusyStats truncated;
  // Unshifted 167773 * 100 / 16777216 = 1.00001 -> 1. Shifted: 167773 >> 7 = 1310,
  // 2^24 >> 7 = 131072, 1310 * 100 / 131072 = 0.999 -> 0.
  truncated.sample(167773, uint64_t{1} << 24, kMaxHz);
  EXPECT_EQ(truncated.read_gpu_load(), "0\n");
  // The clock stats take the raw times: gpubusy is not shifted.
  EXPECT_EQ(truncated.read_gpubusy(), " 167773 16777216\n");

  KgslBusyStats weighted;
  weighted.sample(uint64_t{1} << 24, uint64_t{1} << 24, kMaxHz);  // shifted: 131072 of 131072
  weighted.sample(0, 131072, kMaxHz);                             // below 2^24: as is
  // 131072 * 100 / (131072 + 131072) = 50 (unshifted it would be 1677721600 / 16908288 = 99).
  EXPECT_EQ(weighted.read_gpu_load(), "50\n");

  KgslBusyStats just_below;
  just_below.sample(167772, (uint64_t{1} << 24) - 1, kMaxHz);  // 16777200 / 16777215 = 0.999 -> 0
  just_below.sample(1, 1, kMaxHz);  // (167772 + 1) * 100 / 16777216 = 1.00001 -> 1: nothing shifted
  EXPECT_EQ(just_below.read_gpu_load(), "1\n");
}

// Check the documented bad-table behaviour: an empty table or a zero maximum counts busy
// unscaled (as if every sample ran at the maximum) instead of dividing by zero, and a zero
// sample frequency with a good table counts no busy time.
TEST(KgslGpuLoad, ABadTableCountsBusyUnscaledAndNeverDividesByZero) {
  KgslConfig empty;
  empty.freq_table_hz = {};
  KgslConfig zero;
  zero.freq_table_hz = {0, 400'000'000};
  for (const auto& config : {empty, zero}) {
    KgslBusyStats stats(config);
    stats.sample(50, 100, 400'000'000);  // 50 * 100 / 100
    EXPECT_EQ(stats.read_gpu_load(), "50\n");
  }
  KgslBusyStats stopped;
  stopped.sample(50, 100, 0);  // 50 * 0 / max = 0
  EXPECT_EQ(stopped.read_gpu_load(), "0\n");
}

}  // namespace
}  // namespace tidemark::kernel
