// The layer's intercepts of buffers, images and device memory: create, bind (with the bound
// size), destroy, allocate, free; memory reported to the host at its first bind; hold_frees,
// shadow_copies and fail_allocation.
#include "layer/observer.h"

namespace tidemark::layer {

// --- memory, buffers, images --------------------------------------------------------------

// Memory is reported to the host at its first bind, typed by what is bound to it.
void report_bound(Observer& o, DeviceState& device, VkDeviceMemory handle, MemoryType type) {
  auto found = device.memory.find(key(handle));
  if (found == device.memory.end() || found->second.reported) return;
  Memory& memory = found->second;
  memory.reported = true;
  memory.type = type;
  device.reported_bytes += static_cast<int64_t>(memory.size);
  o.event(device, TIDEMARK_EVENT_ALLOCATED, static_cast<uint32_t>(type), key(handle), memory.size);
  if (const auto* sink = device.sink(); sink && sink->memory_changed) {
    TidemarkLayerMemoryChange change{1, static_cast<uint32_t>(type), key(handle), memory.size, device.reported_bytes};
    sink->memory_changed(sink->context, &change);
  }
}

void memory_freed(Observer& o, DeviceState& device, uint64_t handle) {
  auto found = device.memory.find(handle);
  if (found == device.memory.end()) return;  // VK_NULL_HANDLE, or not ours
  const Memory memory = found->second;
  device.memory.erase(found);
  remove(device.gauges().memory);
  remove(device.gauges().memory_bytes, static_cast<int64_t>(memory.size));
  if (!memory.reported) return;
  device.reported_bytes -= static_cast<int64_t>(memory.size);
  o.event(device, TIDEMARK_EVENT_FREED, static_cast<uint32_t>(memory.type), handle, memory.size);
  if (const auto* sink = device.sink(); sink && sink->memory_changed) {
    TidemarkLayerMemoryChange change{0, static_cast<uint32_t>(memory.type), handle, memory.size, device.reported_bytes};
    sink->memory_changed(sink->context, &change);
  }
}

// A buffer only copied to or from is staging: transient memory. Anything else a GL driver
// makes a buffer for is a GL buffer.
MemoryType buffer_type(VkBufferUsageFlags usage) {
  constexpr VkBufferUsageFlags kTransfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  return (usage & ~kTransfer) == 0 ? MemoryType::Transient : MemoryType::GlBuffer;
}

// hold_frees: the destroy is kept back until the device goes (the caller counts nothing).
bool held_back(DeviceState& device, decltype(Held::kind) kind, uint64_t handle,
               const VkAllocationCallbacks* allocator) {
  if (!device.settings.hold_frees || handle == 0) return false;
  device.held.push_back({kind, handle, allocator});
  ++device.gauges().frees_held;
  return true;
}

// Makes a handle with `make` and, under shadow_copies, its copy beside it (a driver's own, that
// nothing binds and that goes when the original does); `count` counts each one made.
template <class Handle, class Make, class Count>
VkResult made_with_copy(VkDevice device, Handle* made, Make make, Count count,
                        std::source_location where = std::source_location::current()) {
  VkResult result = make(made);
  if (result != VK_SUCCESS) return result;
  Handle copy = VK_NULL_HANDLE;
  if (next_state(device).settings.shadow_copies && make(&copy) != VK_SUCCESS) copy = VK_NULL_HANDLE;
  with_device(
      device,
      [&](Observer&, DeviceState& d) {
        for (Handle each : {*made, copy})
          if (each != VK_NULL_HANDLE) count(d, each);
        if (copy != VK_NULL_HANDLE) d.shadows[key(*made)] = key(copy);
      },
      where);
  return result;
}

// The original's copy, taken out of the table (0: none).
uint64_t copy_taken(VkDevice device, uint64_t original, std::source_location where = std::source_location::current()) {
  return with_device(
      device,
      [&](Observer&, DeviceState& d) -> uint64_t {
        auto found = d.shadows.find(original);
        if (found == d.shadows.end()) return 0;
        const uint64_t copy = found->second;
        d.shadows.erase(found);
        return copy;
      },
      where);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkBuffer* buffer) {
  return made_with_copy(
      device, buffer, [&](VkBuffer* out) { return next_of(device).CreateBuffer(device, info, allocator, out); },
      [&](DeviceState& d, VkBuffer made) {
        d.buffers[key(made)] = {info->size, buffer_type(info->usage), false};
        add(d.gauges().buffers);
      });
}

// The resource is gone: its count and the bytes bound for it.
void resource_gone(DeviceState& device, HandleMap<Resource>& table, TidemarkLayerCount& count, uint64_t handle) {
  auto found = table.find(handle);
  if (found == table.end()) return;
  if (found->second.bound) remove(device.gauges().bound_bytes, static_cast<int64_t>(found->second.size));
  table.erase(found);
  remove(count);
}

// A destroy cannot fail: it is counted, or held back, before it is passed down (one lock).
// True: the caller passes it down.
bool passes_destroy(VkDevice device, decltype(Held::kind) kind, uint64_t handle, const VkAllocationCallbacks* allocator,
                    std::source_location where = std::source_location::current()) {
  return !with_device(
      device,
      [&](Observer&, DeviceState& d) {
        if (held_back(d, kind, handle, allocator)) return true;
        if (kind == Held::Buffer)
          resource_gone(d, d.buffers, d.gauges().buffers, handle);
        else
          resource_gone(d, d.images, d.gauges().images, handle);
        return false;
      },
      where);
}

VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* allocator) {
  if (passes_destroy(device, Held::Buffer, key(buffer), allocator))
    next_of(device).DestroyBuffer(device, buffer, allocator);
  if (const uint64_t copy = copy_taken(device, key(buffer));
      copy != 0 && passes_destroy(device, Held::Buffer, copy, allocator))
    next_of(device).DestroyBuffer(device, reinterpret_cast<VkBuffer>(copy), allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* info,
                                           const VkAllocationCallbacks* allocator, VkImage* image) {
  const DeviceTable& next = next_of(device);
  VkResult result = next.CreateImage(device, info, allocator, image);
  if (result != VK_SUCCESS) return result;
  VkMemoryRequirements needs{};
  next.GetImageMemoryRequirements(device, *image, &needs);
  with_device(device, [&](Observer&, DeviceState& d) {
    d.images[key(*image)] = {needs.size, MemoryType::GlTexture, false};
    add(d.gauges().images);
  });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* allocator) {
  if (passes_destroy(device, Held::Image, key(image), allocator))
    next_of(device).DestroyImage(device, image, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                              const VkAllocationCallbacks* allocator, VkDeviceMemory* memory) {
  const uint64_t fail_at = next_state(device).settings.fail_allocation;
  if (fail_at != 0 && with_device(device, [&](Observer&, DeviceState& d) {
        if (++d.allocations_tried != fail_at) return false;
        ++d.gauges().allocations_refused;
        return true;
      }))
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  return made_with_copy(
      device, memory, [&](VkDeviceMemory* out) { return next_of(device).AllocateMemory(device, info, allocator, out); },
      [&](DeviceState& d, VkDeviceMemory made) {
        d.memory[key(made)] = {info->allocationSize, MemoryType::Unknown, false};
        add(d.gauges().memory);
        add(d.gauges().memory_bytes, static_cast<int64_t>(info->allocationSize));
      });
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* allocator) {
  auto free_one = [&](uint64_t handle) {
    bool held = with_device(device, [&](Observer& o, DeviceState& d) {
      if (held_back(d, Held::Memory, handle, allocator)) return true;
      memory_freed(o, d, handle);
      return false;
    });
    if (!held) next_of(device).FreeMemory(device, reinterpret_cast<VkDeviceMemory>(handle), allocator);
  };
  const uint64_t copy = copy_taken(device, key(memory));
  free_one(key(memory));  // passed down as given, even when null
  if (copy != 0) free_one(copy);
}

void bound(Observer& o, DeviceState& device, HandleMap<Resource>& table, uint64_t resource, VkDeviceMemory memory) {
  auto found = table.find(resource);
  if (found == table.end()) return;
  if (!found->second.bound) add(device.gauges().bound_bytes, static_cast<int64_t>(found->second.size));
  found->second.bound = true;
  report_bound(o, device, memory, found->second.type);
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory(VkDevice device, VkBuffer buffer, VkDeviceMemory memory,
                                                VkDeviceSize offset) {
  VkResult result = next_of(device).BindBufferMemory(device, buffer, memory, offset);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer& o, DeviceState& d) { bound(o, d, d.buffers, key(buffer), memory); });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory(VkDevice device, VkImage image, VkDeviceMemory memory,
                                               VkDeviceSize offset) {
  VkResult result = next_of(device).BindImageMemory(device, image, memory, offset);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer& o, DeviceState& d) { bound(o, d, d.images, key(image), memory); });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2(VkDevice device, uint32_t count, const VkBindBufferMemoryInfo* infos) {
  VkResult result = next_of(device).BindBufferMemory2(device, count, infos);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer& o, DeviceState& d) {
      for (const auto& info : std::span(infos, count)) bound(o, d, d.buffers, key(info.buffer), info.memory);
    });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory2(VkDevice device, uint32_t count, const VkBindImageMemoryInfo* infos) {
  VkResult result = next_of(device).BindImageMemory2(device, count, infos);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer& o, DeviceState& d) {
      for (const auto& info : std::span(infos, count)) bound(o, d, d.images, key(info.image), info.memory);
    });
  return result;
}

}  // namespace tidemark::layer
