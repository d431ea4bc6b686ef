// The host on its own thread against the host on the call path: the same calls must leave the
// same trace, gauges and queue, however the queue's batches fall.
#include "host/host_thread.h"

#include <gtest/gtest.h>

#include "host/model_host.h"

namespace tidemark::host {
namespace {

// A device's life in miniature, long enough to fill the queue many times over: stores made
// and freed (some untraced, some outside the gauges), counter samples, frames, submits whose
// fences are waited for, and the layer's samples, with model steps in between.
void drive(HostEvents& events, api::Model& model) {
  events.started({.live_stores = 1});
  int64_t claimed = 0;
  for (uint64_t i = 0; i < 5 * HostThread::kCapacity; ++i) {
    const uint64_t size = 256 + (i % 7) * 64;
    claimed += static_cast<int64_t>(size);
    events.memory_changed({.allocated = true,
                           .type = MemoryType::Unknown,
                           .id = i,
                           .size = size,
                           .claimed_bytes = claimed,
                           .counted = i % 11 != 0});
    if (i >= 3) {
      const uint64_t freed = 256 + ((i - 3) % 7) * 64;
      claimed -= static_cast<int64_t>(freed);
      events.memory_changed(
          {.allocated = false, .id = i - 3, .size = freed, .claimed_bytes = claimed, .traced = i % 13 != 0});
    }
    if (i % 97 == 0) events.sample({.live_stores = static_cast<int64_t>(i), .device_bytes = claimed});
    if (i % 1000 == 0) events.frame();
    if (i % 4099 == 0) {
      const uint64_t fence = events.queue_submitted();
      events.observed_sample({.vkbufs = static_cast<int64_t>(i), .vkbytes = claimed});
      if (!events.retired(fence)) events.wait_retired(fence, 10'000'000);
    }
    if (i % 9001 == 0) {
      ASSERT_TRUE(model.kernel_sample());
    }
  }
}

// Where a host ended: what the two ways of feeding it are compared on.
struct EndState {
  std::string trace_hash;
  KernelGauges kernel;
  ObservedGauges observed;
  std::string queue;
};

EndState end_state(HostEvents& events, api::Model& model) {
  return {model.run_trace_hash().value(), model.kernel_gauges().value(), model.observed_gauges().value(),
          events.queue_state()};
}

// Check that a host fed through its thread ends where the same host fed on the call path ends:
// the trace's bytes, every kernel and claim gauge, and the kernel queue's registers.
TEST(HostThread, EndsWhereTheHostOnTheCallPathEnds) {
  api::ModelConfig config;
  ModelHost direct(config, MutantId::None, ModelHost::Layer::Reports);
  drive(direct, direct);
  const EndState expected = end_state(direct, direct);

  HostThread threaded(std::make_unique<ModelHost>(config, MutantId::None, ModelHost::Layer::Reports));
  drive(threaded, threaded);
  const EndState got = end_state(threaded, threaded);

  EXPECT_EQ(got.trace_hash, expected.trace_hash);
  for (const auto& spec : kKernelGauges) EXPECT_EQ(got.kernel.*spec.field, expected.kernel.*spec.field) << spec.name;
  for (const auto& spec : kObservedGauges)
    EXPECT_EQ(got.observed.*spec.field, expected.observed.*spec.field) << spec.name;
  EXPECT_EQ(got.queue, expected.queue);
  // The workload moved what is compared: a run whose events were lost would not match.
  EXPECT_GT(expected.observed.claimallocspk, 3);
  EXPECT_GT(expected.kernel.kevents, static_cast<int64_t>(5 * HostThread::kCapacity));
}

// Check that events past the queue's capacity with no answer asked between them are all
// applied, none dropped: the producer applies a full queue itself.
TEST(HostThread, AFullQueueIsAppliedNotDropped) {
  HostThread threaded(std::make_unique<ModelHost>(api::ModelConfig{}, MutantId::None));
  const uint64_t count = 3 * HostThread::kCapacity + 5;
  for (uint64_t i = 0; i < count; ++i)
    threaded.memory_changed({.allocated = true, .id = i, .size = 1, .claimed_bytes = static_cast<int64_t>(i + 1)});
  const ObservedGauges g = threaded.observed_gauges().value();
  EXPECT_EQ(g.claimallocs, static_cast<int64_t>(count));
  EXPECT_EQ(g.claimbytes, static_cast<int64_t>(count));
  EXPECT_EQ(threaded.kernel_gauges().value().kbreaks, 0);
}

}  // namespace
}  // namespace tidemark::host
