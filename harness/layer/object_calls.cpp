// The layer's intercepts of descriptor pools and sets and of command pools and buffers.
#include "layer/observer.h"

namespace tidemark::layer {

// --- descriptor pools and sets, command pools and buffers ----------------------------------

// A pool's reset or destruction frees every set (or command buffer) it holds.
void pool_freed(HandleMap<int64_t>& pools, TidemarkLayerCount& count, uint64_t pool) {
  auto found = pools.find(pool);
  if (found == pools.end()) return;
  remove(count, found->second);
  found->second = 0;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo* info,
                                                    const VkAllocationCallbacks* allocator, VkDescriptorPool* pool) {
  VkResult result = next_of(device).CreateDescriptorPool(device, info, allocator, pool);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_sets[key(*pool)] = 0;
      add(d.gauges().descriptor_pools);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                 const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyDescriptorPool(device, pool, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    if (!d.pool_sets.contains(key(pool))) return;  // VK_NULL_HANDLE, or not ours
    pool_freed(d.pool_sets, d.gauges().descriptor_sets, key(pool));
    d.pool_sets.erase(key(pool));
    remove(d.gauges().descriptor_pools);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                   VkDescriptorPoolResetFlags flags) {
  VkResult result = next_of(device).ResetDescriptorPool(device, pool, flags);
  if (result == VK_SUCCESS)
    with_device(device,
                [&](Observer&, DeviceState& d) { pool_freed(d.pool_sets, d.gauges().descriptor_sets, key(pool)); });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* info,
                                                      VkDescriptorSet* sets) {
  VkResult result = next_of(device).AllocateDescriptorSets(device, info, sets);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_sets[key(info->descriptorPool)] += info->descriptorSetCount;
      add(d.gauges().descriptor_sets, info->descriptorSetCount);
    });
  return result;
}

int64_t non_null(std::span<const uint64_t> handles) {
  return static_cast<int64_t>(std::count_if(handles.begin(), handles.end(), [](uint64_t h) { return h != 0; }));
}

VKAPI_ATTR VkResult VKAPI_CALL FreeDescriptorSets(VkDevice device, VkDescriptorPool pool, uint32_t count,
                                                  const VkDescriptorSet* sets) {
  VkResult result = next_of(device).FreeDescriptorSets(device, pool, count, sets);
  if (result != VK_SUCCESS) return result;
  int64_t freed = non_null(std::span(reinterpret_cast<const uint64_t*>(sets), count));
  with_device(device, [&](Observer&, DeviceState& d) {
    d.pool_sets[key(pool)] -= freed;
    remove(d.gauges().descriptor_sets, freed);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* info,
                                                 const VkAllocationCallbacks* allocator, VkCommandPool* pool) {
  VkResult result = next_of(device).CreateCommandPool(device, info, allocator, pool);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) { d.pool_commands[key(*pool)] = 0; });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                              const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyCommandPool(device, pool, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    pool_freed(d.pool_commands, d.gauges().command_buffers, key(pool));
    d.pool_commands.erase(key(pool));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* info,
                                                      VkCommandBuffer* buffers) {
  VkResult result = next_of(device).AllocateCommandBuffers(device, info, buffers);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_commands[key(info->commandPool)] += info->commandBufferCount;
      add(d.gauges().command_buffers, info->commandBufferCount);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                              const VkCommandBuffer* buffers) {
  next_of(device).FreeCommandBuffers(device, pool, count, buffers);
  int64_t freed = non_null(std::span(reinterpret_cast<const uint64_t*>(buffers), count));
  with_device(device, [&](Observer&, DeviceState& d) {
    d.pool_commands[key(pool)] -= freed;
    remove(d.gauges().command_buffers, freed);
  });
}

}  // namespace tidemark::layer
