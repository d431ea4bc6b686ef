// Tracepoint events into the GpuService map per second (goal: 20 M/s on one core).
// Run: build/default/harness/kernel/kernel_bench
#include <benchmark/benchmark.h>

#include "kernel/gpu_mem.h"

namespace tidemark::kernel {
namespace {

// A realistic stream: 1 000 pids on 2 GPUs and their globals, totals moving up and down, now
// and then a pid dropping to zero (a delete) and coming back (an insert).
void BM_GpuMemEventsIntoTheMap(benchmark::State& state) {
  std::vector<GpuMemTotalEvent> stream;
  uint64_t x = 12345;
  for (int i = 0; i < 1 << 16; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    auto pid = static_cast<uint32_t>((x >> 33) % 1001);
    uint64_t size = (x >> 20) % 97 == 0 ? 0 : ((x >> 12) & 0xfffff) * 4096;
    stream.push_back({static_cast<uint32_t>((x >> 60) & 1), pid, size});
  }
  GpuMemMap map;
  size_t at = 0;
  for (auto _ : state) {
    map.on_event(stream[at]);
    at = (at + 1) & (stream.size() - 1);
  }
  benchmark::DoNotOptimize(map.size());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_GpuMemEventsIntoTheMap);

}  // namespace
}  // namespace tidemark::kernel

BENCHMARK_MAIN();
