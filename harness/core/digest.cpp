#include "core/digest.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>

namespace tidemark {

void Digest::add(std::span<const uint8_t> bytes) {
  // FNV-1a by hand: tiny, stable and fast enough for a 192x32 image.
  for (uint8_t byte : bytes) {
    state_ ^= byte;
    state_ *= 0x100000001b3ull;
  }
}

void Digest::add(std::string_view text) { add(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())); }

void Digest::add(uint64_t value) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  add(std::span<const uint8_t>(bytes));
}

std::string Digest::hex() const { return fmt::format("{:016x}", state_); }

std::string pixel_hash(int width, int height, std::span<const uint8_t> pixels) {
  Digest digest;
  digest.add(static_cast<uint64_t>(width));
  digest.add(static_cast<uint64_t>(height));
  digest.add(pixels);
  return digest.hex();
}

struct StreamHash::State {
  XXH3_state_t* state = XXH3_createState();
  ~State() { XXH3_freeState(state); }
};

StreamHash::StreamHash() : state_(std::make_unique<State>()) { XXH3_64bits_reset(state_->state); }
StreamHash::~StreamHash() = default;
StreamHash::StreamHash(StreamHash&& other) noexcept = default;
StreamHash& StreamHash::operator=(StreamHash&& other) noexcept = default;
void StreamHash::add(std::span<const uint8_t> bytes) { XXH3_64bits_update(state_->state, bytes.data(), bytes.size()); }
uint64_t StreamHash::value() const { return XXH3_64bits_digest(state_->state); }
std::string StreamHash::hex() const { return fmt::format("{:016x}", value()); }

// XXH3 (libxxhash), not FNV-1a: a long run's trace is megabytes, which FNV, byte by byte, hashed
// in a share of the replay's time that XXH3 makes negligible.
std::string trace_hash(std::string_view trace_bytes) {
  return fmt::format("{:016x}", XXH3_64bits(trace_bytes.data(), trace_bytes.size()));
}

void RunDigestInputs::add_gauges(GaugeSource source, NamedGauges gauges) {
  gauges_[static_cast<size_t>(source)] = std::move(gauges);
}

bool RunDigestInputs::complete() const {
  return !pixel_hash_.empty() && std::ranges::any_of(gauges_, [](const NamedGauges& some) { return !some.empty(); });
}

std::string RunDigestInputs::digest() const {
  Digest digest;
  for (const NamedGauges& source : gauges_) {
    for (const auto& [name, value] : source) {
      if (value == 0) continue;  // a gauge at its default reads nothing: a new gauge changes no digest where it is 0
      digest.add(name);
      digest.add(static_cast<uint64_t>(value));
    }
  }
  digest.add(pixel_hash_);
  digest.add(trace_hash_);
  return digest.hex();
}

}  // namespace tidemark
