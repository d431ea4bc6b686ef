#include "runner/verbs/soak.h"

#include <gtest/gtest.h>

namespace tidemark::runner {
using report::Slope;
using report::SoakSample;

namespace {

int64_t client_rss(const SoakSample& s) { return s.client.rss_kib; }

std::vector<SoakSample> samples(size_t count, auto rss_at) {
  std::vector<SoakSample> out;
  for (size_t k = 1; k <= count; ++k) {
    SoakSample s;
    s.calls = k * 10'000;
    s.client.rss_kib = rss_at(s.calls);
    out.push_back(s);
  }
  return out;
}

// Check that a steady growth of 1 KiB per 1000 calls reads as 1000 KiB per million calls.
TEST(SoakSlope, ALinearGrowthIsItsSlopePerMillionCalls) {
  auto line = samples(50, [](uint64_t calls) { return static_cast<int64_t>(100'000 + calls / 1000); });
  Slope slope = fit_slope(line, client_rss);
  EXPECT_NEAR(slope.per_million_calls, 1000.0, 1e-6);
  EXPECT_EQ(slope.samples, 40u);  // the first 20% are warm-up
}

// Check that start-up growth is left out: a jump in the first fifth, then flat, is flat.
TEST(SoakSlope, GrowthDuringWarmUpIsNotATrend) {
  auto warm = samples(50, [](uint64_t calls) { return static_cast<int64_t>(calls < 100'000 ? calls : 200'000); });
  EXPECT_EQ(fit_slope(warm, client_rss).per_million_calls, 0.0);
}

// Check that too few samples give no slope rather than a division by zero.
TEST(SoakSlope, OneSampleAfterWarmUpHasNoSlope) {
  auto one = samples(1, [](uint64_t) { return int64_t{5}; });
  EXPECT_EQ(fit_slope(one, client_rss).per_million_calls, 0.0);
  EXPECT_EQ(fit_slope({}, client_rss).samples, 0u);
}

}  // namespace
}  // namespace tidemark::runner
