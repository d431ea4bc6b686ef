// VK_LAYER_TIDEMARK_observe: a Vulkan layer of Tidemark's own, between any Vulkan program and
// its driver, that counts what the program holds (buffers, images, device memory with its
// bytes, descriptor pools and sets, submits) independently of the program's own report. Written to the loader's layer
// interface (vkNegotiateLoaderLayerInterfaceVersion, the create-info link chain, one dispatch
// table per instance and device); enabled per process with VK_ADD_LAYER_PATH and
// VK_INSTANCE_LAYERS, never installed. When TIDEMARK_LAYER_REPORT names a file, the gauges are
// written there as JSON each time the process's last live device is destroyed: they are the
// process's, over every device it made (per-device gauges and the model host's events are the
// next part of issue 21).
//
// Thread-safe: one mutex over the tables and counters (a driver may call from its threads).
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <span>
#include <string_view>
#include <unordered_map>

namespace {

// A live and a peak count, and for memory the bytes: running maxima, because the defect the
// layer exists for lives inside one frame.
struct Gauge {
  int64_t live = 0;
  int64_t peak = 0;
  int64_t total = 0;
  void add(int64_t count = 1) {
    live += count;
    total += count;
    peak = std::max(peak, live);
  }
  void remove(int64_t count = 1) { live -= count; }
};

struct InstanceTable {
  PFN_vkGetInstanceProcAddr get_proc = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
};

struct DeviceTable {
  PFN_vkGetDeviceProcAddr get_proc = nullptr;
  PFN_vkDestroyDevice destroy = nullptr;
  PFN_vkCreateBuffer create_buffer = nullptr;
  PFN_vkDestroyBuffer destroy_buffer = nullptr;
  PFN_vkCreateImage create_image = nullptr;
  PFN_vkDestroyImage destroy_image = nullptr;
  PFN_vkAllocateMemory allocate_memory = nullptr;
  PFN_vkFreeMemory free_memory = nullptr;
  PFN_vkQueueSubmit queue_submit = nullptr;
  PFN_vkCreateDescriptorPool create_descriptor_pool = nullptr;
  PFN_vkDestroyDescriptorPool destroy_descriptor_pool = nullptr;
  PFN_vkResetDescriptorPool reset_descriptor_pool = nullptr;
  PFN_vkAllocateDescriptorSets allocate_descriptor_sets = nullptr;
  PFN_vkFreeDescriptorSets free_descriptor_sets = nullptr;
};

// Dispatchable handles share their loader dispatch pointer with the object that made them:
// a queue's key is its device's.
void* key_of(const void* dispatchable) { return *static_cast<void* const*>(dispatchable); }

class Observer {
 public:
  static Observer& get() {
    static Observer observer;  // lives as long as the library
    return observer;
  }
  std::mutex mutex;
  std::unordered_map<void*, InstanceTable> instances;
  std::unordered_map<void*, DeviceTable> devices;
  std::unordered_map<VkDeviceMemory, VkDeviceSize> memory_sizes;
  std::unordered_map<VkDescriptorPool, int64_t> pool_sets;  // live sets per pool: a reset or destroy frees them
  Gauge buffers, images, allocations, bytes, submits, descriptor_pools, descriptor_sets;

  // The gauges as JSON, to TIDEMARK_LAYER_REPORT (caller holds the mutex).
  void write_report() const {
    const char* path = std::getenv("TIDEMARK_LAYER_REPORT");
    if (!path || !*path) return;
    auto gauge = [](const Gauge& g) { return nlohmann::json{{"live", g.live}, {"peak", g.peak}, {"total", g.total}}; };
    nlohmann::json report{{"layer", "VK_LAYER_TIDEMARK_observe"},
                          {"buffers", gauge(buffers)},
                          {"images", gauge(images)},
                          {"memory_allocations", gauge(allocations)},
                          {"memory_bytes", gauge(bytes)},
                          {"descriptor_pools", gauge(descriptor_pools)},
                          {"descriptor_sets", gauge(descriptor_sets)},
                          {"queue_submits", submits.total}};
    std::ofstream(path) << report.dump(2) << '\n';
  }
};

const VkLayerInstanceCreateInfo* instance_link(const VkInstanceCreateInfo* info) {
  auto* chain = static_cast<const VkLayerInstanceCreateInfo*>(info->pNext);
  while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
    chain = static_cast<const VkLayerInstanceCreateInfo*>(chain->pNext);
  return chain;
}

const VkLayerDeviceCreateInfo* device_link(const VkDeviceCreateInfo* info) {
  auto* chain = static_cast<const VkLayerDeviceCreateInfo*>(info->pNext);
  while (chain && !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
    chain = static_cast<const VkLayerDeviceCreateInfo*>(chain->pNext);
  return chain;
}

// The next layer's functions for the device a call is on. The loader hands a layer only the
// devices it created; anything else has no next function to call, so it ends the process with
// a line rather than an exception through the C interface.
DeviceTable device_table(const void* dispatchable) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  auto found = o.devices.find(key_of(dispatchable));
  if (found == o.devices.end()) {
    std::fputs("VK_LAYER_TIDEMARK_observe: a call on a device the layer did not see created\n", stderr);
    std::abort();
  }
  return found->second;
}

// --- instance -----------------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* allocator,
                                              VkInstance* instance) {
  auto* link = const_cast<VkLayerInstanceCreateInfo*>(instance_link(info));
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_get = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer down sees its own link
  auto create = reinterpret_cast<PFN_vkCreateInstance>(next_get(VK_NULL_HANDLE, "vkCreateInstance"));
  VkResult result = create(info, allocator, instance);
  if (result != VK_SUCCESS) return result;
  InstanceTable table{next_get,
                      reinterpret_cast<PFN_vkDestroyInstance>(next_get(*instance, "vkDestroyInstance"))};
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  o.instances[key_of(*instance)] = table;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* allocator) {
  InstanceTable table;
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    auto found = o.instances.find(key_of(instance));
    if (found == o.instances.end()) return;
    table = found->second;
    o.instances.erase(found);
  }
  table.destroy(instance, allocator);
}

// --- device -------------------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkDevice* device) {
  auto* link = const_cast<VkLayerDeviceCreateInfo*>(device_link(info));
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_instance_get = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_get = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateDevice>(next_instance_get(VK_NULL_HANDLE, "vkCreateDevice"));
  VkResult result = create(physical, info, allocator, device);
  if (result != VK_SUCCESS) return result;
  auto get = [&](const char* name) { return next_get(*device, name); };
  DeviceTable table;
  table.get_proc = next_get;
  table.destroy = reinterpret_cast<PFN_vkDestroyDevice>(get("vkDestroyDevice"));
  table.create_buffer = reinterpret_cast<PFN_vkCreateBuffer>(get("vkCreateBuffer"));
  table.destroy_buffer = reinterpret_cast<PFN_vkDestroyBuffer>(get("vkDestroyBuffer"));
  table.create_image = reinterpret_cast<PFN_vkCreateImage>(get("vkCreateImage"));
  table.destroy_image = reinterpret_cast<PFN_vkDestroyImage>(get("vkDestroyImage"));
  table.allocate_memory = reinterpret_cast<PFN_vkAllocateMemory>(get("vkAllocateMemory"));
  table.free_memory = reinterpret_cast<PFN_vkFreeMemory>(get("vkFreeMemory"));
  table.queue_submit = reinterpret_cast<PFN_vkQueueSubmit>(get("vkQueueSubmit"));
  table.create_descriptor_pool = reinterpret_cast<PFN_vkCreateDescriptorPool>(get("vkCreateDescriptorPool"));
  table.destroy_descriptor_pool = reinterpret_cast<PFN_vkDestroyDescriptorPool>(get("vkDestroyDescriptorPool"));
  table.reset_descriptor_pool = reinterpret_cast<PFN_vkResetDescriptorPool>(get("vkResetDescriptorPool"));
  table.allocate_descriptor_sets = reinterpret_cast<PFN_vkAllocateDescriptorSets>(get("vkAllocateDescriptorSets"));
  table.free_descriptor_sets = reinterpret_cast<PFN_vkFreeDescriptorSets>(get("vkFreeDescriptorSets"));
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  o.devices[key_of(*device)] = table;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
  DeviceTable table;
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    auto found = o.devices.find(key_of(device));
    if (found == o.devices.end()) return;
    table = found->second;
    o.devices.erase(found);
    if (o.devices.empty()) o.write_report();
  }
  table.destroy(device, allocator);
}

// Changes the observer's counts under its lock.
template <class Change>
void count(Change change) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  change(o);
}

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkBuffer* buffer) {
  VkResult result = device_table(device).create_buffer(device, info, allocator, buffer);
  if (result == VK_SUCCESS) count([](Observer& o) { o.buffers.add(); });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* allocator) {
  device_table(device).destroy_buffer(device, buffer, allocator);
  if (buffer != VK_NULL_HANDLE) count([](Observer& o) { o.buffers.remove(); });
}

VKAPI_ATTR VkResult VKAPI_CALL CreateImage(VkDevice device, const VkImageCreateInfo* info,
                                           const VkAllocationCallbacks* allocator, VkImage* image) {
  VkResult result = device_table(device).create_image(device, info, allocator, image);
  if (result == VK_SUCCESS) count([](Observer& o) { o.images.add(); });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* allocator) {
  device_table(device).destroy_image(device, image, allocator);
  if (image != VK_NULL_HANDLE) count([](Observer& o) { o.images.remove(); });
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                              const VkAllocationCallbacks* allocator, VkDeviceMemory* memory) {
  VkResult result = device_table(device).allocate_memory(device, info, allocator, memory);
  if (result != VK_SUCCESS) return result;
  count([&](Observer& o) {
    o.memory_sizes[*memory] = info->allocationSize;
    o.allocations.add();
    o.bytes.add(static_cast<int64_t>(info->allocationSize));
  });
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* allocator) {
  device_table(device).free_memory(device, memory, allocator);
  count([&](Observer& o) {
    auto found = o.memory_sizes.find(memory);
    if (found == o.memory_sizes.end()) return;  // VK_NULL_HANDLE, or not ours
    o.allocations.remove();
    o.bytes.remove(static_cast<int64_t>(found->second));
    o.memory_sizes.erase(found);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t submit_count, const VkSubmitInfo* submits,
                                           VkFence fence) {
  VkResult result = device_table(queue).queue_submit(queue, submit_count, submits, fence);
  if (result == VK_SUCCESS) count([](Observer& o) { o.submits.add(); });
  return result;
}

// Descriptor pools and their sets: a pool's reset or destruction frees every set it holds.
VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo* info,
                                                    const VkAllocationCallbacks* allocator, VkDescriptorPool* pool) {
  VkResult result = device_table(device).create_descriptor_pool(device, info, allocator, pool);
  if (result == VK_SUCCESS) count([&](Observer& o) {
      o.pool_sets[*pool] = 0;
      o.descriptor_pools.add();
    });
  return result;
}

// The sets of `pool` are dead (caller holds the lock).
void free_pool_sets(Observer& o, VkDescriptorPool pool) {
  auto found = o.pool_sets.find(pool);
  if (found == o.pool_sets.end()) return;
  o.descriptor_sets.remove(found->second);
  found->second = 0;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                 const VkAllocationCallbacks* allocator) {
  device_table(device).destroy_descriptor_pool(device, pool, allocator);
  count([&](Observer& o) {
    if (!o.pool_sets.contains(pool)) return;  // VK_NULL_HANDLE, or not ours
    free_pool_sets(o, pool);
    o.pool_sets.erase(pool);
    o.descriptor_pools.remove();
  });
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                   VkDescriptorPoolResetFlags flags) {
  VkResult result = device_table(device).reset_descriptor_pool(device, pool, flags);
  if (result == VK_SUCCESS) count([&](Observer& o) { free_pool_sets(o, pool); });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* info,
                                                      VkDescriptorSet* sets) {
  VkResult result = device_table(device).allocate_descriptor_sets(device, info, sets);
  if (result == VK_SUCCESS) count([&](Observer& o) {
      o.pool_sets[info->descriptorPool] += info->descriptorSetCount;
      o.descriptor_sets.add(info->descriptorSetCount);
    });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL FreeDescriptorSets(VkDevice device, VkDescriptorPool pool, uint32_t set_count,
                                                  const VkDescriptorSet* sets) {
  VkResult result = device_table(device).free_descriptor_sets(device, pool, set_count, sets);
  if (result != VK_SUCCESS) return result;
  int64_t freed = 0;
  for (uint32_t i = 0; i < set_count; ++i) freed += sets[i] != VK_NULL_HANDLE ? 1 : 0;
  count([&](Observer& o) {
    o.pool_sets[pool] -= freed;
    o.descriptor_sets.remove(freed);
  });
  return result;
}

// --- lookup -------------------------------------------------------------------------------

struct Intercept {
  std::string_view name;
  PFN_vkVoidFunction function;
};
#define TIDEMARK_INTERCEPT(name) Intercept{"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name)}
const Intercept kDeviceIntercepts[] = {
    TIDEMARK_INTERCEPT(DestroyDevice), TIDEMARK_INTERCEPT(CreateBuffer),   TIDEMARK_INTERCEPT(DestroyBuffer),
    TIDEMARK_INTERCEPT(CreateImage),   TIDEMARK_INTERCEPT(DestroyImage),   TIDEMARK_INTERCEPT(AllocateMemory),
    TIDEMARK_INTERCEPT(FreeMemory),    TIDEMARK_INTERCEPT(QueueSubmit),
    TIDEMARK_INTERCEPT(CreateDescriptorPool), TIDEMARK_INTERCEPT(DestroyDescriptorPool),
    TIDEMARK_INTERCEPT(ResetDescriptorPool),  TIDEMARK_INTERCEPT(AllocateDescriptorSets),
    TIDEMARK_INTERCEPT(FreeDescriptorSets),
};
const Intercept kInstanceIntercepts[] = {TIDEMARK_INTERCEPT(CreateInstance), TIDEMARK_INTERCEPT(DestroyInstance),
                                         TIDEMARK_INTERCEPT(CreateDevice)};
#undef TIDEMARK_INTERCEPT

PFN_vkVoidFunction find(std::span<const Intercept> table, const char* name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.function;
  return nullptr;
}

}  // namespace

extern "C" {

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetDeviceProcAddr(VkDevice device, const char* name);

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetInstanceProcAddr(VkInstance instance,
                                                                                   const char* name) {
  if (std::string_view(name) == "vkGetInstanceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetInstanceProcAddr);
  if (std::string_view(name) == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetDeviceProcAddr);
  if (auto own = find(kInstanceIntercepts, name)) return own;
  if (auto own = find(kDeviceIntercepts, name)) return own;
  if (instance == VK_NULL_HANDLE) return nullptr;
  Observer& o = Observer::get();
  PFN_vkGetInstanceProcAddr next = nullptr;
  {
    std::lock_guard lock(o.mutex);
    auto found = o.instances.find(key_of(instance));
    if (found == o.instances.end()) return nullptr;
    next = found->second.get_proc;
  }
  return next(instance, name);
}

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::string_view(name) == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetDeviceProcAddr);
  if (auto own = find(kDeviceIntercepts, name)) return own;
  Observer& o = Observer::get();
  PFN_vkGetDeviceProcAddr next = nullptr;
  {
    std::lock_guard lock(o.mutex);
    auto found = o.devices.find(key_of(device));
    if (found == o.devices.end()) return nullptr;
    next = found->second.get_proc;
  }
  return next(device, name);
}

// The loader asks which interface version the layer speaks (2: it hands us the link chain and
// takes our two GetProcAddr entry points from here).
VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (version->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
  if (version->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = &tidemark_GetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = &tidemark_GetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

}  // extern "C"
