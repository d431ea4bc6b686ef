// The run trace's spill: a trace whose bytes went to a file a block at a time must be, byte for
// byte, the trace kept in memory, and its running hash the hash of those bytes.
#include "tracer/run_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/digest.h"
#include "core/testing/scratch.h"

namespace tidemark::tracer {
namespace {

CounterDescriptor one_counter() {
  CounterSpec spec;
  spec.counter_id = 1;
  spec.name = "Live stores";
  CounterDescriptor descriptor;
  descriptor.specs = {spec};
  return descriptor;
}

// Many spill blocks' worth of tracepoint events and samples, the hash asked for on the way.
std::vector<std::string> write_a_long_run(RunTrace& trace) {
  std::vector<std::string> hashes;
  uint64_t ts = 10;
  for (uint64_t i = 0; i < 60'000; ++i) {
    trace.memory_change(ts++, 1000, 0, 1000, 4096 * (i % 50));
    if (i % 100 == 0) {
      const CounterSample sample[] = {{1, static_cast<int64_t>(i)}};
      trace.sample(ts++, sample);
    }
    if (i % 20'000 == 0) hashes.push_back(trace.hash());
  }
  hashes.push_back(trace.hash());
  return hashes;
}

// Check that a trace spilled to a file comes back as the same bytes the in-memory trace holds,
// with the same running hashes, each the hash of the bytes written until then.
TEST(RunTrace, ASpilledTraceIsTheTraceKeptInMemory) {
  RunTrace spilled(one_counter(), 1, RunTrace::Spill::ToFile);
  RunTrace kept(one_counter(), 1, RunTrace::Spill::Off);
  const auto spilled_hashes = write_a_long_run(spilled);
  const auto kept_hashes = write_a_long_run(kept);
  EXPECT_EQ(spilled_hashes, kept_hashes);

  const std::string whole = std::string(spilled.bytes().value());
  ASSERT_GT(whole.size(), 4 * RunTrace::kSpillBytes);  // it did spill, several times
  EXPECT_EQ(whole, std::string(kept.bytes().value()));
  EXPECT_EQ(trace_hash(whole), spilled_hashes.back());
}

// Check that writing goes on after the bytes were asked for: the trace stays whole in memory,
// and its hash follows.
TEST(RunTrace, WritingAfterTheBytesWereReadKeepsTheTraceWhole) {
  RunTrace spilled(one_counter(), 1, RunTrace::Spill::ToFile);
  RunTrace kept(one_counter(), 1, RunTrace::Spill::Off);
  write_a_long_run(spilled);
  write_a_long_run(kept);
  (void)spilled.bytes();
  for (RunTrace* trace : {&spilled, &kept}) {
    for (uint64_t i = 0; i < 5'000; ++i) trace->memory_change(1'000'000 + i, 1000, 0, 1000, i);
  }
  EXPECT_EQ(spilled.hash(), kept.hash());
  EXPECT_EQ(std::string(spilled.bytes().value()), std::string(kept.bytes().value()));
}

std::string file_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

// Check that a spilled trace saved to a file is the trace kept in memory, and that what is
// written after the save leaves the saved file as it was while the trace itself goes on whole.
TEST(RunTrace, ASavedTraceIsTheWholeTraceAndStaysAsSaved) {
  const test_support::ScratchDir scratch("run-trace");
  const std::filesystem::path dir = scratch.path();
  RunTrace spilled(one_counter(), 1, RunTrace::Spill::ToFile);
  RunTrace kept(one_counter(), 1, RunTrace::Spill::Off);
  write_a_long_run(spilled);
  write_a_long_run(kept);
  ASSERT_TRUE(spilled.save(dir / "spilled.pftrace").has_value());
  ASSERT_TRUE(kept.save(dir / "kept.pftrace").has_value());
  const std::string saved = file_bytes(dir / "spilled.pftrace");
  ASSERT_GT(saved.size(), 4 * RunTrace::kSpillBytes);
  EXPECT_EQ(saved, std::string(kept.bytes().value()));
  EXPECT_EQ(file_bytes(dir / "kept.pftrace"), saved);

  for (RunTrace* trace : {&spilled, &kept})
    for (uint64_t i = 0; i < 20'000; ++i) trace->memory_change(1'000'000 + i, 1000, 0, 1000, i);
  EXPECT_EQ(file_bytes(dir / "spilled.pftrace"), saved);
  EXPECT_EQ(spilled.hash(), kept.hash());
  EXPECT_EQ(std::string(spilled.bytes().value()), std::string(kept.bytes().value()));
  EXPECT_EQ(trace_hash(spilled.bytes().value()), spilled.hash());
}

}  // namespace
}  // namespace tidemark::tracer
