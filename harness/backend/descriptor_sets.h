// Private to the backend: uniform descriptor sets from growable pools, freed one by one
// when the store they point at dies (its last submit has retired), or all at a frame
// boundary.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/vk.h"

namespace tidemark::backend {

class DescriptorSets {
 public:
  DescriptorSets() = default;
  DescriptorSets(VkDevice device, VkDescriptorSetLayout layout) : device_(device), layout_(layout) {}

  struct Allocation {
    VkDescriptorSet set = VK_NULL_HANDLE;
    size_t pool = 0;
  };
  Result<Allocation> allocate();
  void free(const Allocation& allocation);
  void reset();  // every set is dead: the frame retired

  int64_t live() const { return live_; }
  int64_t live_peak() const { return live_peak_; }
  int64_t allocated_total() const { return allocated_total_; }

 private:
  static constexpr uint32_t kSetsPerPool = 1024;
  struct Pool {
    vk::DescriptorPool pool;
    uint32_t live = 0;
  };
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout layout_ = VK_NULL_HANDLE;
  std::vector<Pool> pools_;
  size_t cursor_ = 0;  // the first pool that may have room
  int64_t live_ = 0;
  int64_t live_peak_ = 0;
  int64_t allocated_total_ = 0;
};

}  // namespace tidemark::backend
