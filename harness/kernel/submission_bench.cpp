// Submits through the kernel driver model per second: the cost every backend queue submit now
// pays, and what a scene of thousands of tiny submits costs to simulate.
// Run: build/default/harness/kernel/kernel_bench --benchmark_filter=Submission
#include <benchmark/benchmark.h>

#include "kernel/submission.h"

namespace tidemark::kernel {
namespace {

// The backend's pattern: one packet, then a wait until the driver has seen its fence.
void BM_SubmissionSubmitAndWait(benchmark::State& state) {
  SubmissionModel model;
  uint64_t fence = 0;
  for (auto _ : state) {
    fence = model.submit_backend().value_or(fence);
    benchmark::DoNotOptimize(model.wait(fence, 1'000'000'000));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SubmissionSubmitAndWait);

// Scene D's pattern: tiny submits back to back, the ring filling and the submitter waiting.
void BM_SubmissionTinySubmitsIntoASmallRing(benchmark::State& state) {
  KmdConfig config;
  config.ring_dwords = 256;
  config.submit_cpu_ns = 0;
  SubmissionModel model(config);
  std::vector<Command> commands = {{CommandKind::Draw, 1'000, 0}};
  for (auto _ : state) benchmark::DoNotOptimize(model.submit(commands));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SubmissionTinySubmitsIntoASmallRing);

}  // namespace
}  // namespace tidemark::kernel
