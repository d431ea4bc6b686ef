// Reads a Perfetto trace the way Trace Processor imports these packets, so a scenario can
// assert what an analyst would see: GPU counter tracks (backwards-looking by default: a sample
// at t(n) adds a placeholder 0 row at t(n) and writes its value into the previous row, so the
// first value is dropped and the last row is 0; forward-looking specs push rows as they come),
// GPU-memory tracks per GPU (pid 0) and per process, rejected specs, dropped samples, ftrace
// events of processes the trace never saw, and counter names whose units disagree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/mutants.h"

namespace tidemark::tracer {

struct TrackRow {
  uint64_t ts = 0;
  double value = 0;
  bool operator==(const TrackRow&) const = default;
};

enum class TrackKind { GpuCounter, GpuMemoryGlobal, GpuMemoryProcess };

struct Track {
  TrackKind kind = TrackKind::GpuCounter;
  std::string name;  // the spec's name, or "GPU Memory"
  std::string unit;  // "Vertex/s", "B", ...
  std::string description;
  uint32_t gpu = 0;
  std::optional<uint32_t> pid;  // process tracks
  bool forwards = false;
  std::optional<std::string> unit_disagreement;  // the name names a unit the units do not: kept, flagged
  std::vector<TrackRow> rows;
  // "GPU Memory (gpu 0, pid 1000)", "Fragments/s (gpu 1)": how listings and checks name it.
  std::string label() const;
};

// An instant event on an event track, its arguments by name.
struct TrackInstant {
  uint64_t ts = 0;
  std::string name;
  std::map<std::string, std::variant<uint64_t, std::string>, std::less<>> arguments;
  std::optional<uint64_t> number(std::string_view argument) const;  // a number argument's value
};

// A track of events, as a TrackDescriptor named it: a process's (pid) or one under a parent.
struct EventTrack {
  uint64_t uuid = 0;
  std::string name;
  std::optional<uint64_t> parent;
  std::optional<uint32_t> pid;
  std::vector<TrackInstant> instants;  // in time order
  size_t count(std::string_view instant_name) const;
};

struct ImportStats {
  int64_t packets = 0;
  int64_t malformed = 0;        // packets (or the trace's tail) that did not decode
  int64_t rejected_specs = 0;   // no id or name, or a global id declared twice
  int64_t dropped_samples = 0;  // unknown counter id, or an unknown interned descriptor
  int64_t untimed_packets = 0;  // counter packets without a timestamp
  int64_t dropped_ftrace = 0;   // gpu_mem_total ftrace events of pids the trace never saw
  int64_t unnamed_events = 0;   // track events on a track no descriptor named before them
  bool operator==(const ImportStats&) const = default;
};

struct ImportedTrace {
  std::vector<Track> tracks;             // in the order they were created
  std::vector<EventTrack> event_tracks;  // in the order they were named
  uint64_t end_ts = 0;                   // the trace's last timestamp: where the last span of a track ends
  ImportStats stats;
  std::vector<std::string> notes;  // why each rejection and drop happened (at most 100)
  const Track* find(std::string_view label) const;
  const EventTrack* find_events(std::string_view name) const;
};

// One row as a span: it lasts until the next row's timestamp, the last until the trace's end.
struct Span {
  uint64_t ts = 0;
  uint64_t dur = 0;
  double value = 0;
  bool operator==(const Span&) const = default;
};
std::vector<Span> spans(const Track& track, uint64_t end_ts);

// Never fails: what cannot be decoded is counted and noted, the rest imported.
// `mutant`: red-once's fault switch (tracer.ftrace_keeps_unseen_pids).
ImportedTrace import_trace(std::string_view bytes, MutantId mutant = MutantId::None);

// Tracks and rows as text, the way `tidemark trace FILE` prints them.
std::string describe(const ImportedTrace& trace);

}  // namespace tidemark::tracer
