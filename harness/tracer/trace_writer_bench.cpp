// Counter samples into a trace per second on one core (goal: >= 20 M samples/s), and the same
// packets built and serialized with libprotobuf for comparison.
// Run: <build>/harness/tracer/tracer_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "protos/trace.pb.h"
#include "tracer/trace_writer.h"

namespace tidemark::tracer {
namespace {

constexpr size_t kStream = 1 << 12;      // samples in the pre-built stream (a power of two)
constexpr size_t kFlushBytes = 1 << 20;  // the writer's buffer is handed over (and dropped) at 1 MiB

// A realistic stream: counter ids 1..8, values moving up and down over 1..4 varint bytes.
std::vector<CounterSample> make_stream(bool doubles) {
  std::vector<CounterSample> stream;
  uint64_t x = 12345;
  for (size_t i = 0; i < kStream; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    auto id = static_cast<uint32_t>(1 + i % 8);
    auto value = static_cast<int64_t>((x >> 36) >> ((x >> 8) % 24));
    if (doubles)
      stream.push_back({id, static_cast<double>(value) * 0.125});
    else
      stream.push_back({id, value});
  }
  return stream;
}

// `per_packet` samples in each counter_samples packet, 1 µs apart, sequence 1, gpu 0.
void run_writer(benchmark::State& state, size_t per_packet, bool doubles) {
  auto stream = make_stream(doubles);
  TraceWriter writer;
  size_t at = 0;
  uint64_t ts = 1'000'000'000;
  uint64_t bytes = 0;
  for (auto _ : state) {
    writer.counter_samples(1, ts, 0, std::nullopt, {stream.data() + at, per_packet});
    at = (at + per_packet) & (kStream - 1);
    ts += 1000;
    if (writer.bytes().size() >= kFlushBytes) {
      bytes += writer.bytes().size();
      std::string flushed = writer.take();
      benchmark::DoNotOptimize(flushed.data());
      writer = TraceWriter{};
    }
  }
  bytes += writer.bytes().size();
  auto samples = static_cast<double>(state.iterations() * per_packet);
  state.SetItemsProcessed(static_cast<int64_t>(samples));
  state.counters["bytes_per_sample"] = static_cast<double>(bytes) / samples;
}

void BM_WriterOneIntSamplePerPacket(benchmark::State& state) { run_writer(state, 1, false); }
void BM_WriterEightIntSamplesPerPacket(benchmark::State& state) { run_writer(state, 8, false); }
void BM_WriterEightDoubleSamplesPerPacket(benchmark::State& state) { run_writer(state, 8, true); }
void BM_WriterOneDoubleSamplePerPacket(benchmark::State& state) { run_writer(state, 1, true); }
BENCHMARK(BM_WriterOneIntSamplePerPacket);
BENCHMARK(BM_WriterEightIntSamplesPerPacket);
BENCHMARK(BM_WriterOneDoubleSamplePerPacket);
BENCHMARK(BM_WriterEightDoubleSamplesPerPacket);

// The same packets through libprotobuf: build a TracePacket (reused, as a careful producer
// would), then serialize it as one `packet` field of the Trace onto the output.
void run_libprotobuf(benchmark::State& state, size_t per_packet, bool doubles) {
  auto stream = make_stream(doubles);
  testproto::Trace trace;
  std::string out;
  size_t at = 0;
  uint64_t ts = 1'000'000'000;
  uint64_t bytes = 0;
  for (auto _ : state) {
    trace.Clear();
    auto* packet = trace.add_packet();
    packet->set_timestamp(ts);
    packet->set_trusted_packet_sequence_id(1);
    auto* event = packet->mutable_gpu_counter_event();
    for (size_t i = 0; i < per_packet; ++i) {
      const auto& sample = stream[at + i];
      auto* counter = event->add_counters();
      counter->set_counter_id(sample.counter_id);
      if (const auto* value = std::get_if<int64_t>(&sample.value))
        counter->set_int_value(*value);
      else
        counter->set_double_value(std::get<double>(sample.value));
    }
    event->set_gpu_id(0);
    trace.AppendToString(&out);
    at = (at + per_packet) & (kStream - 1);
    ts += 1000;
    if (out.size() >= kFlushBytes) {
      bytes += out.size();
      benchmark::DoNotOptimize(out.data());
      out = std::string{};  // dropped like the writer's: both regrow their buffers
    }
  }
  bytes += out.size();
  auto samples = static_cast<double>(state.iterations() * per_packet);
  state.SetItemsProcessed(static_cast<int64_t>(samples));
  state.counters["bytes_per_sample"] = static_cast<double>(bytes) / samples;
}

void BM_LibprotobufOneIntSamplePerPacket(benchmark::State& state) { run_libprotobuf(state, 1, false); }
void BM_LibprotobufEightIntSamplesPerPacket(benchmark::State& state) { run_libprotobuf(state, 8, false); }
void BM_LibprotobufOneDoubleSamplePerPacket(benchmark::State& state) { run_libprotobuf(state, 1, true); }
void BM_LibprotobufEightDoubleSamplesPerPacket(benchmark::State& state) { run_libprotobuf(state, 8, true); }
BENCHMARK(BM_LibprotobufOneIntSamplePerPacket);
BENCHMARK(BM_LibprotobufEightIntSamplesPerPacket);
BENCHMARK(BM_LibprotobufOneDoubleSamplePerPacket);
BENCHMARK(BM_LibprotobufEightDoubleSamplesPerPacket);

}  // namespace
}  // namespace tidemark::tracer

BENCHMARK_MAIN();
