// Private to the backend: a VkBuffer with its own host-visible allocation, persistently
// mapped, counted in the device-memory gauges for as long as it lives.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "backend/device.h"
#include "backend/vk.h"

namespace tidemark::backend {

struct MemoryAccount {
  int64_t allocations = 0;
  int64_t allocations_peak = 0;
  int64_t bytes = 0;
  int64_t bytes_peak = 0;

  void add(int64_t size) {
    ++allocations;
    bytes += size;
    allocations_peak = std::max(allocations_peak, allocations);
    bytes_peak = std::max(bytes_peak, bytes);
  }
  void remove(int64_t size) {
    --allocations;
    bytes -= size;
  }
};

class HostBuffer {
 public:
  static Result<HostBuffer> create(const Device& device, MemoryAccount& account, uint64_t size,
                                   VkBufferUsageFlags usage);
  HostBuffer() = default;
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  ~HostBuffer();

  VkBuffer buffer() const { return buffer_.get(); }
  uint64_t size() const { return size_; }
  std::span<uint8_t> bytes() const { return {mapped_, static_cast<size_t>(size_)}; }

 private:
  void release();

  vk::Buffer buffer_;
  vk::Memory memory_;
  uint8_t* mapped_ = nullptr;
  uint64_t size_ = 0;
  uint64_t allocated_ = 0;
  MemoryAccount* account_ = nullptr;
};

}  // namespace tidemark::backend
