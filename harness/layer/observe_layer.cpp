// VK_LAYER_TIDEMARK_observe: a Vulkan layer of Tidemark's own, between any Vulkan program and
// its driver. It counts what the program holds (buffers, images, device memory and what is
// bound to it, descriptor pools and sets, command buffers, submits, completion queries),
// reports memory changes and submits to a model host, decides what the program is shown of GPU
// progress (completion.h), and injects faults at the Vulkan boundary. tidemark_layer.h is its
// interface to a host in the same process; without one it writes its report for `tidemark
// observe`.
//
// Written to the loader's layer interface (vkNegotiateLoaderLayerInterfaceVersion, the
// create-info link chain, one dispatch table per instance and device); enabled per process
// with VK_ADD_LAYER_PATH and VK_INSTANCE_LAYERS (or an instance's enabled layers), never
// installed. Thread-safe: one lock over the state (a driver may call from its own threads),
// never held across a call into the driver that can block.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/memory_type.h"
#include "layer/completion.h"
#include "layer/settings.h"
#include "layer/tidemark_layer.h"

namespace {

using tidemark::MemoryType;
using tidemark::layer::CompletionRule;

constexpr uint64_t kKernelBudgetNs = 1'000'000'000;  // virtual: the kernel's time for a blocking wait

void add(TidemarkLayerCount& count, int64_t n = 1) {
  count.live += n;
  count.total += n;
  count.peak = std::max(count.peak, count.live);
}
void remove(TidemarkLayerCount& count, int64_t n = 1) { count.live -= n; }

template <class T>
uint64_t key(T handle) {
  return reinterpret_cast<uint64_t>(handle);  // non-dispatchable handles are 64-bit here
}

// Dispatchable handles share their loader dispatch pointer with the object that made them:
// a queue's and a command buffer's key is their device's.
void* dispatch_key(const void* dispatchable) { return *static_cast<void* const*>(dispatchable); }

#define TIDEMARK_DEVICE_FUNCTIONS(X)                                                          \
  X(DestroyDevice) X(CreateBuffer) X(DestroyBuffer) X(CreateImage) X(DestroyImage)             \
  X(AllocateMemory) X(FreeMemory) X(BindBufferMemory)             \
  X(BindImageMemory) X(BindBufferMemory2) X(BindImageMemory2) X(CreateDescriptorPool)           \
  X(DestroyDescriptorPool) X(ResetDescriptorPool) X(AllocateDescriptorSets) X(FreeDescriptorSets) \
  X(CreateCommandPool) X(DestroyCommandPool) X(AllocateCommandBuffers) X(FreeCommandBuffers)    \
  X(QueueSubmit) X(QueueSubmit2) X(ResetFences) X(DestroyFence) X(GetFenceStatus) X(WaitForFences) \
  X(CreateSemaphore) X(DestroySemaphore) X(SignalSemaphore) X(WaitSemaphores)                    \
  X(GetSemaphoreCounterValue) X(QueueWaitIdle)

// The next layer's functions for one device. A core name missing from a 1.1 driver is taken
// by its extension name.
struct DeviceTable {
  PFN_vkGetDeviceProcAddr GetDeviceProcAddr = nullptr;
  PFN_vkGetImageMemoryRequirements GetImageMemoryRequirements = nullptr;  // an image's bound size
#define TIDEMARK_FIELD(name) PFN_vk##name name = nullptr;
  TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_FIELD)
#undef TIDEMARK_FIELD
  void load(VkDevice device, PFN_vkGetDeviceProcAddr next) {
    GetDeviceProcAddr = next;
    auto get = [&](const char* core, const char* extension) {
      PFN_vkVoidFunction found = next(device, core);
      return found || !extension ? found : next(device, extension);
    };
#define TIDEMARK_LOAD(name) name = reinterpret_cast<PFN_vk##name>(get("vk" #name, nullptr));
    TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_LOAD)
    TIDEMARK_LOAD(GetImageMemoryRequirements)
#undef TIDEMARK_LOAD
    BindBufferMemory2 = reinterpret_cast<PFN_vkBindBufferMemory2>(get("vkBindBufferMemory2", "vkBindBufferMemory2KHR"));
    BindImageMemory2 = reinterpret_cast<PFN_vkBindImageMemory2>(get("vkBindImageMemory2", "vkBindImageMemory2KHR"));
    QueueSubmit2 = reinterpret_cast<PFN_vkQueueSubmit2>(get("vkQueueSubmit2", "vkQueueSubmit2KHR"));
    SignalSemaphore = reinterpret_cast<PFN_vkSignalSemaphore>(get("vkSignalSemaphore", "vkSignalSemaphoreKHR"));
    WaitSemaphores = reinterpret_cast<PFN_vkWaitSemaphores>(get("vkWaitSemaphores", "vkWaitSemaphoresKHR"));
    GetSemaphoreCounterValue = reinterpret_cast<PFN_vkGetSemaphoreCounterValue>(
        get("vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR"));
  }
};

struct InstanceTable {
  PFN_vkGetInstanceProcAddr get_proc = nullptr;
  PFN_vkDestroyInstance destroy = nullptr;
};

// The events file of a run without a host (tidemark observe); written as the records come.
class EventLog {
 public:
  explicit EventLog(const std::filesystem::path& path) : file_(std::fopen(path.c_str(), "wb")) {}
  ~EventLog() {
    if (file_) std::fclose(file_);
  }
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void write(uint32_t kind, uint32_t type, uint64_t id, uint64_t size) {
    if (!file_) return;
    TidemarkLayerEvent event{kind, type, id, size};
    std::fwrite(&event, sizeof event, 1, file_);
  }
  void flush() {
    if (file_) std::fflush(file_);
  }

 private:
  std::FILE* file_;
};

struct Attachment {
  uint64_t id = 0;
  std::optional<TidemarkLayerSink> sink;
  TidemarkLayerSettings settings{};
  int64_t devices = 0;
  TidemarkLayerGauges gone{};  // the summed gauges of its destroyed devices
};

struct Memory {
  VkDeviceSize size = 0;
  MemoryType type = MemoryType::Unknown;
  bool reported = false;  // reported to the host (at its first bind)
};
struct Resource {
  VkDeviceSize size = 0;  // what a bind puts on memory: a buffer's size, an image's requirement
  MemoryType type = MemoryType::GlBuffer;
  bool bound = false;
};
struct Held {
  enum { Buffer, Image, Memory } kind;
  uint64_t handle;
  const VkAllocationCallbacks* allocator;
};

struct DeviceState {
  DeviceTable next;
  uint64_t number = 0;  // in the process, from 1
  std::shared_ptr<Attachment> attachment;  // none: the process's own settings, the events file
  TidemarkLayerSettings settings{};
  CompletionRule completion{{}};
  TidemarkLayerGauges gauges{};
  std::unordered_map<uint64_t, Memory> memory;
  std::unordered_map<uint64_t, Resource> buffers, images;
  std::unordered_map<uint64_t, int64_t> pool_sets, pool_commands;  // what a pool's reset or destroy frees
  std::vector<Held> held;  // hold_frees
  uint64_t allocations_tried = 0;
  int64_t reported_bytes = 0;

  const TidemarkLayerSink* sink() const { return attachment && attachment->sink ? &*attachment->sink : nullptr; }
};

void sum_into(TidemarkLayerGauges& into, const TidemarkLayerGauges& g) {
  auto count = [](TidemarkLayerCount& a, const TidemarkLayerCount& b) {
    a.live += b.live;
    a.peak += b.peak;
    a.total += b.total;
  };
  count(into.buffers, g.buffers);
  count(into.images, g.images);
  count(into.memory, g.memory);
  count(into.memory_bytes, g.memory_bytes);
  count(into.bound_bytes, g.bound_bytes);
  count(into.descriptor_pools, g.descriptor_pools);
  count(into.descriptor_sets, g.descriptor_sets);
  count(into.command_buffers, g.command_buffers);
  into.submits += g.submits;
  into.polls_done += g.polls_done;
  into.polls_busy += g.polls_busy;
  into.waits_done += g.waits_done;
  into.waits_timed_out += g.waits_timed_out;
  into.waits_lost += g.waits_lost;
  into.frees_held += g.frees_held;
  into.allocations_refused += g.allocations_refused;
}

nlohmann::json to_json(const TidemarkLayerGauges& g) {
  auto count = [](const TidemarkLayerCount& c) { return nlohmann::json{{"live", c.live}, {"peak", c.peak}, {"total", c.total}}; };
  return {{"buffers", count(g.buffers)},
          {"images", count(g.images)},
          {"memory_allocations", count(g.memory)},
          {"memory_bytes", count(g.memory_bytes)},
          {"bound_bytes", count(g.bound_bytes)},
          {"descriptor_pools", count(g.descriptor_pools)},
          {"descriptor_sets", count(g.descriptor_sets)},
          {"command_buffers", count(g.command_buffers)},
          {"queue_submits", g.submits},
          {"polls", {{"done", g.polls_done}, {"busy", g.polls_busy}}},
          {"waits", {{"done", g.waits_done}, {"timed_out", g.waits_timed_out}, {"lost", g.waits_lost}}},
          {"frees_held", g.frees_held},
          {"allocations_refused", g.allocations_refused}};
}

class Observer {
 public:
  static Observer& get() {
    static Observer observer;  // lives as long as the library
    return observer;
  }

  std::mutex mutex;
  std::unordered_map<void*, InstanceTable> instances;
  std::unordered_map<void*, std::unique_ptr<DeviceState>> devices;
  std::shared_ptr<Attachment> attached;  // where devices created now report
  std::unordered_map<uint64_t, std::shared_ptr<Attachment>> attachments;  // until their detach
  uint64_t next_attachment = 0, devices_made = 0;
  // Without an attachment: the process's settings and its report folder (tidemark observe).
  std::optional<TidemarkLayerSettings> process_settings;
  std::string settings_error;
  std::filesystem::path report_dir;
  std::unique_ptr<EventLog> events;
  nlohmann::json finished = nlohmann::json::array();  // the process's destroyed devices

  Observer() {
    if (const char* text = std::getenv("TIDEMARK_LAYER_SETTINGS")) {
      auto parsed = tidemark::layer::parse_settings(text);
      if (parsed) process_settings = *parsed;
      else settings_error = parsed.error();
    } else {
      process_settings = TidemarkLayerSettings{};
    }
    if (const char* dir = std::getenv("TIDEMARK_LAYER_REPORT"); dir && *dir) {
      report_dir = dir;
      events = std::make_unique<EventLog>(report_dir / "events.bin");
    }
  }

  // Every intercepted call finds its device: a few live devices in fixed slots, read without
  // the lock (a device's slot is filled before the loader hands it out and emptied when it is
  // destroyed), so passing a call down costs no lock; more devices than slots use the map.
  static constexpr size_t kSlots = 16;
  struct Slot {
    std::atomic<void*> key{nullptr};
    std::atomic<DeviceState*> state{nullptr};
  };
  std::array<Slot, kSlots> slots;
  void publish(void* key, DeviceState* state) {  // caller holds the lock
    for (Slot& slot : slots)
      if (!slot.key.load(std::memory_order_relaxed)) {
        slot.state.store(state, std::memory_order_relaxed);
        slot.key.store(key, std::memory_order_release);
        return;
      }
  }
  void withdraw(void* key) {  // caller holds the lock
    for (Slot& slot : slots)
      if (slot.key.load(std::memory_order_relaxed) == key) slot.key.store(nullptr, std::memory_order_release);
  }
  DeviceState* find_unlocked(const void* dispatchable) {
    void* key = dispatch_key(dispatchable);
    for (Slot& slot : slots)
      if (slot.key.load(std::memory_order_acquire) == key) return slot.state.load(std::memory_order_relaxed);
    return nullptr;
  }
  DeviceState* find(const void* dispatchable) {  // caller holds the lock
    if (DeviceState* state = find_unlocked(dispatchable)) return state;
    auto found = devices.find(dispatch_key(dispatchable));
    return found == devices.end() ? nullptr : found->second.get();
  }

  void event(const DeviceState& device, uint32_t kind, uint32_t type, uint64_t id, uint64_t size) {
    if (!device.attachment && events) events->write(kind, type, id, size);
  }

  // The process's report, rewritten each time its last device goes and at exit (caller holds
  // the lock): a program that never destroys its device (eglretrace) still gets its counts.
  void write_report() {
    if (report_dir.empty()) return;
    nlohmann::json devices_json = finished;
    TidemarkLayerGauges all = finished_sum;
    for (const auto& [dispatch, device] : devices) {
      nlohmann::json entry = to_json(device->gauges);
      entry["device"] = device->number;
      entry["destroyed"] = false;
      devices_json.push_back(std::move(entry));
      sum_into(all, device->gauges);
    }
    nlohmann::json report{{"layer", TIDEMARK_LAYER_NAME}, {"devices", devices_json}, {"all", to_json(all)}};
    if (events) events->flush();
    std::ofstream(report_dir / "layer.json") << report.dump(2) << '\n';
  }
  ~Observer() {
    std::unique_lock lock(mutex, std::try_to_lock);  // a thread stopped mid-call at exit keeps it
    if (lock.owns_lock() && !devices.empty()) write_report();
  }
  TidemarkLayerGauges finished_sum{};
};

// The state of the device a call is on. The loader hands a layer only the devices it created;
// anything else has no next function to call, so it ends the process with a line rather than
// an exception through the C interface.
DeviceState& device_of(Observer& o, const void* dispatchable) {
  DeviceState* device = o.find(dispatchable);
  if (!device) {
    std::fputs(TIDEMARK_LAYER_NAME ": a call on a device the layer did not see created\n", stderr);
    std::abort();
  }
  return *device;
}

// The next layer's table (it never changes once the device is made): from the device's slot
// without the lock, else under it.
const DeviceTable& next_of(const void* dispatchable) {
  Observer& o = Observer::get();
  if (DeviceState* state = o.find_unlocked(dispatchable)) return state->next;
  std::lock_guard lock(o.mutex);
  return device_of(o, dispatchable).next;
}

// The device's state for what never changes once it is made (its settings), without the lock.
const DeviceState& next_state(const void* dispatchable) {
  Observer& o = Observer::get();
  if (DeviceState* state = o.find_unlocked(dispatchable)) return *state;
  std::lock_guard lock(o.mutex);
  return device_of(o, dispatchable);
}

// Runs `change` on the device's state under the lock.
template <class Change>
auto with_device(const void* dispatchable, Change change) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  return change(o, device_of(o, dispatchable));
}

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

template <class T>
const T* find_in_chain(const void* next, VkStructureType type) {
  for (auto* item = static_cast<const VkBaseInStructure*>(next); item; item = item->pNext)
    if (item->sType == type) return reinterpret_cast<const T*>(item);
  return nullptr;
}

// --- instance -----------------------------------------------------------------------------

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* allocator,
                                              VkInstance* instance) {
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    if (!o.settings_error.empty()) {
      std::fprintf(stderr, TIDEMARK_LAYER_NAME ": TIDEMARK_LAYER_SETTINGS: %s\n", o.settings_error.c_str());
      return VK_ERROR_INITIALIZATION_FAILED;
    }
  }
  auto* link = const_cast<VkLayerInstanceCreateInfo*>(instance_link(info));
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_get = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;  // the next layer down sees its own link
  auto create = reinterpret_cast<PFN_vkCreateInstance>(next_get(VK_NULL_HANDLE, "vkCreateInstance"));
  VkResult result = create(info, allocator, instance);
  if (result != VK_SUCCESS) return result;
  InstanceTable table{next_get, reinterpret_cast<PFN_vkDestroyInstance>(next_get(*instance, "vkDestroyInstance"))};
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  o.instances[dispatch_key(*instance)] = table;
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyInstance(VkInstance instance, const VkAllocationCallbacks* allocator) {
  InstanceTable table;
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    auto found = o.instances.find(dispatch_key(instance));
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
  auto state = std::make_unique<DeviceState>();
  state->next.load(*device, next_get);
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  state->number = ++o.devices_made;
  state->attachment = o.attached;
  state->settings = o.attached ? o.attached->settings : o.process_settings.value_or(TidemarkLayerSettings{});
  state->completion = CompletionRule({.real = state->settings.completion == TIDEMARK_COMPLETION_REAL,
                                      .never_done = state->settings.never_done != 0});
  if (o.attached) ++o.attached->devices;
  o.event(*state, TIDEMARK_EVENT_DEVICE, 0, state->number, 0);
  o.publish(dispatch_key(*device), state.get());
  o.devices[dispatch_key(*device)] = std::move(state);
  return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
  std::unique_ptr<DeviceState> state;
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    auto found = o.devices.find(dispatch_key(device));
    if (found == o.devices.end()) return;
    state = std::move(found->second);
    o.withdraw(found->first);
    o.devices.erase(found);
  }
  // What hold_frees kept back goes with the device: resources before the memory under them.
  std::stable_partition(state->held.begin(), state->held.end(), [](const Held& h) { return h.kind != Held::Memory; });
  for (const Held& held : state->held) {
    if (held.kind == Held::Buffer) state->next.DestroyBuffer(device, reinterpret_cast<VkBuffer>(held.handle), held.allocator);
    if (held.kind == Held::Image) state->next.DestroyImage(device, reinterpret_cast<VkImage>(held.handle), held.allocator);
    if (held.kind == Held::Memory) state->next.FreeMemory(device, reinterpret_cast<VkDeviceMemory>(held.handle), held.allocator);
  }
  state->next.DestroyDevice(device, allocator);
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  if (state->attachment) sum_into(state->attachment->gone, state->gauges);
  nlohmann::json entry = to_json(state->gauges);
  entry["device"] = state->number;
  entry["destroyed"] = true;
  o.finished.push_back(std::move(entry));
  sum_into(o.finished_sum, state->gauges);
  if (o.devices.empty()) o.write_report();
}

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
  remove(device.gauges.memory);
  remove(device.gauges.memory_bytes, static_cast<int64_t>(memory.size));
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
bool held_back(DeviceState& device, decltype(Held::kind) kind, uint64_t handle, const VkAllocationCallbacks* allocator) {
  if (!device.settings.hold_frees || handle == 0) return false;
  device.held.push_back({kind, handle, allocator});
  ++device.gauges.frees_held;
  return true;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice device, const VkBufferCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkBuffer* buffer) {
  VkResult result = next_of(device).CreateBuffer(device, info, allocator, buffer);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      d.buffers[key(*buffer)] = {info->size, buffer_type(info->usage), false};
      add(d.gauges.buffers);
    });
  return result;
}

// The resource is gone: its count and the bytes bound for it.
void resource_gone(DeviceState& device, std::unordered_map<uint64_t, Resource>& table, TidemarkLayerCount& count,
                   uint64_t handle) {
  auto found = table.find(handle);
  if (found == table.end()) return;
  if (found->second.bound) remove(device.gauges.bound_bytes, static_cast<int64_t>(found->second.size));
  table.erase(found);
  remove(count);
}

// A destroy cannot fail: it is counted, or held back, before it is passed down (one lock).
VKAPI_ATTR void VKAPI_CALL DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks* allocator) {
  bool held = with_device(device, [&](Observer&, DeviceState& d) {
    if (held_back(d, Held::Buffer, key(buffer), allocator)) return true;
    resource_gone(d, d.buffers, d.gauges.buffers, key(buffer));
    return false;
  });
  if (!held) next_of(device).DestroyBuffer(device, buffer, allocator);
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
    add(d.gauges.images);
  });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks* allocator) {
  bool held = with_device(device, [&](Observer&, DeviceState& d) {
    if (held_back(d, Held::Image, key(image), allocator)) return true;
    resource_gone(d, d.images, d.gauges.images, key(image));
    return false;
  });
  if (!held) next_of(device).DestroyImage(device, image, allocator);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                              const VkAllocationCallbacks* allocator, VkDeviceMemory* memory) {
  const uint64_t fail_at = next_state(device).settings.fail_allocation;
  if (fail_at != 0 && with_device(device, [&](Observer&, DeviceState& d) {
        if (++d.allocations_tried != fail_at) return false;
        ++d.gauges.allocations_refused;
        return true;
      }))
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  VkResult result = next_of(device).AllocateMemory(device, info, allocator, memory);
  if (result != VK_SUCCESS) return result;
  with_device(device, [&](Observer&, DeviceState& d) {
    d.memory[key(*memory)] = {info->allocationSize, MemoryType::Unknown, false};
    add(d.gauges.memory);
    add(d.gauges.memory_bytes, static_cast<int64_t>(info->allocationSize));
  });
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks* allocator) {
  bool held = with_device(device, [&](Observer& o, DeviceState& d) {
    if (held_back(d, Held::Memory, key(memory), allocator)) return true;
    memory_freed(o, d, key(memory));
    return false;
  });
  if (!held) next_of(device).FreeMemory(device, memory, allocator);
}

void bound(Observer& o, DeviceState& device, std::unordered_map<uint64_t, Resource>& table, uint64_t resource,
           VkDeviceMemory memory) {
  auto found = table.find(resource);
  if (found == table.end()) return;
  if (!found->second.bound) add(device.gauges.bound_bytes, static_cast<int64_t>(found->second.size));
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
  if (result == VK_SUCCESS) with_device(device, [&](Observer& o, DeviceState& d) {
      for (const auto& info : std::span(infos, count)) bound(o, d, d.buffers, key(info.buffer), info.memory);
    });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL BindImageMemory2(VkDevice device, uint32_t count, const VkBindImageMemoryInfo* infos) {
  VkResult result = next_of(device).BindImageMemory2(device, count, infos);
  if (result == VK_SUCCESS) with_device(device, [&](Observer& o, DeviceState& d) {
      for (const auto& info : std::span(infos, count)) bound(o, d, d.images, key(info.image), info.memory);
    });
  return result;
}

// --- descriptor pools and sets, command pools and buffers ----------------------------------

// A pool's reset or destruction frees every set (or command buffer) it holds.
void pool_freed(std::unordered_map<uint64_t, int64_t>& pools, TidemarkLayerCount& count, uint64_t pool) {
  auto found = pools.find(pool);
  if (found == pools.end()) return;
  remove(count, found->second);
  found->second = 0;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDescriptorPool(VkDevice device, const VkDescriptorPoolCreateInfo* info,
                                                    const VkAllocationCallbacks* allocator, VkDescriptorPool* pool) {
  VkResult result = next_of(device).CreateDescriptorPool(device, info, allocator, pool);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_sets[key(*pool)] = 0;
      add(d.gauges.descriptor_pools);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                 const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyDescriptorPool(device, pool, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    if (!d.pool_sets.contains(key(pool))) return;  // VK_NULL_HANDLE, or not ours
    pool_freed(d.pool_sets, d.gauges.descriptor_sets, key(pool));
    d.pool_sets.erase(key(pool));
    remove(d.gauges.descriptor_pools);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL ResetDescriptorPool(VkDevice device, VkDescriptorPool pool,
                                                   VkDescriptorPoolResetFlags flags) {
  VkResult result = next_of(device).ResetDescriptorPool(device, pool, flags);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) { pool_freed(d.pool_sets, d.gauges.descriptor_sets, key(pool)); });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateDescriptorSets(VkDevice device, const VkDescriptorSetAllocateInfo* info,
                                                      VkDescriptorSet* sets) {
  VkResult result = next_of(device).AllocateDescriptorSets(device, info, sets);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_sets[key(info->descriptorPool)] += info->descriptorSetCount;
      add(d.gauges.descriptor_sets, info->descriptorSetCount);
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
    remove(d.gauges.descriptor_sets, freed);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo* info,
                                                 const VkAllocationCallbacks* allocator, VkCommandPool* pool) {
  VkResult result = next_of(device).CreateCommandPool(device, info, allocator, pool);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) { d.pool_commands[key(*pool)] = 0; });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyCommandPool(device, pool, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    pool_freed(d.pool_commands, d.gauges.command_buffers, key(pool));
    d.pool_commands.erase(key(pool));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo* info,
                                                      VkCommandBuffer* buffers) {
  VkResult result = next_of(device).AllocateCommandBuffers(device, info, buffers);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      d.pool_commands[key(info->commandPool)] += info->commandBufferCount;
      add(d.gauges.command_buffers, info->commandBufferCount);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                              const VkCommandBuffer* buffers) {
  next_of(device).FreeCommandBuffers(device, pool, count, buffers);
  int64_t freed = non_null(std::span(reinterpret_cast<const uint64_t*>(buffers), count));
  with_device(device, [&](Observer&, DeviceState& d) {
    d.pool_commands[key(pool)] -= freed;
    remove(d.gauges.command_buffers, freed);
  });
}

// --- submits and completion ---------------------------------------------------------------

// One queue submit: a packet in the kernel model's ring, a number on the queue for the
// completion rule, a sample of the gauges (caller holds the lock).
void submitted(Observer& o, DeviceState& device, VkQueue queue, VkFence fence,
               std::span<const CompletionRule::Signal> signals) {
  ++device.gauges.submits;
  const TidemarkLayerSink* sink = device.sink();
  uint64_t kernel_fence = sink && sink->queue_submitted ? sink->queue_submitted(sink->context) : 0;
  // Without the kernel model the layer's own order stands in for its fences.
  if (!sink || !sink->queue_submitted) kernel_fence = static_cast<uint64_t>(device.gauges.submits);
  device.completion.submitted(key(queue), kernel_fence, key(fence), signals);
  o.event(device, TIDEMARK_EVENT_SUBMITTED, 0, key(queue), 0);
  if (sink && sink->sample) sink->sample(sink->context, &device.gauges);
}

bool is_timeline(DeviceState& device, VkSemaphore semaphore) { return device.completion.is_timeline(key(semaphore)); }

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  VkResult result = next_of(queue).QueueSubmit(queue, count, submits, fence);
  if (result != VK_SUCCESS) return result;
  with_device(queue, [&](Observer& o, DeviceState& d) {
    std::vector<CompletionRule::Signal> signals;
    for (const VkSubmitInfo& submit : std::span(submits, count)) {
      auto* values = find_in_chain<VkTimelineSemaphoreSubmitInfo>(submit.pNext,
                                                                   VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
      if (!values || !values->pSignalSemaphoreValues) continue;
      for (uint32_t i = 0; i < std::min(submit.signalSemaphoreCount, values->signalSemaphoreValueCount); ++i)
        if (is_timeline(d, submit.pSignalSemaphores[i]))
          signals.push_back({key(submit.pSignalSemaphores[i]), values->pSignalSemaphoreValues[i]});
    }
    submitted(o, d, queue, fence, signals);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits, VkFence fence) {
  VkResult result = next_of(queue).QueueSubmit2(queue, count, submits, fence);
  if (result != VK_SUCCESS) return result;
  with_device(queue, [&](Observer& o, DeviceState& d) {
    std::vector<CompletionRule::Signal> signals;
    for (const VkSubmitInfo2& submit : std::span(submits, count))
      for (const auto& signal : std::span(submit.pSignalSemaphoreInfos, submit.signalSemaphoreInfoCount))
        if (is_timeline(d, signal.semaphore)) signals.push_back({key(signal.semaphore), signal.value});
    submitted(o, d, queue, fence, signals);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ResetFences(VkDevice device, uint32_t count, const VkFence* fences) {
  VkResult result = next_of(device).ResetFences(device, count, fences);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      for (VkFence fence : std::span(fences, count)) d.completion.fence_reset(key(fence));
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyFence(device, fence, allocator);
  with_device(device, [&](Observer&, DeviceState& d) { d.completion.fence_reset(key(fence)); });
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* allocator, VkSemaphore* semaphore) {
  VkResult result = next_of(device).CreateSemaphore(device, info, allocator, semaphore);
  if (result != VK_SUCCESS) return result;
  auto* type = find_in_chain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  if (type && type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE)
    with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_created(key(*semaphore), type->initialValue); });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroySemaphore(VkDevice device, VkSemaphore semaphore, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroySemaphore(device, semaphore, allocator);
  with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_destroyed(key(semaphore)); });
}

VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphore(VkDevice device, const VkSemaphoreSignalInfo* info) {
  VkResult result = next_of(device).SignalSemaphore(device, info);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_signaled(key(info->semaphore), info->value); });
  return result;
}

// A blocking wait the driver finished: the work it reveals must have been seen by the kernel
// model, within the wait's timeout of the kernel's virtual time. An unbounded wait (a sync that
// must finish) then has the driver ring again once, as the built-in backend's syncs do; a
// bounded one times out. False: never seen.
bool kernel_saw(DeviceState& device, const std::optional<CompletionRule::Reveal>& reveal, uint64_t timeout,
                uint64_t fence, uint64_t semaphore = 0, uint64_t value = 0) {
  if (!reveal) return true;  // nothing the layer saw submitted: the driver's answer stands
  const TidemarkLayerSink* sink = device.sink();
  if (sink && sink->retired && device.settings.completion == TIDEMARK_COMPLETION_DETERMINISTIC) {
    auto need = device.completion.kernel_need(*reveal);
    if (need.refused) return false;
    auto seen = [&] { return need.fence == 0 || sink->retired(sink->context, need.fence); };
    const uint64_t budget = std::min(timeout, kKernelBudgetNs);
    if (!seen() && sink->wait_retired) sink->wait_retired(sink->context, need.fence, budget);
    if (!seen() && timeout == UINT64_MAX && sink->kick && sink->kick(sink->context) && sink->wait_retired)
      sink->wait_retired(sink->context, need.fence, budget);
    if (!seen()) return false;
  }
  device.completion.confirm(*reveal, fence, semaphore, value);
  Observer::get().event(device, TIDEMARK_EVENT_RETIRED, 0, reveal->queue, reveal->submit);
  return true;
}

// A blocking wait's answer once the kernel is asked: lost work is a timeout for a bounded
// wait, and a lost device for an unbounded one (it would never return).
VkResult wait_outcome(DeviceState& device, bool seen, uint64_t timeout) {
  if (seen) {
    ++device.gauges.waits_done;
    return VK_SUCCESS;
  }
  ++device.gauges.waits_lost;
  return timeout == UINT64_MAX ? VK_ERROR_DEVICE_LOST : VK_TIMEOUT;
}

VkResult poll_outcome(DeviceState& device, bool done) {
  ++(done ? device.gauges.polls_done : device.gauges.polls_busy);
  return done ? VK_SUCCESS : VK_NOT_READY;
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  VkResult real = next_of(device).GetFenceStatus(device, fence);
  if (real != VK_SUCCESS && real != VK_NOT_READY) return real;
  return with_device(device, [&](Observer&, DeviceState& d) {
    return poll_outcome(d, d.completion.fence_shown_done(key(fence), real == VK_SUCCESS));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 wait_all,
                                             uint64_t timeout) {
  const DeviceTable& next = next_of(device);
  auto fence_list = std::span(fences, count);
  if (timeout == 0) {  // a poll: shown done by the rule
    std::vector<bool> driver_done;
    for (VkFence fence : fence_list) driver_done.push_back(next.GetFenceStatus(device, fence) == VK_SUCCESS);
    return with_device(device, [&](Observer&, DeviceState& d) {
      size_t done = 0;
      for (size_t i = 0; i < count; ++i) done += d.completion.fence_shown_done(key(fence_list[i]), driver_done[i]);
      VkResult shown = poll_outcome(d, wait_all ? done == count : done > 0);
      return shown == VK_NOT_READY ? VK_TIMEOUT : shown;
    });
  }
  VkResult real = next.WaitForFences(device, count, fences, wait_all, timeout);
  if (real == VK_TIMEOUT) {
    with_device(device, [&](Observer&, DeviceState& d) { ++d.gauges.waits_timed_out; });
    return real;
  }
  if (real != VK_SUCCESS) return real;
  std::vector<VkFence> finished;  // for a wait on any, the fences the driver has finished
  for (VkFence fence : fence_list)
    if (wait_all || next.GetFenceStatus(device, fence) == VK_SUCCESS) finished.push_back(fence);
  return with_device(device, [&](Observer&, DeviceState& d) {
    bool seen = true;
    for (VkFence fence : finished)
      seen = kernel_saw(d, d.completion.fence_wait(key(fence)), timeout, key(fence)) && seen;
    return wait_outcome(d, seen, timeout);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  VkResult real = next_of(device).GetSemaphoreCounterValue(device, semaphore, value);
  if (real != VK_SUCCESS) return real;
  with_device(device, [&](Observer&, DeviceState& d) {
    uint64_t driver_value = *value;
    *value = d.completion.semaphore_shown_value(key(semaphore), driver_value);
    poll_outcome(d, *value >= d.completion.semaphore_target(key(semaphore)));
  });
  return real;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  const DeviceTable& next = next_of(device);
  auto semaphores = std::span(info->pSemaphores, info->semaphoreCount);
  auto values = std::span(info->pValues, info->semaphoreCount);
  const bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
  std::vector<uint64_t> driver_values;
  auto read_values = [&] {
    driver_values.clear();
    for (VkSemaphore semaphore : semaphores) {
      uint64_t value = 0;
      next.GetSemaphoreCounterValue(device, semaphore, &value);
      driver_values.push_back(value);
    }
  };
  if (timeout == 0) {
    read_values();
    return with_device(device, [&](Observer&, DeviceState& d) {
      size_t reached = 0;
      for (size_t i = 0; i < semaphores.size(); ++i)
        reached += d.completion.semaphore_shown_value(key(semaphores[i]), driver_values[i]) >= values[i];
      VkResult shown = poll_outcome(d, any ? reached > 0 : reached == semaphores.size());
      return shown == VK_NOT_READY ? VK_TIMEOUT : shown;
    });
  }
  VkResult real = next.WaitSemaphores(device, info, timeout);
  if (real == VK_TIMEOUT) {
    with_device(device, [&](Observer&, DeviceState& d) { ++d.gauges.waits_timed_out; });
    return real;
  }
  if (real != VK_SUCCESS) return real;
  read_values();
  return with_device(device, [&](Observer&, DeviceState& d) {
    bool seen = true;
    for (size_t i = 0; i < semaphores.size(); ++i) {
      if (driver_values[i] < values[i]) continue;  // a wait on any: not this one
      uint64_t semaphore = key(semaphores[i]);
      seen = kernel_saw(d, d.completion.semaphore_wait(semaphore, values[i]), timeout, 0, semaphore, values[i]) && seen;
    }
    return wait_outcome(d, seen, timeout);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  VkResult real = next_of(queue).QueueWaitIdle(queue);
  if (real != VK_SUCCESS) return real;
  return with_device(queue, [&](Observer&, DeviceState& d) {
    return wait_outcome(d, kernel_saw(d, d.completion.queue_idle(key(queue)), UINT64_MAX, 0), UINT64_MAX);
  });
}

// --- lookup -------------------------------------------------------------------------------

struct Intercept {
  std::string_view name;
  PFN_vkVoidFunction function;
};
#define TIDEMARK_INTERCEPT(name) Intercept{"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name)},
#define TIDEMARK_ALIAS(alias, name) Intercept{alias, reinterpret_cast<PFN_vkVoidFunction>(&name)},
const Intercept kDeviceIntercepts[] = {
    TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_INTERCEPT)
    TIDEMARK_ALIAS("vkBindBufferMemory2KHR", BindBufferMemory2)
    TIDEMARK_ALIAS("vkBindImageMemory2KHR", BindImageMemory2)
    TIDEMARK_ALIAS("vkQueueSubmit2KHR", QueueSubmit2)
    TIDEMARK_ALIAS("vkSignalSemaphoreKHR", SignalSemaphore)
    TIDEMARK_ALIAS("vkWaitSemaphoresKHR", WaitSemaphores)
    TIDEMARK_ALIAS("vkGetSemaphoreCounterValueKHR", GetSemaphoreCounterValue)
};
const Intercept kInstanceIntercepts[] = {TIDEMARK_INTERCEPT(CreateInstance) TIDEMARK_INTERCEPT(DestroyInstance)
                                             TIDEMARK_INTERCEPT(CreateDevice)};
#undef TIDEMARK_INTERCEPT
#undef TIDEMARK_ALIAS

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
    auto found = o.instances.find(dispatch_key(instance));
    if (found == o.instances.end()) return nullptr;
    next = found->second.get_proc;
  }
  return next(instance, name);
}

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::string_view(name) == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetDeviceProcAddr);
  Observer& o = Observer::get();
  PFN_vkGetDeviceProcAddr next = nullptr;
  {
    std::lock_guard lock(o.mutex);
    DeviceState* state = o.find(device);
    if (!state) return nullptr;
    next = state->next.GetDeviceProcAddr;
  }
  PFN_vkVoidFunction below = next(device, name);
  // Ours only where the driver has the function: a client must see what the device lacks.
  if (auto own = find(kDeviceIntercepts, name); own && below) return own;
  return below;
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

// --- the host's interface (tidemark_layer.h) ----------------------------------------------

VK_LAYER_EXPORT uint64_t tidemarkLayerAttach(const TidemarkLayerSink* sink, const TidemarkLayerSettings* settings) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  auto attachment = std::make_shared<Attachment>();
  attachment->id = ++o.next_attachment;
  if (sink) attachment->sink = *sink;
  if (settings) attachment->settings = *settings;
  o.attached = attachment;
  o.attachments[attachment->id] = attachment;
  return attachment->id;
}

VK_LAYER_EXPORT void tidemarkLayerDetach(uint64_t attachment) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  if (o.attached && o.attached->id == attachment) o.attached.reset();
  // A device still alive keeps its attachment's settings but reports nowhere from now on.
  if (auto found = o.attachments.find(attachment); found != o.attachments.end()) {
    found->second->sink.reset();
    o.attachments.erase(found);
  }
}

VK_LAYER_EXPORT uint32_t tidemarkLayerGauges(uint64_t attachment, TidemarkLayerGauges* gauges) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  *gauges = {};
  auto found = o.attachments.find(attachment);
  if (found == o.attachments.end()) return 0;
  for (auto& [dispatch, device] : o.devices)
    if (device->attachment == found->second) sum_into(*gauges, device->gauges);
  sum_into(*gauges, found->second->gone);
  return static_cast<uint32_t>(found->second->devices);
}

}  // extern "C"
