// A stable 64-bit digest (FNV-1a) for gauges and pixels: identical across runs, lanes
// and machines, which std::hash does not promise.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

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

// The hash of an RGBA8 image and the digest of a run: its gauges (name and value, in
// order), the pixel hash and the trace hash. Every lane and every replay computes it the same way.
std::string pixel_hash(int width, int height, std::span<const uint8_t> pixels);
// The digest of a run's trace bytes (XXH3, 64 bits, as hex): part of the run digest, so parity
// covers the trace too.
std::string trace_hash(std::string_view trace_bytes);
std::string run_digest(std::span<const std::pair<std::string, int64_t>> gauges, std::string_view pixel_hash,
                       std::string_view trace_hash);

}  // namespace tidemark
