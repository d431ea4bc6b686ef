// The layer under a small Vulkan program of the tests' own, on lavapipe: it makes and frees
// known objects, and the layer's counts must equal them exactly (also from two threads); the
// completion rule, the sink's events and the faults are held to what tidemark_layer.h says.
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <barrier>
#include <cstring>
#include <thread>
#include <vector>

#include "core/memory_type.h"
#include "layer/completion.h"
#include "layer/link.h"

namespace tidemark::layer {
namespace {

// A host in the test: counts what the layer reports. `kernel_sees` says whether waiting the
// kernel's time makes a fence seen (false: a lost doorbell that no ring-again cures).
struct TestHost {
  std::vector<TidemarkLayerMemoryChange> changes;
  uint64_t submitted = 0, seen = 0, samples = 0, kicks = 0, waits = 0;
  bool kernel_sees = true;
  TidemarkLayerSink sink() {
    TidemarkLayerSink s{};
    s.context = this;
    s.memory_changed = [](void* c, const TidemarkLayerMemoryChange* change) {
      static_cast<TestHost*>(c)->changes.push_back(*change);
    };
    s.queue_submitted = [](void* c) { return ++static_cast<TestHost*>(c)->submitted; };
    s.retired = [](void* c, uint64_t fence) -> uint32_t { return fence <= static_cast<TestHost*>(c)->seen; };
    s.wait_retired = [](void* c, uint64_t fence, uint64_t) {
      auto* host = static_cast<TestHost*>(c);
      ++host->waits;
      if (host->kernel_sees) host->seen = std::max(host->seen, fence);
    };
    s.kick = [](void* c) -> uint32_t {
      ++static_cast<TestHost*>(c)->kicks;
      return 0;
    };
    s.sample = [](void* c, const TidemarkLayerGauges*) { ++static_cast<TestHost*>(c)->samples; };
    return s;
  }
};

#define VK_OK(call) ASSERT_EQ((call), VK_SUCCESS) << #call

// An instance with the layer on, lavapipe's device with timeline semaphores and
// synchronization2, its queue; destroyed in order.
class Program {
 public:
  Program() {
    make_discoverable();
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    const char* layers[] = {TIDEMARK_LAYER_NAME};
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = layers;
    if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) return;
    uint32_t count = 1;
    vkEnumeratePhysicalDevices(instance, &count, &physical);
    float priority = 1;
    VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan13Features v13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
    v13.synchronization2 = VK_TRUE;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    v12.timelineSemaphore = VK_TRUE;
    v12.pNext = &v13;
    VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    device_info.pNext = &v12;
    device_info.queueCreateInfoCount = 1;
    device_info.pQueueCreateInfos = &queue_info;
    if (vkCreateDevice(physical, &device_info, nullptr, &device) != VK_SUCCESS) return;
    vkGetDeviceQueue(device, 0, 0, &queue);
    VkPhysicalDeviceMemoryProperties memory{};
    vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
      if (memory.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        host_type = i;
        break;
      }
  }
  ~Program() {
    if (device) vkDestroyDevice(device, nullptr);
    if (instance) vkDestroyInstance(instance, nullptr);
  }
  bool up() const { return device != VK_NULL_HANDLE; }

  VkBuffer buffer(VkDeviceSize size, VkBufferUsageFlags usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = usage;
    VkBuffer b = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateBuffer(device, &info, nullptr, &b), VK_SUCCESS);
    return b;
  }
  VkDeviceMemory memory(VkDeviceSize size) {
    VkMemoryAllocateInfo info{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    info.allocationSize = size;
    info.memoryTypeIndex = host_type;
    VkDeviceMemory m = VK_NULL_HANDLE;
    last_result = vkAllocateMemory(device, &info, nullptr, &m);
    return m;
  }
  // A buffer on its own memory of the buffer's requirement.
  std::pair<VkBuffer, VkDeviceMemory> bound_buffer(VkDeviceSize size,
                                                   VkBufferUsageFlags usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT) {
    VkBuffer b = buffer(size, usage);
    VkMemoryRequirements needs{};
    vkGetBufferMemoryRequirements(device, b, &needs);
    VkDeviceMemory m = memory(needs.size);
    EXPECT_EQ(vkBindBufferMemory(device, b, m, 0), VK_SUCCESS);
    return {b, m};
  }
  void destroy(std::pair<VkBuffer, VkDeviceMemory> bound) {
    vkDestroyBuffer(device, bound.first, nullptr);
    vkFreeMemory(device, bound.second, nullptr);
  }
  VkFence fence() {
    VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f = VK_NULL_HANDLE;
    EXPECT_EQ(vkCreateFence(device, &info, nullptr, &f), VK_SUCCESS);
    return f;
  }
  VkResult submit(VkFence fence) { return vkQueueSubmit(queue, 0, nullptr, fence); }

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t host_type = 0;
  VkResult last_result = VK_SUCCESS;
};

// The layer's library, attached with `settings` and `sink`; the program is made after it.
struct Observed {
  explicit Observed(TidemarkLayerSettings settings = {}, const TidemarkLayerSink* sink = nullptr)
      : attachment(open_library(), sink, settings) {}
  static Library open_library() {
    auto library = Library::open();
    if (!library) throw std::runtime_error(library.error().message);
    return std::move(*library);
  }
  Attachment attachment;
};

// Check that the layer says which Vulkan driver is beneath the attachment's device (lavapipe
// here), and nothing before a device was made.
TEST(Layer, NamesTheVulkanDriverBeneathTheFirstDevice) {
  Observed observed;
  EXPECT_EQ(observed.attachment.driver(), "");
  Program p;
  ASSERT_TRUE(p.up());
  const std::string driver = observed.attachment.driver();
  EXPECT_TRUE(driver.starts_with("llvmpipe Mesa ")) << driver;
  EXPECT_NE(driver.find("(llvmpipe (LLVM"), std::string::npos) << driver;
}

TEST(Layer, CountsTheObjectsAProgramMakesAndFreesExactly) {
  Observed observed;
  {
    Program p;
    ASSERT_TRUE(p.up());
    auto a = p.bound_buffer(100), b = p.bound_buffer(200), c = p.bound_buffer(300);
    VkBuffer unbound = p.buffer(64);
    p.destroy(b);

    VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    image_info.imageType = VK_IMAGE_TYPE_2D;
    image_info.format = VK_FORMAT_R8G8B8A8_UNORM;
    image_info.extent = {16, 16, 1};
    image_info.mipLevels = image_info.arrayLayers = 1;
    image_info.samples = VK_SAMPLE_COUNT_1_BIT;
    image_info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
    VkImage image = VK_NULL_HANDLE;
    VK_OK(vkCreateImage(p.device, &image_info, nullptr, &image));

    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 8};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    pool_info.maxSets = 8;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &pool_size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VK_OK(vkCreateDescriptorPool(p.device, &pool_info, nullptr, &pool));
    VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_ALL, nullptr};
    VkDescriptorSetLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    layout_info.bindingCount = 1;
    layout_info.pBindings = &binding;
    VkDescriptorSetLayout layout = VK_NULL_HANDLE;
    VK_OK(vkCreateDescriptorSetLayout(p.device, &layout_info, nullptr, &layout));
    VkDescriptorSetLayout layouts[] = {layout, layout, layout};
    VkDescriptorSetAllocateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    set_info.descriptorPool = pool;
    set_info.descriptorSetCount = 3;
    set_info.pSetLayouts = layouts;
    VkDescriptorSet sets[3];
    VK_OK(vkAllocateDescriptorSets(p.device, &set_info, sets));
    VK_OK(vkFreeDescriptorSets(p.device, pool, 1, sets));
    VK_OK(vkAllocateDescriptorSets(p.device, &set_info, sets));  // 5 live, peak 5, 6 allocated

    VkCommandPoolCreateInfo command_pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool command_pool = VK_NULL_HANDLE;
    VK_OK(vkCreateCommandPool(p.device, &command_pool_info, nullptr, &command_pool));
    VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    command_info.commandPool = command_pool;
    command_info.commandBufferCount = 4;
    VkCommandBuffer commands[4];
    VK_OK(vkAllocateCommandBuffers(p.device, &command_info, commands));
    vkFreeCommandBuffers(p.device, command_pool, 1, commands);

    VkFence fence = p.fence();
    VK_OK(p.submit(VK_NULL_HANDLE));
    VkSubmitInfo2 submit2{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    VK_OK(vkQueueSubmit2(p.queue, 1, &submit2, fence));
    VK_OK(vkWaitForFences(p.device, 1, &fence, VK_TRUE, UINT64_MAX));

    TidemarkLayerGauges g = observed.attachment.gauges();
    EXPECT_EQ(g.buffers.live, 3);  // a, c, unbound
    EXPECT_EQ(g.buffers.peak, 4);
    EXPECT_EQ(g.buffers.total, 4);
    EXPECT_EQ(g.memory.live, 2);
    EXPECT_EQ(g.memory.peak, 3);
    EXPECT_EQ(g.bound_bytes.live, 400);  // a and c: a bind puts the buffer's size on memory
    EXPECT_EQ(g.bound_bytes.peak, 600);
    EXPECT_EQ(g.images.live, 1);
    EXPECT_EQ(g.descriptor_pools.live, 1);
    EXPECT_EQ(g.descriptor_sets.live, 5);
    EXPECT_EQ(g.descriptor_sets.peak, 5);
    EXPECT_EQ(g.descriptor_sets.total, 6);
    EXPECT_EQ(g.command_buffers.live, 3);
    EXPECT_EQ(g.command_buffers.total, 4);
    EXPECT_EQ(g.submits, 2);
    EXPECT_EQ(g.waits_done, 1);

    vkDestroyCommandPool(p.device, command_pool, nullptr);  // frees its 3 buffers
    vkDestroyDescriptorPool(p.device, pool, nullptr);       // frees its 5 sets
    vkDestroyDescriptorSetLayout(p.device, layout, nullptr);
    vkDestroyImage(p.device, image, nullptr);
    vkDestroyFence(p.device, fence, nullptr);
    vkDestroyBuffer(p.device, unbound, nullptr);
    p.destroy(a);
    p.destroy(c);
    g = observed.attachment.gauges();
    EXPECT_EQ(g.command_buffers.live, 0);
    EXPECT_EQ(g.descriptor_sets.live, 0);
    EXPECT_EQ(g.buffers.live + g.images.live + g.memory.live + g.memory_bytes.live + g.bound_bytes.live, 0);
  }
  EXPECT_EQ(observed.attachment.devices(), 1u);
  EXPECT_EQ(observed.attachment.gauges().buffers.total, 4);  // a destroyed device keeps its counts
}

TEST(Layer, CountsExactlyWhenTwoThreadsCallAtOnce) {
  Observed observed;
  Program p;
  ASSERT_TRUE(p.up());
  constexpr int kEach = 400;
  std::barrier all_held(2);  // both threads hold all theirs at once: the peak is exact
  auto work = [&] {
    std::vector<std::pair<VkBuffer, VkDeviceMemory>> held;
    for (int i = 0; i < kEach; ++i) held.push_back(p.bound_buffer(256));
    all_held.arrive_and_wait();
    for (auto& bound : held) p.destroy(bound);
  };
  std::thread other(work);
  work();
  other.join();
  TidemarkLayerGauges g = observed.attachment.gauges();
  EXPECT_EQ(g.buffers.total, 2 * kEach);
  EXPECT_EQ(g.buffers.peak, 2 * kEach);
  EXPECT_EQ(g.memory.peak, 2 * kEach);
  EXPECT_EQ(g.buffers.live, 0);
  EXPECT_EQ(g.memory.live, 0);
  EXPECT_EQ(g.memory_bytes.live, 0);
}

// Polls show work done only once a blocking wait established it (for that submit or a later
// one on the queue); never_done shows only what a blocking wait was on.
TEST(Layer, APollShowsWorkDoneOnlyAfterABlockingWaitShowedIt) {
  for (bool never_done : {false, true}) {
    SCOPED_TRACE(never_done ? "never_done" : "deterministic");
    Observed observed({.never_done = never_done});
    Program p;
    ASSERT_TRUE(p.up());
    VkFence first = p.fence(), second = p.fence();
    VK_OK(p.submit(first));
    VK_OK(p.submit(second));
    EXPECT_EQ(vkGetFenceStatus(p.device, first), VK_NOT_READY);  // whatever the driver's timing
    EXPECT_EQ(vkWaitForFences(p.device, 1, &first, VK_TRUE, 0), VK_TIMEOUT);
    VK_OK(vkWaitForFences(p.device, 1, &second, VK_TRUE, UINT64_MAX));
    EXPECT_EQ(vkGetFenceStatus(p.device, second), VK_SUCCESS);
    EXPECT_EQ(vkGetFenceStatus(p.device, first), never_done ? VK_NOT_READY : VK_SUCCESS);
    VK_OK(vkResetFences(p.device, 1, &second));
    EXPECT_EQ(vkGetFenceStatus(p.device, second), VK_NOT_READY);  // the driver's own answer once reset

    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = 1;
    VkSemaphoreCreateInfo semaphore_info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
    VkSemaphore timeline = VK_NULL_HANDLE;
    VK_OK(vkCreateSemaphore(p.device, &semaphore_info, nullptr, &timeline));
    VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    signal.semaphore = timeline;
    signal.value = 5;
    signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
    submit.signalSemaphoreInfoCount = 1;
    submit.pSignalSemaphoreInfos = &signal;
    VK_OK(vkQueueSubmit2(p.queue, 1, &submit, VK_NULL_HANDLE));
    uint64_t value = 0;
    VK_OK(vkGetSemaphoreCounterValue(p.device, timeline, &value));
    EXPECT_EQ(value, 1u);
    uint64_t wanted = 5;
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &timeline;
    wait.pValues = &wanted;
    EXPECT_EQ(vkWaitSemaphores(p.device, &wait, 0), VK_TIMEOUT);
    VK_OK(vkWaitSemaphores(p.device, &wait, UINT64_MAX));
    VK_OK(vkGetSemaphoreCounterValue(p.device, timeline, &value));
    EXPECT_EQ(value, 5u);
    TidemarkLayerGauges g = observed.attachment.gauges();
    EXPECT_EQ(g.waits_done, 2);
    EXPECT_EQ(g.polls_busy, 5 + (never_done ? 1 : 0));
    vkDestroySemaphore(p.device, timeline, nullptr);
    vkDestroyFence(p.device, first, nullptr);
    vkDestroyFence(p.device, second, nullptr);
  }
}

// A timeline semaphore of the program's, and a submit that signals it to `value` and `fence`.
VkSemaphore timeline(Program& p) {
  VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &type};
  VkSemaphore semaphore = VK_NULL_HANDLE;
  EXPECT_EQ(vkCreateSemaphore(p.device, &info, nullptr, &semaphore), VK_SUCCESS);
  return semaphore;
}
VkResult submit_signal(Program& p, VkSemaphore semaphore, uint64_t value, VkFence fence) {
  VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  values.signalSemaphoreValueCount = 1;
  values.pSignalSemaphoreValues = &value;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO, &values};
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &semaphore;
  return vkQueueSubmit(p.queue, 1, &submit, fence);
}

// Every way of polling, as the program makes it: true once the poll shows the work done.
enum class PollKind { FenceStatus, WaitForFences, WaitForAnyFence, CounterValue, WaitSemaphores };
bool polled_done(Program& p, PollKind kind, VkFence fence, VkFence never_submitted, VkSemaphore semaphore,
                 uint64_t value) {
  switch (kind) {
    case PollKind::FenceStatus:
      return vkGetFenceStatus(p.device, fence) == VK_SUCCESS;
    case PollKind::WaitForFences:
      return vkWaitForFences(p.device, 1, &fence, VK_TRUE, 0) == VK_SUCCESS;
    case PollKind::WaitForAnyFence: {
      const VkFence both[] = {never_submitted, fence};
      return vkWaitForFences(p.device, 2, both, VK_FALSE, 0) == VK_SUCCESS;
    }
    case PollKind::CounterValue: {
      uint64_t reached = 0;
      EXPECT_EQ(vkGetSemaphoreCounterValue(p.device, semaphore, &reached), VK_SUCCESS);
      return reached >= value;
    }
    case PollKind::WaitSemaphores: {
      VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
      wait.semaphoreCount = 1;
      wait.pSemaphores = &semaphore;
      wait.pValues = &value;
      return vkWaitSemaphores(p.device, &wait, 0) == VK_SUCCESS;
    }
  }
  return false;
}

// A program that never blocks sees its work done at the same poll whatever the driver's timing:
// the 32nd busy answer in a row is the layer's reveal point, for every way of polling.
TEST(Layer, AProgramThatOnlyPollsSeesItsWorkDoneAtTheRevealPointEveryWay) {
  for (PollKind kind : {PollKind::FenceStatus, PollKind::WaitForFences, PollKind::WaitForAnyFence,
                        PollKind::CounterValue, PollKind::WaitSemaphores}) {
    SCOPED_TRACE(static_cast<int>(kind));
    Observed observed;
    Program p;
    ASSERT_TRUE(p.up());
    VkFence fence = p.fence(), never_submitted = p.fence();
    VkSemaphore semaphore = timeline(p);
    for (uint64_t round = 1; round <= 3; ++round) {
      VK_OK(vkResetFences(p.device, 1, &fence));
      VK_OK(submit_signal(p, semaphore, round, fence));
      uint32_t polls = 1;
      while (!polled_done(p, kind, fence, never_submitted, semaphore, round) && polls <= 10 * kPollsToReveal) ++polls;
      EXPECT_EQ(polls, kPollsToReveal) << "round " << round;
    }
    TidemarkLayerGauges g = observed.attachment.gauges();
    EXPECT_EQ(g.polls_busy, 3 * (kPollsToReveal - 1));
    EXPECT_EQ(g.polls_done, 3);
    EXPECT_EQ(g.polls_revealed, 3);
    vkDestroySemaphore(p.device, semaphore, nullptr);
    vkDestroyFence(p.device, never_submitted, nullptr);
    vkDestroyFence(p.device, fence, nullptr);
  }
}

// Check that a poll answered as the one before it on its object is no progress for a run's
// bounds, every way of polling: it counts as a call, names what it asked again, and moves the
// progress only once a wait shows the work done (another answer).
TEST(Layer, APollAnsweredAsTheOneBeforeItIsNoProgressEveryWay) {
  auto library = Observed::open_library();  // the layer's library, as the host's attachment opens it
  ASSERT_NE(library.activity, nullptr);
  for (PollKind kind : {PollKind::FenceStatus, PollKind::WaitForFences, PollKind::WaitForAnyFence,
                        PollKind::CounterValue, PollKind::WaitSemaphores}) {
    SCOPED_TRACE(static_cast<int>(kind));
    Observed observed({.never_done = true});
    TidemarkLayerActivity activity{};
    library.activity(&activity);
    Program p;
    ASSERT_TRUE(p.up());
    VkFence fence = p.fence(), never_submitted = p.fence();
    VkSemaphore semaphore = timeline(p);
    VK_OK(submit_signal(p, semaphore, 1, fence));
    EXPECT_FALSE(polled_done(p, kind, fence, never_submitted, semaphore, 1));  // its first answer: progress
    const uint64_t progress = activity.progress, calls = activity.calls;
    for (int poll = 0; poll < 3 * static_cast<int>(kPollsToReveal); ++poll)
      EXPECT_FALSE(polled_done(p, kind, fence, never_submitted, semaphore, 1));
    EXPECT_GT(activity.calls, calls);
    EXPECT_EQ(activity.progress, progress);
    const bool on_semaphore = kind == PollKind::CounterValue || kind == PollKind::WaitSemaphores;
    const std::string asked = activity.asked_again;
    EXPECT_TRUE(asked.starts_with(on_semaphore ? "polled semaphore 0x" : "polled fence 0x")) << asked;
    EXPECT_TRUE(asked.ends_with(kind == PollKind::FenceStatus    ? ", answered VK_NOT_READY"
                                : kind == PollKind::CounterValue ? ", answered value 0"
                                                                 : ", answered VK_TIMEOUT"))
        << asked;
    VK_OK(vkWaitForFences(p.device, 1, &fence, VK_TRUE, UINT64_MAX));  // the work shown done
    EXPECT_GT(activity.progress, progress);
    EXPECT_STREQ(activity.asked_again, "");
    library.activity(nullptr);
    vkDestroySemaphore(p.device, semaphore, nullptr);
    vkDestroyFence(p.device, never_submitted, nullptr);
    vkDestroyFence(p.device, fence, nullptr);
  }
}

// vkDeviceWaitIdle: every fence and semaphore signal submitted before it reads done after it.
TEST(Layer, AfterTheDeviceWaitsIdleEveryFenceAndSemaphoreReadsDone) {
  Observed observed;
  Program p;
  ASSERT_TRUE(p.up());
  VkFence fence = p.fence();
  VkSemaphore semaphore = timeline(p);
  VK_OK(submit_signal(p, semaphore, 7, fence));
  VK_OK(vkDeviceWaitIdle(p.device));
  EXPECT_EQ(vkGetFenceStatus(p.device, fence), VK_SUCCESS);
  uint64_t value = 0;
  VK_OK(vkGetSemaphoreCounterValue(p.device, semaphore, &value));
  EXPECT_EQ(value, 7u);
  EXPECT_EQ(observed.attachment.gauges().polls_busy, 0);
  vkDestroySemaphore(p.device, semaphore, nullptr);
  vkDestroyFence(p.device, fence, nullptr);
}

// A fence made signalled reads signalled, and one never submitted reads unsignalled, whatever
// else a poll of several fences names.
TEST(Layer, AFenceMadeSignalledReadsDoneAndOneNeverSubmittedReadsBusy) {
  Observed observed;
  Program p;
  ASSERT_TRUE(p.up());
  VkFenceCreateInfo info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  VkFence made_signalled = VK_NULL_HANDLE, unsignalled = p.fence();
  VK_OK(vkCreateFence(p.device, &info, nullptr, &made_signalled));
  const VkFence both[] = {made_signalled, unsignalled};
  EXPECT_EQ(vkWaitForFences(p.device, 2, both, VK_FALSE, 0), VK_SUCCESS);
  EXPECT_EQ(vkWaitForFences(p.device, 2, both, VK_TRUE, 0), VK_TIMEOUT);
  VK_OK(vkResetFences(p.device, 1, &made_signalled));
  EXPECT_EQ(vkWaitForFences(p.device, 2, both, VK_FALSE, 0), VK_TIMEOUT);
  vkDestroyFence(p.device, made_signalled, nullptr);
  vkDestroyFence(p.device, unsignalled, nullptr);
}

TEST(Layer, ReportsBoundMemoryTypedByWhatIsBoundAndEverySubmitAsAKernelPacket) {
  TestHost host;
  TidemarkLayerSink sink = host.sink();
  Observed observed({}, &sink);
  Program p;
  ASSERT_TRUE(p.up());
  auto uniform = p.bound_buffer(64);
  auto staging = p.bound_buffer(64, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  VkDeviceMemory never_bound = p.memory(4096);
  vkFreeMemory(p.device, never_bound, nullptr);  // never bound: never reported
  p.destroy(uniform);
  ASSERT_EQ(host.changes.size(), 3u);
  EXPECT_EQ(host.changes[0].allocated, 1u);
  EXPECT_EQ(host.changes[0].type, static_cast<uint32_t>(MemoryType::GlBuffer));
  EXPECT_EQ(host.changes[1].type, static_cast<uint32_t>(MemoryType::Transient));
  EXPECT_EQ(host.changes[2].allocated, 0u);
  EXPECT_EQ(host.changes[2].id, host.changes[0].id);
  EXPECT_EQ(host.changes[2].reported_bytes, static_cast<int64_t>(host.changes[1].size));

  VkFence fence = p.fence();
  VK_OK(p.submit(VK_NULL_HANDLE));
  VK_OK(p.submit(fence));
  EXPECT_EQ(host.submitted, 2u);
  EXPECT_EQ(host.samples, 2u);
  VK_OK(vkWaitForFences(p.device, 1, &fence, VK_TRUE, UINT64_MAX));
  EXPECT_EQ(host.seen, 2u);  // the wait ran the kernel's time up to the newest packet
  p.destroy(staging);
  vkDestroyFence(p.device, fence, nullptr);
}

// A kernel that never sees the work (a lost doorbell no ring-again cures): the program's own
// waits show it — a timeout for a bounded wait, a lost device for an unbounded one or a poll's
// reveal point.
TEST(Layer, WorkTheKernelNeverSawShowsInTheProgramsOwnWaits) {
  TestHost host;
  host.kernel_sees = false;
  TidemarkLayerSink sink = host.sink();
  Observed observed({}, &sink);
  Program p;
  ASSERT_TRUE(p.up());
  VkFence fence = p.fence();
  VK_OK(p.submit(fence));
  EXPECT_EQ(vkWaitForFences(p.device, 1, &fence, VK_TRUE, 1'000'000'000), VK_TIMEOUT);
  EXPECT_EQ(vkWaitForFences(p.device, 1, &fence, VK_TRUE, UINT64_MAX), VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(vkGetFenceStatus(p.device, fence), VK_NOT_READY);
  EXPECT_EQ(host.kicks, 1u);  // only the unbounded wait has the driver ring again
  EXPECT_EQ(observed.attachment.gauges().waits_lost, 2);
  // A poller's reveal point is such a wait: a lost device, never a poll that stays busy for ever.
  VkFence polled = p.fence();
  VK_OK(p.submit(polled));
  VkResult shown = VK_NOT_READY;
  uint32_t polls = 0;
  for (; shown == VK_NOT_READY && polls < 10 * kPollsToReveal; ++polls) shown = vkGetFenceStatus(p.device, polled);
  EXPECT_EQ(shown, VK_ERROR_DEVICE_LOST);
  EXPECT_EQ(polls, kPollsToReveal);
  EXPECT_EQ(host.kicks, 2u);
  EXPECT_EQ(observed.attachment.gauges().waits_lost, 3);
  vkDestroyFence(p.device, polled, nullptr);
  vkDestroyFence(p.device, fence, nullptr);

  // completion: real takes the driver's word
  TestHost real_host;
  real_host.kernel_sees = false;
  TidemarkLayerSink real_sink = real_host.sink();
  Observed real({.completion = TIDEMARK_COMPLETION_REAL}, &real_sink);
  Program q;
  ASSERT_TRUE(q.up());
  VkFence other = q.fence();
  VK_OK(q.submit(other));
  EXPECT_EQ(vkWaitForFences(q.device, 1, &other, VK_TRUE, UINT64_MAX), VK_SUCCESS);
  vkDestroyFence(q.device, other, nullptr);
}

TEST(Layer, HoldFreesKeepsEveryDestroyAndFreeUntilTheDeviceGoes) {
  Observed observed({.hold_frees = 1});
  {
    Program p;
    ASSERT_TRUE(p.up());
    for (int i = 0; i < 5; ++i) p.destroy(p.bound_buffer(1024));
    TidemarkLayerGauges g = observed.attachment.gauges();
    EXPECT_EQ(g.buffers.live, 5);
    EXPECT_EQ(g.memory.live, 5);
    EXPECT_EQ(g.frees_held, 10);
  }
  EXPECT_EQ(observed.attachment.gauges().buffers.peak, 5);
}

// A driver keeping a copy of each: every buffer and allocation counts twice while it lives, its
// bytes too, and the copy goes with it (nothing is left when the program has freed everything).
TEST(Layer, ShadowCopiesDoubleEveryBufferAndAllocationUntilTheyGo) {
  Observed observed({.shadow_copies = 1});
  Program p;
  ASSERT_TRUE(p.up());
  const TidemarkLayerGauges before = observed.attachment.gauges();
  for (int i = 0; i < 3; ++i) p.destroy(p.bound_buffer(4096));
  auto kept = p.bound_buffer(4096);
  TidemarkLayerGauges g = observed.attachment.gauges();
  EXPECT_EQ(g.buffers.live - before.buffers.live, 2);
  EXPECT_EQ(g.buffers.peak - before.buffers.peak, 2);
  EXPECT_EQ(g.buffers.total - before.buffers.total, 8);
  EXPECT_EQ(g.memory.live - before.memory.live, 2);
  EXPECT_EQ(g.memory.total - before.memory.total, 8);
  EXPECT_GE(g.memory_bytes.live - before.memory_bytes.live, 2 * 4096);  // the buffer's memory and its copy
  p.destroy(kept);
  g = observed.attachment.gauges();
  EXPECT_EQ(g.buffers.live, before.buffers.live);
  EXPECT_EQ(g.memory.live, before.memory.live);
  EXPECT_EQ(g.memory_bytes.live, before.memory_bytes.live);
}

TEST(Layer, FailAllocationRefusesTheNthAllocationOnly) {
  Observed observed({.fail_allocation = 2});
  Program p;
  ASSERT_TRUE(p.up());
  VkDeviceMemory first = p.memory(256);
  EXPECT_EQ(p.last_result, VK_SUCCESS);
  VkDeviceMemory second = p.memory(256);
  EXPECT_EQ(p.last_result, VK_ERROR_OUT_OF_DEVICE_MEMORY);
  VkDeviceMemory third = p.memory(256);
  EXPECT_EQ(p.last_result, VK_SUCCESS);
  EXPECT_EQ(second, VK_NULL_HANDLE);
  TidemarkLayerGauges g = observed.attachment.gauges();
  EXPECT_EQ(g.allocations_refused, 1);
  EXPECT_EQ(g.memory.live, 2);
  vkFreeMemory(p.device, first, nullptr);
  vkFreeMemory(p.device, third, nullptr);
}

// Check that device_lost_at loses the device at its Nth submit or wait and keeps it lost: that
// call and every submit, wait and poll after it answer VK_ERROR_DEVICE_LOST, the sink hears of the
// first at once, and the gauges count them all and name the first.
TEST(Layer, DeviceLostAtLosesTheDeviceAtItsNthSubmitOrWaitAndKeepsItLost) {
  struct Heard {
    uint32_t call = 0;
    uint64_t submit_or_wait = 0;
    int times = 0;
  } heard;
  TidemarkLayerSink sink{};
  sink.context = &heard;
  sink.device_lost = [](void* context, uint32_t call, uint64_t submit_or_wait) {
    auto& into = *static_cast<Heard*>(context);
    into = {call, submit_or_wait, into.times + 1};
  };
  Observed observed({.completion = TIDEMARK_COMPLETION_REAL, .device_lost_at = 3}, &sink);
  Program p;
  ASSERT_TRUE(p.up());
  VkFence fence = p.fence();
  EXPECT_EQ(p.submit(fence), VK_SUCCESS);                                            // 1
  EXPECT_EQ(vkWaitForFences(p.device, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);  // 2
  EXPECT_EQ(vkQueueWaitIdle(p.queue), VK_ERROR_DEVICE_LOST);                         // 3: lost
  EXPECT_EQ(p.submit(VK_NULL_HANDLE), VK_ERROR_DEVICE_LOST);                         // and stays so
  EXPECT_EQ(vkGetFenceStatus(p.device, fence), VK_ERROR_DEVICE_LOST);                // polls too
  EXPECT_EQ(vkDeviceWaitIdle(p.device), VK_ERROR_DEVICE_LOST);
  TidemarkLayerGauges g = observed.attachment.gauges();
  EXPECT_EQ(g.lost_answers, 4);
  EXPECT_EQ(g.first_lost_call, TIDEMARK_LOST_QUEUE_WAIT_IDLE);
  EXPECT_EQ(g.first_lost_at, 3);
  EXPECT_EQ(g.submits, 1);  // the submit after the loss never reached the driver
  EXPECT_EQ(heard.times, 1);
  EXPECT_EQ(heard.call, static_cast<uint32_t>(TIDEMARK_LOST_QUEUE_WAIT_IDLE));
  EXPECT_EQ(heard.submit_or_wait, 3u);
  vkDestroyFence(p.device, fence, nullptr);
}

}  // namespace
}  // namespace tidemark::layer
