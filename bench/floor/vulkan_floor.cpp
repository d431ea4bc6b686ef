// tidemark-vulkan-floor: the Vulkan work of the no-draw respecify stream and nothing else, the
// floor a replay of that stream is measured against. Each cycle is what the vulkan backend does
// for one `buffer_data` of a fresh store whose orphan no draw used: create a buffer, allocate
// and bind host-visible memory, map it, write the bytes, then destroy the previous store.
//
//   tidemark-vulkan-floor [--cycles N] [--size BYTES]
//
// Prints one JSON line: {"cycles", "size", "startup_seconds", "cycle_seconds"}. Start-up is the
// instance and lavapipe's device; cycle time covers the cycles alone, as replay's seconds do.
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

[[noreturn]] void die(const char* what, VkResult result) {
  std::fprintf(stderr, "tidemark-vulkan-floor: %s: VkResult %d\n", what, static_cast<int>(result));
  std::exit(4);
}

void check(VkResult result, const char* what) {
  if (result != VK_SUCCESS) die(what, result);
}

struct InstanceDeleter {
  void operator()(VkInstance instance) const { vkDestroyInstance(instance, nullptr); }
};
struct DeviceDeleter {
  void operator()(VkDevice device) const { vkDestroyDevice(device, nullptr); }
};
using Instance = std::unique_ptr<std::remove_pointer_t<VkInstance>, InstanceDeleter>;
using Device = std::unique_ptr<std::remove_pointer_t<VkDevice>, DeviceDeleter>;

// One store: its buffer and memory, freed together.
class Store {
 public:
  Store() = default;
  Store(VkDevice device, VkBuffer buffer, VkDeviceMemory memory) : device_(device), buffer_(buffer), memory_(memory) {}
  Store(Store&& other) noexcept { *this = std::move(other); }
  Store& operator=(Store&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(buffer_, other.buffer_);
    std::swap(memory_, other.memory_);
    return *this;
  }
  ~Store() {
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
  }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

struct Floor {
  Instance instance;
  Device device;
  uint32_t host_memory_type = 0;
};

Floor start() {
  Floor floor;
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "tidemark-vulkan-floor";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instance_info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instance_info.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  check(vkCreateInstance(&instance_info, nullptr, &instance), "vkCreateInstance");
  floor.instance.reset(instance);

  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physical(count);
  check(vkEnumeratePhysicalDevices(instance, &count, physical.data()), "vkEnumeratePhysicalDevices");
  VkPhysicalDevice cpu = VK_NULL_HANDLE;
  for (VkPhysicalDevice candidate : physical) {
    VkPhysicalDeviceProperties properties;
    vkGetPhysicalDeviceProperties(candidate, &properties);
    if (properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) cpu = candidate;
  }
  if (!cpu) die("no CPU Vulkan device (lavapipe: mesa-vulkan-drivers)", VK_ERROR_INITIALIZATION_FAILED);

  VkPhysicalDeviceMemoryProperties memory;
  vkGetPhysicalDeviceMemoryProperties(cpu, &memory);
  constexpr VkMemoryPropertyFlags kHost = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((memory.memoryTypes[i].propertyFlags & kHost) == kHost) {
      floor.host_memory_type = i;
      break;
    }

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = 0;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue;
  VkDevice device = VK_NULL_HANDLE;
  check(vkCreateDevice(cpu, &device_info, nullptr, &device), "vkCreateDevice");
  floor.device.reset(device);
  return floor;
}

Store mint(const Floor& floor, const std::vector<uint8_t>& bytes) {
  VkDevice device = floor.device.get();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes.size();
  info.usage =
      VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  check(vkCreateBuffer(device, &info, nullptr, &buffer), "vkCreateBuffer");
  VkMemoryRequirements needs;
  vkGetBufferMemoryRequirements(device, buffer, &needs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = floor.host_memory_type;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(device, &alloc, nullptr, &memory), "vkAllocateMemory");
  Store store(device, buffer, memory);
  check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
  void* mapped = nullptr;
  check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
  std::memcpy(mapped, bytes.data(), bytes.size());
  return store;
}

uint64_t number(const char* text, const char* flag) {
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (!*text || *end || value == 0) {
    std::fprintf(stderr, "tidemark-vulkan-floor: %s: expected a positive whole number, found '%s'\n", flag, text);
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t cycles = 100000, size = 256;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if ((flag == "--cycles" || flag == "--size") && i + 1 < argc) {
      const char* value = argv[++i];
      (flag == "--cycles" ? cycles : size) = number(value, flag.c_str());
    } else {
      std::fprintf(stderr, "tidemark-vulkan-floor: expected --cycles N or --size BYTES, found '%s'\n", argv[i]);
      return 2;
    }
  }
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  Floor floor = start();
  const auto started = Clock::now();
  std::vector<uint8_t> bytes(size);
  Store current;
  for (uint64_t cycle = 0; cycle < cycles; ++cycle) {
    std::memset(bytes.data(), static_cast<int>(cycle & 0xff), bytes.size());  // each round's fill
    current = mint(floor, bytes);  // the orphan dies as its successor takes its place
  }
  current = Store();
  const auto ended = Clock::now();
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  std::printf("{\"cycles\": %llu, \"size\": %llu, \"startup_seconds\": %.6f, \"cycle_seconds\": %.6f}\n",
              static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(size),
              seconds(started - began), seconds(ended - started));
  return 0;
}
