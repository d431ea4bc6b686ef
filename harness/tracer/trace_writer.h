// Writes a Perfetto trace: a `Trace` is a run of `packet` fields, so packets are appended one
// after another to a byte string that is a valid trace at every packet boundary. Each
// producer writes on its own trusted packet sequence (an id > 0). Timestamps are the caller's
// (BOOTTIME, the default clock; Tidemark passes virtual nanoseconds).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/counters.h"

namespace tidemark::tracer {

// A gpu_mem/gpu_mem_total tracepoint hit as ftrace records it.
struct FtraceGpuMemTotal {
  uint64_t timestamp = 0;
  uint32_t thread = 0;  // the thread that hit the tracepoint (FtraceEvent.pid)
  uint32_t gpu_id = 0;
  uint32_t pid = 0;  // whose memory: 0 is the GPU's global total
  uint64_t size = 0;
};

// A track named once in a trace: a process's (with `pid`: the trace has then seen that process),
// or one of its own under `parent`.
struct TrackDescriptor {
  uint64_t uuid = 0;
  std::string name;
  std::optional<uint64_t> parent;
  std::optional<uint32_t> pid;
  bool operator==(const TrackDescriptor&) const = default;
};

// A track event's argument (a debug annotation): a number or a text.
struct TrackEventArgument {
  std::string name;
  std::variant<uint64_t, std::string> value;
  bool operator==(const TrackEventArgument&) const = default;
};

// A name interned on a packet sequence: written once, under its iid, in the interned data of the
// first packet that uses it.
struct InternedName {
  uint64_t iid = 0;
  std::string_view name;
};
// A track event's argument by its interned name.
struct InternedArgument {
  uint64_t name_iid = 0;
  const std::variant<uint64_t, std::string>* value = nullptr;
};
// What an instant's packet adds to its sequence's incremental state: the names it is the first to
// use and, for the sequence's first such packet, that the state starts there, with the track its
// events are on when they name none (TracePacketDefaults).
struct NewInternedNames {
  std::span<const InternedName> event_names, argument_names;
  bool clear_state = false;
  std::optional<uint64_t> default_track;  // with clear_state
};

class TraceWriter {
 public:
  // The GPU-memory data source's start-up snapshot: one packet per map entry.
  void gpu_mem_total(uint32_t sequence, uint64_t timestamp, uint32_t gpu_id, uint32_t pid, uint64_t size);
  // One ftrace bundle of gpu_mem_total events from `cpu` (the packet has no timestamp).
  void ftrace_gpu_mem_totals(uint32_t sequence, uint32_t cpu, std::span<const FtraceGpuMemTotal> events);
  // Mode 1: the descriptor inline in a counter event (the first packet of the session), with
  // any samples of that moment.
  void counter_descriptor(uint32_t sequence, uint64_t timestamp, int32_t gpu_id, const CounterDescriptor& descriptor,
                          std::span<const CounterSample> samples = {});
  // Mode 2: the descriptor interned on the sequence under `iid` for `gpu_id`. `clear_state`
  // marks the packet INCREMENTAL_STATE_CLEARED (the first interning packet of a sequence).
  void intern_counter_descriptor(uint32_t sequence, uint64_t timestamp, uint64_t iid, int32_t gpu_id,
                                 const CounterDescriptor& descriptor, bool clear_state);
  // Samples of one moment: with `iid`, against that interned descriptor (the packet then
  // NEEDS_INCREMENTAL_STATE); without, against the global ids of an inline descriptor.
  void counter_samples(uint32_t sequence, uint64_t timestamp, std::optional<int32_t> gpu_id,
                       std::optional<uint64_t> iid, std::span<const CounterSample> samples);

  // A track's descriptor, and an instant event on a track (by its uuid; none: the sequence's
  // default track) with its arguments, its name and theirs interned on the sequence (the packet
  // then NEEDS_INCREMENTAL_STATE).
  void track_descriptor(uint32_t sequence, uint64_t timestamp, const TrackDescriptor& track);
  void track_instant(uint32_t sequence, uint64_t timestamp, std::optional<uint64_t> track_uuid, uint64_t name_iid,
                     std::span<const InternedArgument> arguments, const NewInternedNames& interned);

  // Room for `bytes` of trace, made once: a buffer that grows by doubling copies what it
  // holds at each step (an 8 MiB trace was 16 MiB of copies and faults). The room is only
  // address space until a packet is written into it.
  void reserve(size_t bytes);

  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }
  // The bytes written so far are done with (moved elsewhere); the room stays.
  void clear() { out_.clear(); }
  // These bytes are the trace so far (what was moved elsewhere, brought back), their room kept.
  void restore(std::string bytes) { out_ = std::move(bytes); }
  size_t packets() const { return packets_; }

 private:
  std::string out_;
  size_t packets_ = 0;
};

// One sequence's interned track-event names: an instant's name and its arguments' names get iids
// (from 1) in the order first used, and the packet that first uses a name carries it; the
// sequence's first instant clears its state and makes its track the sequence's default, which
// later instants on it then leave unnamed. A name then costs a varint per event.
class TrackEventNames {
 public:
  void instant(TraceWriter& writer, uint32_t sequence, uint64_t timestamp, uint64_t track_uuid, std::string_view name,
               std::span<const TrackEventArgument> arguments);

 private:
  using Iids = std::map<std::string, uint64_t, std::less<>>;
  static uint64_t intern(Iids& iids, std::string_view name, std::vector<InternedName>& added);
  Iids events_, arguments_;
  std::optional<uint64_t> default_track_;
  std::vector<InternedName> added_events_, added_arguments_;  // reused: an instant allocates nothing once warm
  std::vector<InternedArgument> interned_;
};

}  // namespace tidemark::tracer
