// The trace every run leaves beside its result.json: what an analyst opens in the Perfetto UI
// or Trace Processor. Three producers, each on its own packet sequence: the GPU-memory data
// source (a snapshot of the map when tracing starts, one packet per entry, stamped during the
// walk), ftrace (a gpu_mem_total event for every later tracepoint hit, in bundles), and the
// backend's gauges as GPU counters (descriptor interned, forward-looking, sampled at every queue
// submit). A scenario's own counters go on further sequences. Timestamps are the kernel model's virtual nanoseconds:
// the bytes are the same on every run and in every lane.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/digest.h"
#include "core/error.h"
#include "core/files.h"
#include "core/trace_memory.h"
#include "tracer/trace_writer.h"

namespace tidemark::tracer {

class RunTrace {
 public:
  static constexpr uint32_t kMemorySequence = 1;
  static constexpr uint32_t kFtraceSequence = 2;
  static constexpr uint32_t kCounterSequence = 3;
  static constexpr uint32_t kScenarioSequence = 4;           // and 4 + k for the k-th GPU of an interned stream
  static constexpr uint32_t kTrackEventSequence = 1u << 16;  // past any scenario GPU's sequence
  static constexpr size_t kEventsPerBundle = 256;
  // The trace buffer, as a Perfetto config's buffer with fill policy DISCARD: once full, later
  // packets are dropped and counted (a 100 000-respecify soak writes about 8 MiB).
  static constexpr size_t kBufferBytes = size_t{64} << 20;
  // The last packet may pass the buffer's end by up to one ftrace bundle.
  static constexpr size_t kBundleRoom = size_t{1} << 20;
  // Finished bytes past this many leave memory for an unnamed file (hashed on the way): a
  // replay asks only for the hash, so a long run's trace never sits in the heap, and its
  // pages are not faulted in one by one (a quarter of the host's time, 8 MiB of peak memory).
  static constexpr size_t kSpillBytes = size_t{256} << 10;
  enum class Spill { ToFile, Off };

  // The counters this run samples; written as the session's first counter packet at `start`.
  RunTrace(const CounterDescriptor& counters, uint64_t start, Spill spill = Spill::ToFile);

  void memory_snapshot(uint64_t ts, uint32_t gpu, uint32_t pid, uint64_t size);
  void memory_change(uint64_t ts, uint32_t thread, uint32_t gpu, uint32_t pid, uint64_t size);
  void sample(uint64_t ts, std::span<const CounterSample> samples);
  // A scenario's own counters: mode 1 (inline, on one sequence) or mode 2 (interned on a
  // sequence per GPU, each cleared first), written at `ts`; then samples at their own times.
  void counter_stream(const CounterStreamOp& stream, uint64_t ts);
  void counter_sample(const CounterSampleOp& sample);
  // Track events (a renderer server's process and its wire's commands and replies), on a
  // sequence of their own: written only when there are some, so a run without them keeps its bytes.
  // An instant's name and its arguments' names are interned on that sequence, in the order first
  // used (iids from 1), so a name costs its bytes once and then a varint.
  void track(uint64_t ts, const TrackDescriptor& track);
  void instant(uint64_t ts, uint64_t track_uuid, std::string_view name, std::span<const TrackEventArgument> arguments);
  // The trace so far, pending ftrace events flushed: a valid trace at any call. Spilled bytes
  // come back into memory (and stay there); valid until the next call.
  Result<std::string_view> bytes();
  // trace_hash() of bytes(), kept up as the trace grows: a call hashes only what was written
  // since the last one (packets are final once written: nothing earlier is ever patched).
  std::string hash();
  // The trace so far written to `file` (atomically), where it is: a spilled trace's file gets
  // the name, its bytes neither read back nor copied (across file systems the kernel copies
  // them). Whatever is written afterwards stays in memory; bytes() and hash() still see it all.
  Status save(const std::filesystem::path& file);
  size_t samples() const { return samples_; }
  size_t dropped() const { return dropped_; }  // packets the full buffer discarded

 private:
  void flush_ftrace();
  void spill_if_due();
  bool spill_held();     // what the writer holds, hashed and appended to the spill; false: kept in memory
  void stop_spilling();  // later bytes stay in memory, in room for the whole buffer
  void hash_held();      // the bytes the writer holds that hash_ has not seen, added to it
  size_t spilled() const { return spill_ ? spill_->size() : 0; }
  size_t size() const { return spilled() + writer_.bytes().size(); }
  TraceWriter writer_;
  std::optional<UnnamedFile> spill_;  // the trace's first spilled() bytes; the writer holds the rest
  bool spilling_ = false;             // off once an append failed or the bytes were asked for
  StreamHash hash_;
  size_t hashed_ = 0;  // the bytes before this are in hash_
  std::vector<FtraceGpuMemTotal> pending_;
  std::vector<uint32_t> stream_gpus_;  // an interned scenario stream's GPUs, by sequence offset
  TrackEventNames track_names_;        // interned on kTrackEventSequence
  bool stream_interned_ = false;
  bool full();
  size_t samples_ = 0;
  size_t dropped_ = 0;
};

}  // namespace tidemark::tracer
