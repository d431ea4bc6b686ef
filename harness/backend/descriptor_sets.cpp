#include "backend/descriptor_sets.h"

#include <algorithm>

namespace tidemark::backend {

Result<DescriptorSets::Allocation> DescriptorSets::allocate() {
  while (cursor_ < pools_.size() && pools_[cursor_].live == kSetsPerPool) ++cursor_;
  if (cursor_ == pools_.size()) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, kSetsPerPool};
    VkDescriptorPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    TIDEMARK_TRY(pool, vk::DescriptorPool::create(device_, vkCreateDescriptorPool, info, "vkCreateDescriptorPool"));
    pools_.push_back({std::move(pool), 0});
  }
  Pool& pool = pools_[cursor_];
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = pool.pool.get();
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (auto ok = vk::check(vkAllocateDescriptorSets(device_, &alloc, &set), "vkAllocateDescriptorSets"); !ok)
    return std::unexpected(ok.error());
  ++pool.live;
  ++allocated_total_;
  live_peak_ = std::max(live_peak_, ++live_);
  return Allocation{set, cursor_};
}

void DescriptorSets::free(const Allocation& allocation) {
  Pool& pool = pools_[allocation.pool];
  vkFreeDescriptorSets(device_, pool.pool.get(), 1, &allocation.set);
  --pool.live;
  --live_;
  cursor_ = std::min(cursor_, allocation.pool);
}

void DescriptorSets::reset() {
  for (auto& pool : pools_) {
    vkResetDescriptorPool(device_, pool.pool.get(), 0);
    pool.live = 0;
  }
  cursor_ = 0;
  live_ = 0;
}

}  // namespace tidemark::backend
