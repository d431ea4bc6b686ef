// tidemark-vk-poller: a small Vulkan program that learns of its work's completion the way real
// programs do when they never block: it submits, then polls until the driver says done. Each
// round submits one empty batch that signals a fence and a timeline semaphore, then polls with
// one of vkGetFenceStatus, vkWaitForFences(timeout 0, all or any), vkGetSemaphoreCounterValue or
// vkWaitSemaphores(timeout 0) until it sees the work finished; or, with --device-wait-idle,
// waits for the device to go idle and reads the fence and the semaphore (both must read done).
// --hold N first holds N buffers on their own memory at once, then frees them (--linger-ms M:
// after holding them M ms, so an observer's status line can show them live; --killed: the
// program then kills itself with SIGKILL while it holds them, as a wrapper kills its X server).
//
// Prints one line: the calls it made, e.g. "polls 32 32 32 (vkGetFenceStatus 96)", so a test
// can hold what reached the driver to what the program made. Exit codes: 0 done, 1 a Vulkan
// call failed or showed what the specification forbids, 2 bad flags, 3 no Vulkan 1.2 device.
#include <vulkan/vulkan.h>

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr const char* kUsage =
    "usage: tidemark-vk-poller [--poll fence-status|wait-for-fences|wait-for-any-fence|counter-value|wait-semaphores]"
    " [--rounds N] [--device-wait-idle] [--hold N [--linger-ms M] [--killed]]";

struct Options {
  std::string poll = "fence-status";
  uint32_t rounds = 3;
  bool device_wait_idle = false;
  uint32_t hold = 0;
  uint32_t linger_ms = 0;
  bool killed = false;
};

bool parse_count(std::string_view text, uint32_t& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

int fail(const char* what, VkResult result) {
  std::fprintf(stderr, "tidemark-vk-poller: %s failed (VkResult %d)\n", what, static_cast<int>(result));
  return 1;
}

// The instance, lavapipe's (or any) device with timeline semaphores, its queue; destroyed in order.
struct Vulkan {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t memory_type = 0;
  ~Vulkan() {
    if (device) vkDestroyDevice(device, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }
  bool open() {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "tidemark-vk-poller";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return false;
    uint32_t count = 1;
    if (vkEnumeratePhysicalDevices(instance, &count, &physical) < 0 || count == 0) return false;
    float priority = 1;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.timelineSemaphore = VK_TRUE;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = &v12;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    if (vkCreateDevice(physical, &device_info, nullptr, &device) != VK_SUCCESS) return false;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkPhysicalDeviceMemoryProperties memory{};
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if (memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) {
        memory_type = i;
        break;
      }
    return true;
  }
};

// N buffers of 4 KiB, each on its own memory, all alive at once; then all freed.
int hold_buffers(Vulkan& vk, uint32_t count, uint32_t linger_ms, bool killed) {
  std::vector<std::pair<VkBuffer, VkDeviceMemory>> held;
  for (uint32_t i = 0; i < count; ++i) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = 4096;
    info.usage = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    VkBuffer buffer = VK_NULL_HANDLE;
    if (VkResult r = vkCreateBuffer(vk.device, &info, nullptr, &buffer); r != VK_SUCCESS)
      return fail("vkCreateBuffer", r);
    VkMemoryRequirements needs{};
    vkGetBufferMemoryRequirements(vk.device, buffer, &needs);
    VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    allocate.allocationSize = needs.size;
    allocate.memoryTypeIndex = vk.memory_type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    if (VkResult r = vkAllocateMemory(vk.device, &allocate, nullptr, &memory); r != VK_SUCCESS)
      return fail("vkAllocateMemory", r);
    if (VkResult r = vkBindBufferMemory(vk.device, buffer, memory, 0); r != VK_SUCCESS)
      return fail("vkBindBufferMemory", r);
    held.emplace_back(buffer, memory);
  }
  if (linger_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(linger_ms));
  if (killed) ::kill(::getpid(), SIGKILL);
  for (auto [buffer, memory] : held) {
    vkDestroyBuffer(vk.device, buffer, nullptr);
    vkFreeMemory(vk.device, memory, nullptr);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--poll" && has_value)
      options.poll = argv[++i];
    else if (flag == "--rounds" && has_value && parse_count(argv[i + 1], options.rounds))
      ++i;
    else if (flag == "--hold" && has_value && parse_count(argv[i + 1], options.hold))
      ++i;
    else if (flag == "--linger-ms" && has_value && parse_count(argv[i + 1], options.linger_ms))
      ++i;
    else if (flag == "--device-wait-idle")
      options.device_wait_idle = true;
    else if (flag == "--killed")
      options.killed = true;
    else {
      std::fprintf(stderr, "tidemark-vk-poller: unexpected '%s'\n%s\n", argv[i], kUsage);
      return 2;
    }
  }
  const std::string& poll = options.poll;
  if (poll != "fence-status" && poll != "wait-for-fences" && poll != "wait-for-any-fence" && poll != "counter-value" &&
      poll != "wait-semaphores") {
    std::fprintf(stderr, "tidemark-vk-poller: unknown --poll '%s'\n%s\n", poll.c_str(), kUsage);
    return 2;
  }
  Vulkan vk;
  if (!vk.open()) {
    std::fprintf(stderr, "tidemark-vk-poller: no Vulkan 1.2 device with timeline semaphores\n");
    return 3;
  }
  if (options.hold > 0)
    if (int failed = hold_buffers(vk, options.hold, options.linger_ms, options.killed)) return failed;

  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE, spare = VK_NULL_HANDLE;  // spare: never submitted (a wait on any)
  vkCreateFence(vk.device, &fence_info, nullptr, &fence);
  vkCreateFence(vk.device, &fence_info, nullptr, &spare);
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore timeline = VK_NULL_HANDLE;
  vkCreateSemaphore(vk.device, &semaphore_info, nullptr, &timeline);

  std::string counts;
  uint64_t calls = 0;
  for (uint64_t round = 1; round <= options.rounds; ++round) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.signalSemaphoreValueCount = 1;
    values.pSignalSemaphoreValues = &round;
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
    submit.signalSemaphoreCount = 1;
    submit.pSignalSemaphores = &timeline;
    if (VkResult r = vkResetFences(vk.device, 1, &fence); r != VK_SUCCESS) return fail("vkResetFences", r);
    if (VkResult r = vkQueueSubmit(vk.queue, 1, &submit, fence); r != VK_SUCCESS) return fail("vkQueueSubmit", r);
    if (options.device_wait_idle) {
      if (VkResult r = vkDeviceWaitIdle(vk.device); r != VK_SUCCESS) return fail("vkDeviceWaitIdle", r);
      uint64_t value = 0;
      VkResult status = vkGetFenceStatus(vk.device, fence);
      vkGetSemaphoreCounterValue(vk.device, timeline, &value);
      if (status != VK_SUCCESS || value < round) {
        std::fprintf(stderr,
                     "tidemark-vk-poller: after vkDeviceWaitIdle the fence reads %d and the semaphore %llu, "
                     "expected VK_SUCCESS and %llu\n",
                     static_cast<int>(status), static_cast<unsigned long long>(value),
                     static_cast<unsigned long long>(round));
        return 1;
      }
      counts += counts.empty() ? "idle" : " idle";
      continue;
    }
    uint64_t polls = 0;
    for (bool done = false; !done;) {
      ++polls;
      VkResult r = VK_SUCCESS;
      if (poll == "fence-status") {
        r = vkGetFenceStatus(vk.device, fence);
        done = r == VK_SUCCESS;
        if (r == VK_NOT_READY) r = VK_SUCCESS;
      } else if (poll == "wait-for-fences" || poll == "wait-for-any-fence") {
        const VkFence both[] = {fence, spare};
        const bool any = poll == "wait-for-any-fence";
        r = vkWaitForFences(vk.device, any ? 2 : 1, both, any ? VK_FALSE : VK_TRUE, 0);
        done = r == VK_SUCCESS;
        if (r == VK_TIMEOUT) r = VK_SUCCESS;
      } else if (poll == "counter-value") {
        uint64_t value = 0;
        r = vkGetSemaphoreCounterValue(vk.device, timeline, &value);
        done = value >= round;
      } else {
        VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
        wait.semaphoreCount = 1;
        wait.pSemaphores = &timeline;
        wait.pValues = &round;
        r = vkWaitSemaphores(vk.device, &wait, 0);
        done = r == VK_SUCCESS;
        if (r == VK_TIMEOUT) r = VK_SUCCESS;
      }
      if (r != VK_SUCCESS) return fail(poll.c_str(), r);
    }
    calls += polls;
    counts += (counts.empty() ? "" : " ") + std::to_string(polls);
  }
  const char* call = poll == "fence-status"      ? "vkGetFenceStatus"
                     : poll == "counter-value"   ? "vkGetSemaphoreCounterValue"
                     : poll == "wait-semaphores" ? "vkWaitSemaphores"
                                                 : "vkWaitForFences";
  if (options.device_wait_idle)
    std::printf("device-wait-idle %s (vkDeviceWaitIdle %u)\n", counts.c_str(), options.rounds);
  else
    std::printf("polls %s (%s %llu)\n", counts.c_str(), call, static_cast<unsigned long long>(calls));
  vkDestroySemaphore(vk.device, timeline, nullptr);
  vkDestroyFence(vk.device, spare, nullptr);
  vkDestroyFence(vk.device, fence, nullptr);
  return 0;
}
