// VK_LAYER_TIDEMARK_observe, Tidemark's Vulkan layer between a program and its driver: it counts
// what the program holds, reports memory and submits to a model host (tidemark_layer.h; without
// one, a report for `tidemark observe`), decides what GPU progress the program sees (completion.h)
// and injects faults. Enabled per process (VK_ADD_LAYER_PATH), never installed. One lock over the
// state, never held across a call into the driver that can block.
#include <string_view>

#include "layer/observer.h"

namespace tidemark::layer {

namespace {

const VkLayerInstanceCreateInfo* instance_link(const VkInstanceCreateInfo* info) {
  auto* chain = static_cast<const VkLayerInstanceCreateInfo*>(info->pNext);
  while (chain &&
         !(chain->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
    chain = static_cast<const VkLayerInstanceCreateInfo*>(chain->pNext);
  return chain;
}

const VkLayerDeviceCreateInfo* device_link(const VkDeviceCreateInfo* info) {
  auto* chain = static_cast<const VkLayerDeviceCreateInfo*>(info->pNext);
  while (chain &&
         !(chain->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && chain->function == VK_LAYER_LINK_INFO))
    chain = static_cast<const VkLayerDeviceCreateInfo*>(chain->pNext);
  return chain;
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
  InstanceTable table{next_get, reinterpret_cast<PFN_vkDestroyInstance>(next_get(*instance, "vkDestroyInstance")),
                      *instance};
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

// What the driver beneath `physical` says it is: its name and version text (Vulkan 1.2's driver
// properties), read once per attachment so a run on a named build can be held to it.
std::optional<TidemarkLayerDriver> describe_driver(VkPhysicalDevice physical) {
  InstanceTable table;
  {
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    auto found = o.instances.find(dispatch_key(physical));
    if (found == o.instances.end()) return std::nullopt;
    table = found->second;
  }
  auto properties2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
      table.get_proc(table.instance, "vkGetPhysicalDeviceProperties2"));
  if (!properties2) return std::nullopt;
  VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
  properties2(physical, &properties);
  TidemarkLayerDriver out{};
  out.vendor_id = properties.properties.vendorID;
  out.device_id = properties.properties.deviceID;
  out.driver_id = static_cast<uint32_t>(driver.driverID);
  out.api_version = properties.properties.apiVersion;
  out.driver_version = properties.properties.driverVersion;
  std::snprintf(out.device_name, sizeof out.device_name, "%s", properties.properties.deviceName);
  std::snprintf(out.driver_name, sizeof out.driver_name, "%s", driver.driverName);
  std::snprintf(out.driver_info, sizeof out.driver_info, "%s", driver.driverInfo);
  return out;
}

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
  if (!Observer::get().observing) {  // --only names other programs: every call goes straight down
    Observer& o = Observer::get();
    std::lock_guard lock(o.mutex);
    o.passed_through[dispatch_key(*device)] = next_get;
    return VK_SUCCESS;
  }
  auto state = std::make_unique<DeviceState>();
  state->next.load(*device, next_get);
  const std::optional<TidemarkLayerDriver> driver = describe_driver(physical);
  if (driver) state->driver = driver_text(*driver);
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  if (o.attached && !o.attached->driver) o.attached->driver = driver;
  state->number = ++o.devices_made;
  state->attachment = o.attached;
  if (!o.attached) state->process_sink = o.kernel_channel_sink();
  state->settings = o.attached ? o.attached->settings : o.process_settings.value_or(TidemarkLayerSettings{});
  if (state->settings.first_device_only && state->number > 1) {  // the cold start's faults are spent
    TidemarkLayerSettings& faults = state->settings;
    faults.hold_frees = faults.never_done = faults.shadow_copies = 0;
    faults.fail_allocation = faults.exit_at_call = faults.crash_at_call = 0;
    faults.hang_at_call = faults.device_lost_at = faults.drop_draw = 0;
  }
  state->completion = CompletionRule(
      {.real = state->settings.completion == TIDEMARK_COMPLETION_REAL, .never_done = state->settings.never_done != 0});
  if (o.attached) ++o.attached->devices;
  o.event(*state, TIDEMARK_EVENT_DEVICE, 0, state->number, 0);
  o.publish(dispatch_key(*device), state.get());
  if (!state->attachment && o.status) {
    if (TidemarkLayerGauges* slot = o.status->slot(state->number)) state->keep_gauges_in(slot);
    if (driver) o.status->driver(*driver);
  }
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
    if (held.kind == Held::Buffer)
      state->next.DestroyBuffer(device, reinterpret_cast<VkBuffer>(held.handle), held.allocator);
    if (held.kind == Held::Image)
      state->next.DestroyImage(device, reinterpret_cast<VkImage>(held.handle), held.allocator);
    if (held.kind == Held::Memory)
      state->next.FreeMemory(device, reinterpret_cast<VkDeviceMemory>(held.handle), held.allocator);
  }
  state->next.DestroyDevice(device, allocator);
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  if (state->attachment) sum_into(state->attachment->gone, state->gauges());
  o.finished.push_back({state->number, true, state->gauges(), state->driver});
  sum_into(o.finished_sum, state->gauges());
  if (!state->attachment && o.status) o.status->gone(state->number, o.finished_sum);
  if (o.devices.empty()) o.write_report();
}

// --- lookup -------------------------------------------------------------------------------

struct Intercept {
  std::string_view name;
  PFN_vkVoidFunction function;
};
#define TIDEMARK_INTERCEPT(name) Intercept{"vk" #name, reinterpret_cast<PFN_vkVoidFunction>(&name)},
#define TIDEMARK_ALIAS(alias, name) Intercept{alias, reinterpret_cast<PFN_vkVoidFunction>(&name)},
const Intercept kDeviceIntercepts[] = {TIDEMARK_DEVICE_FUNCTIONS(TIDEMARK_INTERCEPT)
                                           TIDEMARK_DEVICE_ALIASES(TIDEMARK_ALIAS)};
const Intercept kDrawIntercepts[] = {TIDEMARK_DRAW_FUNCTIONS(TIDEMARK_INTERCEPT) TIDEMARK_DRAW_ALIASES(TIDEMARK_ALIAS)};
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

}  // namespace tidemark::layer

using namespace tidemark::layer;

extern "C" {

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetDeviceProcAddr(VkDevice device, const char* name);

VK_LAYER_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL tidemark_GetInstanceProcAddr(VkInstance instance,
                                                                                      const char* name) {
  if (std::string_view(name) == "vkGetInstanceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetInstanceProcAddr);
  if (std::string_view(name) == "vkGetDeviceProcAddr")
    return reinterpret_cast<PFN_vkVoidFunction>(&tidemark_GetDeviceProcAddr);
  if (auto own = find(kInstanceIntercepts, name)) return own;
  Observer& o = Observer::get();
  if (o.observing)
    if (auto own = find(kDeviceIntercepts, name)) return own;
  if (instance == VK_NULL_HANDLE) return nullptr;
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
  bool drops_a_draw = false;
  {
    std::lock_guard lock(o.mutex);
    if (!o.observing) {
      auto found = o.passed_through.find(dispatch_key(device));
      return found == o.passed_through.end() ? nullptr : found->second(device, name);
    }
    DeviceState* state = o.find(device);
    if (!state) return nullptr;
    next = state->next.GetDeviceProcAddr;
    drops_a_draw = state->settings.drop_draw != 0;
  }
  PFN_vkVoidFunction below = next(device, name);
  // Ours only where the driver has the function: a client must see what the device lacks.
  if (auto own = find(kDeviceIntercepts, name); own && below) return own;
  if (auto own = find(kDrawIntercepts, name); own && below && drops_a_draw) return own;
  return below;
}

// The loader asks which interface version the layer speaks (2: it hands us the link chain and
// takes our two GetProcAddr entry points from here).
VK_LAYER_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
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

VK_LAYER_EXPORT uint32_t tidemarkLayerDriver(uint64_t attachment, TidemarkLayerDriver* driver) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  *driver = {};
  auto found = o.attachments.find(attachment);
  if (found == o.attachments.end() || !found->second->driver) return 0;
  *driver = *found->second->driver;
  return 1;
}

VK_LAYER_EXPORT void tidemarkLayerActivity(TidemarkLayerActivity* activity) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  o.host_activity = activity;
  o.last_function = nullptr;  // the name is written afresh there
}

VK_LAYER_EXPORT uint32_t tidemarkLayerGauges(uint64_t attachment, TidemarkLayerGauges* gauges) {
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  *gauges = {};
  auto found = o.attachments.find(attachment);
  if (found == o.attachments.end()) return 0;
  for (auto& [dispatch, device] : o.devices)
    if (device->attachment == found->second) sum_into(*gauges, device->gauges());
  sum_into(*gauges, found->second->gone);
  return static_cast<uint32_t>(found->second->devices);
}

}  // extern "C"
