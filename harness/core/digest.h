// A stable 64-bit digest (FNV-1a) for gauges and pixels: identical across runs, lanes
// and machines, which std::hash does not promise.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

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

}  // namespace tidemark
