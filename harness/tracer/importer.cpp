#include "tracer/importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <set>
#include <tuple>

#include "core/counters.h"
#include "tracer/perfetto_fields.h"
#include "tracer/proto.h"

namespace tidemark::tracer {

namespace {

namespace f = fields;
using proto::Field;
using proto::In;

constexpr std::string_view kGpuMemoryName = "GPU Memory";
constexpr size_t kMaxNotes = 100;

struct Spec {
  std::string name;
  std::string description;
  std::string unit;
  std::optional<std::string> disagreement;
  bool forwards = false;
};

// A sample before the track semantics are applied (they need the samples in time order).
struct RawSample {
  uint64_t ts;
  double value;
  uint64_t order;  // arrival, to keep equal timestamps stable
};

// Unit nouns a counter's name may carry, and the MeasureUnit each means.
constexpr std::array<std::pair<std::string_view, MeasureUnit>, 16> kNameUnits = {{
    {"fragment", 39},
    {"fragments", 39},
    {"pixel", 26},
    {"pixels", 26},
    {"vertex", 25},
    {"vertices", 25},
    {"triangle", 27},
    {"triangles", 27},
    {"primitive", 38},
    {"primitives", 38},
    {"instruction", 40},
    {"instructions", 40},
    {"byte", 7},
    {"bytes", 7},
    {"second", 22},
    {"seconds", 22},
}};

// The name's unit nouns that the structured units lack: "Fragment" for "Fragment / Second"
// with units Pixel/s. Never repaired, only reported.
std::optional<std::string> unit_disagreement(std::string_view name, const std::vector<MeasureUnit>& numerator,
                                             const std::vector<MeasureUnit>& denominator) {
  std::vector<std::string> missing;
  size_t at = 0;
  while (at < name.size()) {
    while (at < name.size() && !std::isalpha(static_cast<unsigned char>(name[at]))) ++at;
    size_t end = at;
    while (end < name.size() && std::isalpha(static_cast<unsigned char>(name[end]))) ++end;
    std::string word(name.substr(at, end - at));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [noun, unit] : kNameUnits) {
      if (noun != word) continue;
      bool present = std::find(numerator.begin(), numerator.end(), unit) != numerator.end() ||
                     std::find(denominator.begin(), denominator.end(), unit) != denominator.end();
      if (!present) missing.emplace_back(name.substr(at, end - at));
    }
    at = end;
  }
  if (missing.empty()) return std::nullopt;
  std::string units = unit_string(numerator, denominator);
  return fmt::format("the name says {}, the units say {}", fmt::join(missing, ", "), units.empty() ? "none" : units);
}

class Importer {
 public:
  explicit Importer(MutantId mutant) : mutant_(mutant) {}
  ImportedTrace run(std::string_view bytes) {
    In trace(bytes);
    while (auto field = trace.next()) {
      if (field->number != f::kTracePacket || field->type != proto::kLengthDelimited) continue;
      ++out_.stats.packets;
      if (!packet(field->bytes)) {
        ++out_.stats.malformed;
        note("packet {}: does not decode", out_.stats.packets);
      }
    }
    if (trace.error()) {
      ++out_.stats.malformed;
      note("the trace ends inside a packet");
    }
    finish();
    return std::move(out_);
  }

 private:
  template <class... Args>
  void note(fmt::format_string<Args...> format, Args&&... args) {
    if (out_.notes.size() < kMaxNotes) out_.notes.push_back(fmt::format(format, std::forward<Args>(args)...));
  }

  void saw(uint64_t ts) { out_.end_ts = std::max(out_.end_ts, ts); }

  bool packet(std::string_view bytes) {
    In in(bytes);
    std::optional<uint64_t> ts;
    uint32_t sequence = 0;
    uint32_t flags = 0;
    std::string_view counter_event, interned, gpu_mem, ftrace, track_descriptor, track_event, defaults;
    bool has_counter_event = false, has_interned = false, has_gpu_mem = false, has_ftrace = false;
    bool has_track_descriptor = false, has_track_event = false;
    while (auto field = in.next()) {
      switch (field->number) {
        case f::packet::kTimestamp:
          ts = field->varint;
          break;
        case f::packet::kTrustedPacketSequenceId:
          sequence = static_cast<uint32_t>(field->varint);
          break;
        case f::packet::kSequenceFlags:
          flags = static_cast<uint32_t>(field->varint);
          break;
        case f::packet::kGpuCounterEvent:
          counter_event = field->bytes, has_counter_event = true;
          break;
        case f::packet::kInternedData:
          interned = field->bytes, has_interned = true;
          break;
        case f::packet::kGpuMemTotalEvent:
          gpu_mem = field->bytes, has_gpu_mem = true;
          break;
        case f::packet::kFtraceEvents:
          ftrace = field->bytes, has_ftrace = true;
          break;
        case f::packet::kTrackDescriptor:
          track_descriptor = field->bytes, has_track_descriptor = true;
          break;
        case f::packet::kTrackEvent:
          track_event = field->bytes, has_track_event = true;
          break;
        case f::packet::kTracePacketDefaults:
          defaults = field->bytes;
          break;
        default:
          break;
      }
    }
    if (in.error()) return false;
    if (ts) saw(*ts);
    if (flags & f::packet::kIncrementalStateCleared) {
      interned_[sequence].clear();
      names_[sequence] = {};
    }
    if (!defaults.empty() && !default_track(sequence, defaults)) return false;
    bool ok = true;
    if (has_interned) ok &= intern(sequence, interned);
    if (has_gpu_mem) ok &= gpu_mem_packet(ts.value_or(0), gpu_mem);
    if (has_ftrace) ok &= ftrace_bundle(ftrace);
    if (has_counter_event) ok &= counter_event_packet(sequence, ts, counter_event);
    if (has_track_descriptor) ok &= track_descriptor_packet(track_descriptor);
    if (has_track_event) ok &= track_event_packet(sequence, ts.value_or(0), track_event);
    return ok;
  }

  // ---- track events ---------------------------------------------------------------------

  // A process track's descriptor makes its process one the trace has seen.
  bool track_descriptor_packet(std::string_view bytes) {
    In in(bytes);
    EventTrack track;
    while (auto field = in.next()) {
      if (field->number == f::track_descriptor::kUuid) track.uuid = field->varint;
      if (field->number == f::track_descriptor::kName) track.name = std::string(field->bytes);
      if (field->number == f::track_descriptor::kParentUuid) track.parent = field->varint;
      if (field->number == f::track_descriptor::kProcess) {
        In process(field->bytes);
        while (auto inner = process.next())
          if (inner->number == f::track_descriptor::kProcessPid) track.pid = static_cast<uint32_t>(inner->varint);
        if (process.error()) return false;
      }
    }
    if (in.error()) return false;
    if (track.pid) processes_.insert(*track.pid);
    if (event_tracks_.contains(track.uuid)) return true;  // named again: the first naming stands
    event_tracks_[track.uuid] = out_.event_tracks.size();
    out_.event_tracks.push_back(std::move(track));
    return true;
  }

  // A name interned on the sequence (EventName or DebugAnnotationName); one it does not hold is
  // noted and shown by its iid.
  std::string interned_name(const std::map<uint64_t, std::string>& names, uint64_t iid, uint32_t sequence) {
    if (auto found = names.find(iid); found != names.end()) return found->second;
    note("a track event names interned name {} that sequence {} does not hold", iid, sequence);
    return fmt::format("(interned name {})", iid);
  }

  // TracePacketDefaults: the track a sequence's events are on when they name none.
  bool default_track(uint32_t sequence, std::string_view bytes) {
    In in(bytes);
    while (auto field = in.next()) {
      if (field->number != f::packet_defaults::kTrackEventDefaults) continue;
      In events(field->bytes);
      while (auto inner = events.next())
        if (inner->number == f::packet_defaults::kTrackUuid) names_[sequence].default_track = inner->varint;
      if (events.error()) return false;
    }
    return !in.error();
  }

  bool track_event_packet(uint32_t sequence, uint64_t ts, std::string_view bytes) {
    In in(bytes);
    TrackInstant instant{.ts = ts};
    const InternedNames& names = names_[sequence];
    uint64_t uuid = names.default_track.value_or(0);
    while (auto field = in.next()) {
      if (field->number == f::track_event::kTrackUuid) uuid = field->varint;
      if (field->number == f::track_event::kName) instant.name = std::string(field->bytes);
      if (field->number == f::track_event::kNameIid)
        instant.name = interned_name(names.events, field->varint, sequence);
      if (field->number != f::track_event::kDebugAnnotations) continue;
      In annotation(field->bytes);
      std::string name;
      std::variant<uint64_t, std::string> value;
      while (auto inner = annotation.next()) {
        if (inner->number == f::track_event::kAnnotationName) name = std::string(inner->bytes);
        if (inner->number == f::track_event::kAnnotationNameIid)
          name = interned_name(names.arguments, inner->varint, sequence);
        if (inner->number == f::track_event::kAnnotationUintValue) value = inner->varint;
        if (inner->number == f::track_event::kAnnotationStringValue) value = std::string(inner->bytes);
      }
      if (annotation.error()) return false;
      instant.arguments[name] = std::move(value);
    }
    if (in.error()) return false;
    auto found = event_tracks_.find(uuid);
    if (found == event_tracks_.end()) {
      ++out_.stats.unnamed_events;
      note("a track event '{}' at {} on track {}, which no descriptor named before it", instant.name, ts, uuid);
      return true;
    }
    out_.event_tracks[found->second].instants.push_back(std::move(instant));
    return true;
  }

  // ---- GPU memory -----------------------------------------------------------------------

  struct MemoryEvent {
    uint32_t gpu = 0, pid = 0;
    uint64_t size = 0;
  };
  static std::optional<MemoryEvent> memory_event(std::string_view bytes) {
    In in(bytes);
    MemoryEvent event;
    while (auto field = in.next()) {
      if (field->number == f::gpu_mem_total::kGpuId) event.gpu = static_cast<uint32_t>(field->varint);
      if (field->number == f::gpu_mem_total::kPid) event.pid = static_cast<uint32_t>(field->varint);
      if (field->number == f::gpu_mem_total::kSize) event.size = field->varint;
    }
    if (in.error()) return std::nullopt;
    return event;
  }

  void push_memory(uint64_t ts, const MemoryEvent& event) {
    Track& track = event.pid == 0 ? track_for(TrackKind::GpuMemoryGlobal, event.gpu, std::nullopt, kGpuMemoryName)
                                  : track_for(TrackKind::GpuMemoryProcess, event.gpu, event.pid, kGpuMemoryName);
    if (track.unit.empty()) track.unit.push_back('B');  // bytes (assigning "B" trips GCC 12's -Wrestrict)
    raw_[&track - out_.tracks.data()].push_back({ts, static_cast<double>(event.size), order_++});
  }

  // The data source's snapshot packets: the process exists from now on.
  bool gpu_mem_packet(uint64_t ts, std::string_view bytes) {
    auto event = memory_event(bytes);
    if (!event) return false;
    if (event->pid != 0) processes_.insert(event->pid);
    push_memory(ts, *event);
    return true;
  }

  bool ftrace_bundle(std::string_view bytes) {
    In bundle(bytes);
    while (auto field = bundle.next()) {
      if (field->number != f::ftrace::kBundleEvent) continue;
      In event(field->bytes);
      uint64_t ts = 0;
      std::optional<MemoryEvent> memory;
      while (auto inner = event.next()) {
        if (inner->number == f::ftrace::kEventTimestamp) ts = inner->varint;
        if (inner->number == f::ftrace::kEventGpuMemTotal) {
          memory = memory_event(inner->bytes);
          if (!memory) return false;
        }
      }
      if (event.error()) return false;
      if (!memory) continue;
      saw(ts);
      if (memory->pid != 0 && !processes_.contains(memory->pid) &&
          !mutant_is(mutant_, MutantId::TracerFtraceKeepsUnseenPids)) {
        ++out_.stats.dropped_ftrace;
        note("gpu_mem_total at {} for pid {}: a process the trace never saw, dropped", ts, memory->pid);
        continue;
      }
      push_memory(ts, *memory);
    }
    return !bundle.error();
  }

  // ---- GPU counters ---------------------------------------------------------------------

  using SpecTable = std::map<uint32_t, Spec>;

  // Reads a descriptor's specs, rejecting those without an id or a name and ids `taken`.
  SpecTable descriptor_specs(std::string_view bytes, const SpecTable* taken, bool& ok) {
    SpecTable specs;
    In in(bytes);
    while (auto field = in.next()) {
      if (field->number != f::descriptor::kSpecs) continue;
      In spec_in(field->bytes);
      std::optional<uint32_t> id;
      std::optional<std::string> name;
      Spec spec;
      std::vector<MeasureUnit> numerator, denominator;
      while (auto spec_field = spec_in.next()) {
        switch (spec_field->number) {
          case f::descriptor::kSpecCounterId:
            id = static_cast<uint32_t>(spec_field->varint);
            break;
          case f::descriptor::kSpecName:
            name = std::string(spec_field->bytes);
            break;
          case f::descriptor::kSpecDescription:
            spec.description = std::string(spec_field->bytes);
            break;
          case f::descriptor::kSpecNumeratorUnits:
            numerator.push_back(static_cast<MeasureUnit>(spec_field->varint));
            break;
          case f::descriptor::kSpecDenominatorUnits:
            denominator.push_back(static_cast<MeasureUnit>(spec_field->varint));
            break;
          case f::descriptor::kSpecValueDirection:
            spec.forwards = spec_field->varint == static_cast<uint64_t>(ValueDirection::Forwards);
            break;
          default:
            break;
        }
      }
      if (spec_in.error()) {
        ok = false;
        continue;
      }
      if (!id || !name) {
        ++out_.stats.rejected_specs;
        note("a counter spec without {}: rejected", !id ? "an id" : "a name");
        continue;
      }
      if ((taken && taken->contains(*id)) || specs.contains(*id)) {
        ++out_.stats.rejected_specs;
        note("counter id {} ('{}') declared again: rejected", *id, *name);
        continue;
      }
      spec.name = *name;
      spec.unit = unit_string(numerator, denominator);
      spec.disagreement = unit_disagreement(*name, numerator, denominator);
      specs.emplace(*id, std::move(spec));
    }
    if (in.error()) ok = false;
    return specs;
  }

  struct InternedDescriptor {
    SpecTable specs;
    int32_t gpu = 0;
  };

  bool intern(uint32_t sequence, std::string_view bytes) {
    In in(bytes);
    bool ok = true;
    while (auto field = in.next()) {
      if (field->number == f::interned::kEventNames || field->number == f::interned::kDebugAnnotationNames) {
        In entry(field->bytes);
        uint64_t iid = 0;
        std::string name;
        while (auto inner = entry.next()) {
          if (inner->number == f::interned::kNameIid) iid = inner->varint;
          if (inner->number == f::interned::kName) name = std::string(inner->bytes);
        }
        if (entry.error()) return false;
        InternedNames& names = names_[sequence];
        (field->number == f::interned::kEventNames ? names.events : names.arguments)[iid] = std::move(name);
        continue;
      }
      if (field->number != f::interned::kGpuCounterDescriptors) continue;
      In entry(field->bytes);
      uint64_t iid = 0;
      int32_t gpu = 0;
      std::string_view descriptor;
      while (auto inner = entry.next()) {
        if (inner->number == f::interned::kIid) iid = inner->varint;
        if (inner->number == f::interned::kCounterDescriptor) descriptor = inner->bytes;
        if (inner->number == f::interned::kGpuId) gpu = static_cast<int32_t>(inner->varint);
      }
      if (entry.error()) return false;
      interned_[sequence][iid] = InternedDescriptor{descriptor_specs(descriptor, nullptr, ok), gpu};
    }
    return ok && !in.error();
  }

  bool counter_event_packet(uint32_t sequence, std::optional<uint64_t> ts, std::string_view bytes) {
    In in(bytes);
    std::vector<std::string_view> counters;
    std::optional<std::string_view> descriptor;
    int32_t gpu = 0;
    std::optional<uint64_t> iid;
    while (auto field = in.next()) {
      if (field->number == f::counter_event::kDescriptor) descriptor = field->bytes;
      if (field->number == f::counter_event::kCounters) counters.push_back(field->bytes);
      if (field->number == f::counter_event::kGpuId) gpu = static_cast<int32_t>(field->varint);
      if (field->number == f::counter_event::kDescriptorIid) iid = field->varint;
    }
    if (in.error()) return false;
    bool ok = true;
    if (descriptor) {
      SpecTable added = descriptor_specs(*descriptor, &global_, ok);
      global_.merge(added);
    }
    if (counters.empty()) return ok;
    if (!ts) {
      ++out_.stats.untimed_packets;
      note("a counter packet without a timestamp: its {} samples dropped", counters.size());
      return ok;
    }
    const SpecTable* specs = &global_;
    if (iid) {
      auto on_sequence = interned_.find(sequence);
      if (on_sequence == interned_.end() || !on_sequence->second.contains(*iid)) {
        out_.stats.dropped_samples += static_cast<int64_t>(counters.size());
        note("samples at {} name interned descriptor {} that sequence {} does not hold: dropped", *ts, *iid, sequence);
        return ok;
      }
      const InternedDescriptor& found = on_sequence->second.at(*iid);
      specs = &found.specs;
      if (!mutant_is(mutant_, MutantId::TracerEventGpuWins)) gpu = found.gpu;  // the interned descriptor's GPU wins
    }
    for (std::string_view counter : counters) {
      In sample(counter);
      std::optional<uint32_t> id;
      double value = 0;
      while (auto field = sample.next()) {
        if (field->number == f::counter_event::kCounterId) id = static_cast<uint32_t>(field->varint);
        if (field->number == f::counter_event::kIntValue)
          value = static_cast<double>(static_cast<int64_t>(field->varint));
        if (field->number == f::counter_event::kDoubleValue) value = field->as_double();
      }
      if (sample.error()) return false;
      auto spec = id ? specs->find(*id) : specs->end();
      if (spec == specs->end()) {
        ++out_.stats.dropped_samples;
        note("a sample at {} for counter id {}: no spec declares it, dropped", *ts,
             id ? std::to_string(*id) : std::string("(none)"));
        continue;
      }
      Track& track = track_for(TrackKind::GpuCounter, static_cast<uint32_t>(gpu), std::nullopt, spec->second.name);
      track.unit = spec->second.unit;
      track.description = spec->second.description;
      track.forwards = spec->second.forwards || mutant_is(mutant_, MutantId::TracerForwardImport);
      track.unit_disagreement = spec->second.disagreement;
      if (track.unit_disagreement && mutant_is(mutant_, MutantId::TracerRepairsUnits)) {
        track.unit = "Fragment/s";  // what the name says, as a repairing importer would guess
        track.unit_disagreement.reset();
      }
      raw_[&track - out_.tracks.data()].push_back({*ts, value, order_++});
    }
    return ok;
  }

  // ---- tracks -------------------------------------------------------------------------

  Track& track_for(TrackKind kind, uint32_t gpu, std::optional<uint32_t> pid, std::string_view name) {
    auto key = std::make_tuple(static_cast<int>(kind), gpu, pid.value_or(0), std::string(name));
    auto [found, added] = index_.emplace(key, out_.tracks.size());
    if (added) {
      Track track;
      track.kind = kind;
      track.name = std::string(name);
      track.gpu = gpu;
      track.pid = pid;
      out_.tracks.push_back(std::move(track));
      raw_.emplace_back();
    }
    return out_.tracks[found->second];
  }

  // Samples in time order, then each track's import rule.
  void finish() {
    for (auto& track : out_.event_tracks)
      std::stable_sort(track.instants.begin(), track.instants.end(),
                       [](const TrackInstant& a, const TrackInstant& b) { return a.ts < b.ts; });
    for (size_t k = 0; k < out_.tracks.size(); ++k) {
      Track& track = out_.tracks[k];
      auto& samples = raw_[k];
      std::sort(samples.begin(), samples.end(), [](const RawSample& a, const RawSample& b) {
        return std::tie(a.ts, a.order) < std::tie(b.ts, b.order);
      });
      bool backwards = track.kind == TrackKind::GpuCounter && !track.forwards;
      for (const auto& sample : samples) {
        if (!backwards) {
          track.rows.push_back({sample.ts, sample.value});
          continue;
        }
        if (!track.rows.empty()) track.rows.back().value = sample.value;
        track.rows.push_back({sample.ts, 0});
      }
    }
  }

  MutantId mutant_;
  ImportedTrace out_;
  std::map<std::tuple<int, uint32_t, uint32_t, std::string>, size_t> index_;
  std::vector<std::vector<RawSample>> raw_;  // by track index
  uint64_t order_ = 0;
  SpecTable global_;
  std::map<uint32_t, std::map<uint64_t, InternedDescriptor>> interned_;  // sequence -> iid -> descriptor
  struct InternedNames {
    std::map<uint64_t, std::string> events, arguments;  // EventName, DebugAnnotationName: iid -> name
    std::optional<uint64_t> default_track;              // TrackEventDefaults
  };
  std::map<uint32_t, InternedNames> names_;  // by sequence
  std::set<uint32_t> processes_;
  std::map<uint64_t, size_t> event_tracks_;  // uuid -> index in out_.event_tracks
};

std::string format_value(double value) {
  // The bound first: converting a double beyond int64's range is undefined (the fuzz target's
  // first importer finding, a sample of 1.4e155).
  if (std::abs(value) < 9.0e15 && value == std::trunc(value)) return fmt::format("{}", static_cast<int64_t>(value));
  return fmt::format("{}", value);
}

}  // namespace

std::string Track::label() const {
  if (pid) return fmt::format("{} (gpu {}, pid {})", name, gpu, *pid);
  return fmt::format("{} (gpu {})", name, gpu);
}

std::optional<uint64_t> TrackInstant::number(std::string_view argument) const {
  auto found = arguments.find(argument);
  if (found == arguments.end() || !std::holds_alternative<uint64_t>(found->second)) return std::nullopt;
  return std::get<uint64_t>(found->second);
}

size_t EventTrack::count(std::string_view instant_name) const {
  return static_cast<size_t>(std::count_if(instants.begin(), instants.end(),
                                           [&](const TrackInstant& instant) { return instant.name == instant_name; }));
}

const EventTrack* ImportedTrace::find_events(std::string_view name) const {
  for (const auto& track : event_tracks)
    if (track.name == name) return &track;
  return nullptr;
}

const Track* ImportedTrace::find(std::string_view label) const {
  for (const auto& track : tracks)
    if (track.label() == label) return &track;
  return nullptr;
}

std::vector<Span> spans(const Track& track, uint64_t end_ts) {
  std::vector<Span> out;
  for (size_t k = 0; k < track.rows.size(); ++k) {
    uint64_t until = k + 1 < track.rows.size() ? track.rows[k + 1].ts : std::max(end_ts, track.rows[k].ts);
    out.push_back({track.rows[k].ts, until - track.rows[k].ts, track.rows[k].value});
  }
  return out;
}

ImportedTrace import_trace(std::string_view bytes, MutantId mutant) { return Importer(mutant).run(bytes); }

std::string describe(const ImportedTrace& trace) {
  std::string out =
      fmt::format("{} packets, {} tracks, ends at {}\n", trace.stats.packets, trace.tracks.size(), trace.end_ts);
  for (const auto& track : trace.tracks) {
    std::string unit = track.unit.empty() ? std::string() : fmt::format(" [{}]", track.unit);
    std::string_view direction =
        track.kind != TrackKind::GpuCounter ? "" : (track.forwards ? " forwards" : " backwards");
    std::string flagged =
        track.unit_disagreement ? fmt::format(" FLAGGED: {}", *track.unit_disagreement) : std::string();
    out += fmt::format("track {}{}{}{}\n", track.label(), unit, direction, flagged);
    for (const auto& row : track.rows) out += fmt::format("  {} {}\n", row.ts, format_value(row.value));
  }
  for (const auto& track : trace.event_tracks) {
    std::string process = track.pid ? fmt::format(", process {}", *track.pid) : std::string();
    std::string parent = track.parent ? fmt::format(", under track {}", *track.parent) : std::string();
    out += fmt::format("events '{}' (track {}{}{}): {} instants\n", track.name, track.uuid, process, parent,
                       track.instants.size());
    for (const auto& instant : track.instants) {
      out += fmt::format("  {} {}", instant.ts, instant.name);
      for (const auto& [name, value] : instant.arguments)
        out += std::holds_alternative<uint64_t>(value) ? fmt::format(" {}={}", name, std::get<uint64_t>(value))
                                                       : fmt::format(" {}='{}'", name, std::get<std::string>(value));
      out += '\n';
    }
  }
  const ImportStats& s = trace.stats;
  out += fmt::format(
      "rejected specs {}, dropped samples {}, untimed packets {}, dropped ftrace events {}, malformed {}{}\n",
      s.rejected_specs, s.dropped_samples, s.untimed_packets, s.dropped_ftrace, s.malformed,
      s.unnamed_events ? fmt::format(", unnamed track events {}", s.unnamed_events) : std::string());
  for (const auto& note : trace.notes) out += fmt::format("note: {}\n", note);
  return out;
}

}  // namespace tidemark::tracer
