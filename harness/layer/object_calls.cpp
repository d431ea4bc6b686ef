// The layer's intercepts of descriptor pools and sets, of command pools and buffers, and of the
// draw commands recorded into them (drop_draw).
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

// --- draw commands (only on a device under drop_draw) ----------------------------------------

// Whether this draw is the one drop_draw loses: the device's Nth recorded, counted in the order
// the driver records them. The command buffer is left as if the draw had been recorded, so the
// driver goes on and only what it draws changes, as when a driver loses a draw of its own.
bool dropped(VkCommandBuffer commands) {
  const DeviceState& device = next_state(commands);
  return device.draws_recorded.fetch_add(1, std::memory_order_relaxed) + 1 == device.settings.drop_draw;
}

VKAPI_ATTR void VKAPI_CALL CmdDraw(VkCommandBuffer commands, uint32_t vertices, uint32_t instances,
                                   uint32_t first_vertex, uint32_t first_instance) {
  if (!dropped(commands)) next_of(commands).CmdDraw(commands, vertices, instances, first_vertex, first_instance);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexed(VkCommandBuffer commands, uint32_t indices, uint32_t instances,
                                          uint32_t first_index, int32_t vertex_offset, uint32_t first_instance) {
  if (!dropped(commands))
    next_of(commands).CmdDrawIndexed(commands, indices, instances, first_index, vertex_offset, first_instance);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndirect(VkCommandBuffer commands, VkBuffer buffer, VkDeviceSize offset,
                                           uint32_t draws, uint32_t stride) {
  if (!dropped(commands)) next_of(commands).CmdDrawIndirect(commands, buffer, offset, draws, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexedIndirect(VkCommandBuffer commands, VkBuffer buffer, VkDeviceSize offset,
                                                  uint32_t draws, uint32_t stride) {
  if (!dropped(commands)) next_of(commands).CmdDrawIndexedIndirect(commands, buffer, offset, draws, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndirectCount(VkCommandBuffer commands, VkBuffer buffer, VkDeviceSize offset,
                                                VkBuffer count_buffer, VkDeviceSize count_offset, uint32_t max_draws,
                                                uint32_t stride) {
  if (!dropped(commands))
    next_of(commands).CmdDrawIndirectCount(commands, buffer, offset, count_buffer, count_offset, max_draws, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawIndexedIndirectCount(VkCommandBuffer commands, VkBuffer buffer, VkDeviceSize offset,
                                                       VkBuffer count_buffer, VkDeviceSize count_offset,
                                                       uint32_t max_draws, uint32_t stride) {
  if (!dropped(commands))
    next_of(commands).CmdDrawIndexedIndirectCount(commands, buffer, offset, count_buffer, count_offset, max_draws,
                                                  stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiEXT(VkCommandBuffer commands, uint32_t draws, const VkMultiDrawInfoEXT* info,
                                           uint32_t instances, uint32_t first_instance, uint32_t stride) {
  if (!dropped(commands)) next_of(commands).CmdDrawMultiEXT(commands, draws, info, instances, first_instance, stride);
}

VKAPI_ATTR void VKAPI_CALL CmdDrawMultiIndexedEXT(VkCommandBuffer commands, uint32_t draws,
                                                  const VkMultiDrawIndexedInfoEXT* info, uint32_t instances,
                                                  uint32_t first_instance, uint32_t stride,
                                                  const int32_t* vertex_offset) {
  if (!dropped(commands))
    next_of(commands).CmdDrawMultiIndexedEXT(commands, draws, info, instances, first_instance, stride, vertex_offset);
}

}  // namespace tidemark::layer
