// Private to the backend: a VkBuffer with its own host-visible allocation, persistently
// mapped, counted in the device-memory gauges for as long as it lives.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>

#include "backend/device.h"
#include "backend/vk.h"
#include "core/memory_type.h"

namespace tidemark::backend {

// Device memory the backend holds, counted for the gauges and reported, allocation by
// allocation, to whoever observes it (the kernel model).
struct MemoryAccount {
  struct Change {
    uint64_t id;
    int64_t size;
    MemoryType type;
    bool allocated;  // false: freed
  };
  int64_t allocations = 0;
  int64_t allocations_peak = 0;
  int64_t bytes = 0;
  int64_t bytes_peak = 0;
  uint64_t next_id = 1;
  std::function<void(const Change&)> observer;

  uint64_t add(int64_t size, MemoryType type) {
    ++allocations;
    bytes += size;
    allocations_peak = std::max(allocations_peak, allocations);
    bytes_peak = std::max(bytes_peak, bytes);
    uint64_t id = next_id++;
    if (observer) observer({id, size, type, true});
    return id;
  }
  void remove(uint64_t id, int64_t size, MemoryType type) {
    --allocations;
    bytes -= size;
    if (observer) observer({id, size, type, false});
  }
};

class HostBuffer {
 public:
  static Result<HostBuffer> create(const Device& device, MemoryAccount& account, uint64_t size,
                                   VkBufferUsageFlags usage, MemoryType type);
  HostBuffer() = default;
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  ~HostBuffer();

  // backend.leaks_device_memory: the account hears of a free, the buffer and its memory live on.
  void forget_account() {
    if (account_) account_->remove(id_, static_cast<int64_t>(allocated_), type_);
    account_ = nullptr;
  }

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
  uint64_t id_ = 0;
  MemoryType type_ = MemoryType::Unknown;
  MemoryAccount* account_ = nullptr;
};

}  // namespace tidemark::backend
