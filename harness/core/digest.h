// A stable 64-bit digest (FNV-1a) for gauges and pixels: identical across runs, lanes
// and machines, which std::hash does not promise.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidemark {

class Digest {
 public:
  void add(std::span<const uint8_t> bytes);
  void add(std::string_view text);
  void add(uint64_t value);
  uint64_t value() const { return state_; }
  std::string hex() const;

 private:
  uint64_t state_ = 0xcbf29ce484222325ull;
};

// XXH3 (libxxhash, 64 bits) over bytes that come in pieces: the same value XXH3 gives of all of
// them at once, so a trace or a recording is hashed as it is written or read, never again.
class StreamHash {
 public:
  StreamHash();
  ~StreamHash();
  StreamHash(StreamHash&& other) noexcept;
  StreamHash& operator=(StreamHash&& other) noexcept;
  void add(std::span<const uint8_t> bytes);
  void add(std::string_view bytes) { add(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())); }
  uint64_t value() const;
  std::string hex() const;  // as trace_hash() writes it

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The hash of an RGBA8 image. Every lane and every replay computes it the same way.
std::string pixel_hash(int width, int height, std::span<const uint8_t> pixels);
// The digest of a run's trace bytes (XXH3, 64 bits, as hex): part of the run digest, so parity
// covers the trace too.
std::string trace_hash(std::string_view trace_bytes);

// Where a run's gauges come from, in the order the run digest takes them.
enum class GaugeSource : uint8_t { Backend, KernelModel, Layer, Wire };
inline constexpr size_t kGaugeSources = 4;

// What a run's digest is made of: the gauges of each source the run read that are not at their
// default, 0 (name and value, in catalogue order), its pixel hash and its trace hash. A gauge
// added to a catalogue thus changes only the digests of runs where it reads something. The runner fills one from what
// it read back and a replay from the replies it gets; the digest takes the sources in GaugeSource's order whatever
// order they were given in, so the two cannot disagree on it.
class RunDigestInputs {
 public:
  using NamedGauges = std::vector<std::pair<std::string, int64_t>>;

  void add_gauges(GaugeSource source, NamedGauges gauges);
  void set_pixel_hash(std::string hash) { pixel_hash_ = std::move(hash); }
  void set_trace_hash(std::string hash) { trace_hash_ = std::move(hash); }
  // Gauges and pixels were read: a run that got as far as reading back.
  bool complete() const;
  std::string digest() const;

 private:
  std::array<NamedGauges, kGaugeSources> gauges_;
  std::string pixel_hash_;
  std::string trace_hash_;
};

}  // namespace tidemark
