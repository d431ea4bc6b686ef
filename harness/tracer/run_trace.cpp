#include "tracer/run_trace.h"

namespace tidemark::tracer {

// The backend's counters are interned on their own sequence (mode 2), so their ids never
// collide with the global ids of a scenario's inline (mode 1) descriptor.
RunTrace::RunTrace(const CounterDescriptor& counters, uint64_t start, Spill spill) {
  if (spill == Spill::ToFile) spill_ = UnnamedFile::create();  // none there: the trace stays in memory
  spilling_ = spill_.has_value();
  writer_.reserve(spilling_ ? kSpillBytes + kBundleRoom : kBufferBytes + kBundleRoom);
  writer_.intern_counter_descriptor(kCounterSequence, start, 1, 0, counters, true);
}

bool RunTrace::full() {
  if (size() < kBufferBytes) return false;
  ++dropped_;
  return true;
}

void RunTrace::memory_snapshot(uint64_t ts, uint32_t gpu, uint32_t pid, uint64_t size) {
  if (full()) return;
  writer_.gpu_mem_total(kMemorySequence, ts, gpu, pid, size);
  spill_if_due();
}

void RunTrace::memory_change(uint64_t ts, uint32_t thread, uint32_t gpu, uint32_t pid, uint64_t size) {
  pending_.push_back({ts, thread, gpu, pid, size});
  if (pending_.size() >= kEventsPerBundle) flush_ftrace();
}

void RunTrace::sample(uint64_t ts, std::span<const CounterSample> samples) {
  if (full()) return;
  writer_.counter_samples(kCounterSequence, ts, std::nullopt, 1, samples);
  samples_ += samples.size();
  spill_if_due();
}

void RunTrace::counter_stream(const CounterStreamOp& stream, uint64_t ts) {
  spill_if_due();
  stream_interned_ = stream.interned;
  stream_gpus_ = stream.gpus;
  if (full()) return;
  if (!stream.interned) {
    writer_.counter_descriptor(kScenarioSequence, ts, 0, stream.descriptor);
    return;
  }
  for (size_t k = 0; k < stream.gpus.size(); ++k)
    writer_.intern_counter_descriptor(kScenarioSequence + static_cast<uint32_t>(k), ts, 1,
                                      static_cast<int32_t>(stream.gpus[k]), stream.descriptor, true);
}

void RunTrace::counter_sample(const CounterSampleOp& sample) {
  spill_if_due();
  if (full()) return;
  samples_ += sample.samples.size();
  if (!stream_interned_) {
    writer_.counter_samples(kScenarioSequence, sample.ts, static_cast<int32_t>(sample.gpu), std::nullopt,
                            sample.samples);
    return;
  }
  // Mode 2: the sample names the interned descriptor of its GPU's sequence, not a GPU.
  for (size_t k = 0; k < stream_gpus_.size(); ++k)
    if (stream_gpus_[k] == sample.gpu)
      writer_.counter_samples(kScenarioSequence + static_cast<uint32_t>(k), sample.ts, std::nullopt, 1, sample.samples);
}

void RunTrace::track(uint64_t ts, const TrackDescriptor& track) {
  if (full()) return;
  writer_.track_descriptor(kTrackEventSequence, ts, track);
  spill_if_due();
}

void RunTrace::instant(uint64_t ts, uint64_t track_uuid, std::string_view name,
                       std::span<const TrackEventArgument> arguments) {
  if (full()) return;  // the buffer stays full: no later packet needs the names this one would have carried
  track_names_.instant(writer_, kTrackEventSequence, ts, track_uuid, name, arguments);
  spill_if_due();
}

void RunTrace::flush_ftrace() {
  if (pending_.empty()) return;
  if (full()) {
    dropped_ += pending_.size() - 1;
    pending_.clear();
    return;
  }
  writer_.ftrace_gpu_mem_totals(kFtraceSequence, 0, pending_);
  pending_.clear();
  spill_if_due();
}

// Packets are final once written, so what the writer holds is hashed and appended to the file
// whole. A failed append keeps the bytes in memory and spills no more.
void RunTrace::spill_if_due() {
  if (spilling_ && writer_.bytes().size() >= kSpillBytes) spill_held();
}

bool RunTrace::spill_held() {
  hash_held();
  if (!spill_->append(writer_.bytes())) {
    stop_spilling();
    return false;
  }
  writer_.clear();
  return true;
}

void RunTrace::stop_spilling() {
  spilling_ = false;
  writer_.reserve(kBufferBytes + kBundleRoom);
}

void RunTrace::hash_held() {
  hash_.add(std::string_view(writer_.bytes()).substr(hashed_ - spilled()));
  hashed_ = size();
}

Result<std::string_view> RunTrace::bytes() {
  flush_ftrace();
  if (spilled() > 0) {
    TIDEMARK_TRY(whole, spill_->read_all());
    whole.reserve(kBufferBytes + kBundleRoom);
    whole.append(writer_.bytes());
    writer_.restore(std::move(whole));
  }
  spill_.reset();  // from here on the trace stays in memory, where the view points
  spilling_ = false;
  return std::string_view(writer_.bytes());
}

Status RunTrace::save(const std::filesystem::path& file) {
  flush_ftrace();
  if (spilling_ && spilled() > 0 && spill_held()) {
    stop_spilling();  // the named file is the trace as saved: nothing more goes into it
    return spill_->save_as(file);
  }
  TIDEMARK_TRY(all, bytes());
  return write_file_atomically(file, all);
}

std::string RunTrace::hash() {
  flush_ftrace();
  hash_held();
  return hash_.hex();
}

}  // namespace tidemark::tracer
