#include "backend/device.h"

#include <unistd.h>

#include <fmt/format.h>

#include "layer/tidemark_layer.h"

#include <algorithm>
#include <cstring>

namespace tidemark::backend {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr const char* kTidemarkLayer = TIDEMARK_LAYER_NAME;

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
  const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  static_cast<ValidationLog*>(user)->add(
      fmt::format("{}: {}", level, data->pMessage ? data->pMessage : "(no message)"));
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(ValidationLog* log) {
  VkDebugUtilsMessengerCreateInfoEXT info{};
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  info.messageSeverity =
      VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  info.pfnUserCallback = on_validation_message;
  info.pUserData = log;
  return info;
}

bool has_validation_layer() {
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  for (const auto& layer : layers)
    if (std::strcmp(layer.layerName, kValidationLayer) == 0) return true;
  return false;
}

std::unexpected<Error> no_lavapipe(std::string_view found) {
  return fail(ErrorKind::Environment,
              fmt::format("no lavapipe (CPU) Vulkan device: install mesa-vulkan-drivers (found: {})", found));
}

std::unexpected<Error> no_validation_layer() {
  return fail(ErrorKind::Environment,
              fmt::format("{} is not installed: install vulkan-validationlayers", kValidationLayer));
}

// The drivers the loader opens stay loaded for the process's life: one bare instance, made
// before the first device's and never destroyed (held here, so it is never a leak). Without it
// every session's vkCreateInstance opens and relocates lavapipe and every other driver on the
// machine again: a fifth of `tidemark reduce`'s time, behind the dynamic linker's lock, which
// serialised the sessions it runs side by side. A session with neither validation nor the
// layer makes its device on this very instance: a second one, with every driver's instance and
// device enumeration, was a tenth of a replay's start-up. Only in the process that made it: a
// forked child (the reducer's workers) has none of the threads lavapipe started for its device
// there, and waits for them for ever. VK_NULL_HANDLE if it failed, or in such a child.
VkInstance kept_instance(const VkApplicationInfo& app) {
  static const pid_t maker = ::getpid();
  static const VkInstance kept = [&app] {
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    return vkCreateInstance(&info, nullptr, &instance) == VK_SUCCESS ? instance : VK_NULL_HANDLE;
  }();
  return ::getpid() == maker ? kept : VK_NULL_HANDLE;
}

}  // namespace

Result<std::unique_ptr<Device>> Device::create(bool validation, bool observed) {
  auto self = std::make_unique<Device>(Passkey{});
  TIDEMARK_CHECK(self->create_instance(validation, observed));
  TIDEMARK_CHECK(self->pick_cpu_device());
  TIDEMARK_CHECK(self->pick_queue_and_memory());
  TIDEMARK_CHECK(self->create_logical_device());
  return self;
}

Status Device::create_instance(bool validation, bool observed) {
  if (validation) {
    if (!has_validation_layer()) return no_validation_layer();
    validation_log_ = std::make_unique<ValidationLog>();
  }
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "tidemark";
  app.apiVersion = VK_API_VERSION_1_3;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  VkDebugUtilsMessengerCreateInfoEXT debug_info{};
  VkValidationFeatureEnableEXT enabled_features[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT validation_features{};
  validation_features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  validation_features.enabledValidationFeatureCount = 1;
  validation_features.pEnabledValidationFeatures = enabled_features;
  VkInstanceCreateInfo instance_info{};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &app;
  if (validation) {
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    debug_info = messenger_info(validation_log_.get());
    // Synchronization validation too: barriers between draws, copies and read back are
    // exactly what a reclaim bug would get wrong.
    validation_features.pNext = &debug_info;  // also catches messages from instance creation
    instance_info.pNext = &validation_features;
  }
  // The Tidemark layer nearest the driver: it must see what the backend hands the driver,
  // after any validation (the loader puts the first-named layer nearest the application).
  if (observed) layers.push_back(kTidemarkLayer);
  instance_info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  instance_info.ppEnabledLayerNames = layers.data();
  instance_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  instance_info.ppEnabledExtensionNames = extensions.data();

  if (VkInstance kept = kept_instance(app); kept != VK_NULL_HANDLE && layers.empty()) {
    instance_ = InstancePtr(kept, vk::InstanceDeleter{.owned = false});
    return {};
  }
  VkInstance instance = VK_NULL_HANDLE;
  VkResult created = vkCreateInstance(&instance_info, nullptr, &instance);
  if (created == VK_ERROR_INCOMPATIBLE_DRIVER) return no_lavapipe("no Vulkan driver at all");
  if (created == VK_ERROR_LAYER_NOT_PRESENT && observed)
    return fail(ErrorKind::Environment, fmt::format("expected the Vulkan loader to find {} (VK_ADD_LAYER_PATH), found "
                                                    "it missing: build the VkLayer_tidemark_observe target",
                                                    kTidemarkLayer));
  if (created == VK_ERROR_LAYER_NOT_PRESENT) return no_validation_layer();
  TIDEMARK_CHECK(vk::check(created, "vkCreateInstance"));
  instance_.reset(instance);
  if (!validation) return {};
  auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  if (!create_messenger) return fail(ErrorKind::Environment, "VK_EXT_debug_utils is missing");
  return vk::check(create_messenger(instance, &debug_info, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
}

// The CPU device, explicitly: whatever else the loader finds must not be used.
Status Device::pick_cpu_device() {
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(instance_.get(), &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(instance_.get(), &count, physicals.data());
  std::string seen;
  for (VkPhysicalDevice physical : physicals) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    seen += (seen.empty() ? "" : ", ") + std::string(props.deviceName);
    if (props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU && !physical_) {
      physical_ = physical;
      properties_ = props;
    }
  }
  if (!physical_) return no_lavapipe(seen.empty() ? "no devices" : seen);
  if (properties_.apiVersion < VK_API_VERSION_1_3)
    return fail(
        ErrorKind::Environment,
        fmt::format("{} supports Vulkan {}.{}, Tidemark needs 1.3 (dynamic rendering)", properties_.deviceName,
                    VK_API_VERSION_MAJOR(properties_.apiVersion), VK_API_VERSION_MINOR(properties_.apiVersion)));
  VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 both{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &driver};
  vkGetPhysicalDeviceProperties2(physical_, &both);
  driver_text_ = fmt::format("{} {} ({})", driver.driverName, driver.driverInfo, properties_.deviceName);
  return {};
}

Status Device::pick_queue_and_memory() {
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &family_count, families.data());
  auto graphics = std::find_if(families.begin(), families.end(),
                               [](const auto& family) { return family.queueFlags & VK_QUEUE_GRAPHICS_BIT; });
  if (graphics == families.end()) return fail(ErrorKind::Environment, "the CPU Vulkan device has no graphics queue");
  queue_family_ = static_cast<uint32_t>(graphics - families.begin());

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory);
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((memory.memoryTypes[i].propertyFlags & kHost) == kHost) {
      host_memory_type_ = i;
      return {};
    }
  }
  return fail(ErrorKind::Environment, "no host-visible coherent memory type");
}

Status Device::create_logical_device() {
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = queue_family_;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;

  VkPhysicalDeviceVulkan13Features features13{};
  features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  features13.dynamicRendering = VK_TRUE;

  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &features13;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  VkDevice device = VK_NULL_HANDLE;
  TIDEMARK_CHECK(vk::check(vkCreateDevice(physical_, &device_info, nullptr, &device), "vkCreateDevice"));
  device_.reset(device);
  vkGetDeviceQueue(device, queue_family_, 0, &queue_);
  return {};
}

Device::~Device() {
  device_.reset();
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_.get(), "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy) destroy(instance_.get(), messenger_, nullptr);
  }
}

std::vector<std::string> Device::validation_messages() const {
  return validation_log_ ? validation_log_->messages() : std::vector<std::string>{};
}

Result<vk::Memory> Device::allocate_host_memory(VkDeviceSize size) const {
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = size;
  alloc.memoryTypeIndex = host_memory_type_;
  return vk::Memory::create(device(), vkAllocateMemory, alloc, "vkAllocateMemory");
}

}  // namespace tidemark::backend
