// tidemark-vulkan-floor: the Vulkan work of the no-draw respecify stream and nothing else, the
// floor a replay of that stream is measured against. Each cycle is what the vulkan backend does
// for one `buffer_data` of a fresh store whose orphan no draw used: create a buffer, allocate
// and bind host-visible memory, map it, write the bytes, then destroy the previous store.
// With --draw, the stream's last step too: one draw of the whole 16x16 target coloured by the
// last store (the band shaders the backend draws with), read back; what a replay of the whole
// stream does besides the cycles, so whole-process time and peak memory compare like for like.
//
//   tidemark-vulkan-floor [--cycles N] [--size BYTES] [--draw]
//
// Prints one JSON line: {"cycles", "size", "calls" (the Vulkan calls the cycles made: seven a
// cycle, five of them ones a layer that counts memory intercepts), "startup_seconds",
// "cycle_seconds"} and, with
// --draw, "draw_seconds" and "pixel" (the read-back RGBA of the first pixel: every byte is the
// last cycle's fill). Start-up is the instance and lavapipe's device; cycle time covers the
// cycles alone, as replay's seconds do.
#include <vulkan/vulkan.h>

#include "backend/band_pipeline_state.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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

const uint32_t kBandVert[] = {
#include "shaders/band_vert.spv.inc"
};
const uint32_t kBandFrag[] = {
#include "shaders/band_frag.spv.inc"
};

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
    std::swap(mapped_, other.mapped_);
    return *this;
  }
  ~Store() {
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);
  }
  VkBuffer buffer() const { return buffer_; }
  const void* mapped() const { return mapped_; }  // host-coherent, mapped for its whole life
  void set_mapped(void* mapped) { mapped_ = mapped; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
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
  VkPhysicalDeviceVulkan13Features features13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  features13.dynamicRendering = VK_TRUE;  // the draw renders as the backend does, without a render pass
  VkDeviceCreateInfo device_info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  device_info.pNext = &features13;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue;
  VkDevice device = VK_NULL_HANDLE;
  check(vkCreateDevice(cpu, &device_info, nullptr, &device), "vkCreateDevice");
  floor.device.reset(device);
  return floor;
}

// vkCreateBuffer, vkGetBufferMemoryRequirements, vkAllocateMemory, vkBindBufferMemory,
// vkMapMemory here; vkDestroyBuffer and vkFreeMemory when the store dies.
constexpr uint64_t kCallsPerCycle = 7;

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
  store.set_mapped(mapped);
  return store;
}

// Destroys what a draw created, last first, however it leaves.
class Cleanup {
 public:
  Cleanup() = default;
  Cleanup(const Cleanup&) = delete;
  Cleanup& operator=(const Cleanup&) = delete;
  ~Cleanup() {
    for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) (*it)();
  }
  void add(std::function<void()> step) { steps_.push_back(std::move(step)); }

 private:
  std::vector<std::function<void()>> steps_;
};

VkShaderModule shader(VkDevice device, const uint32_t* words, size_t bytes, Cleanup& cleanup) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = words;
  VkShaderModule module = VK_NULL_HANDLE;
  check(vkCreateShaderModule(device, &info, nullptr, &module), "vkCreateShaderModule");
  cleanup.add([=] { vkDestroyShaderModule(device, module, nullptr); });
  return module;
}

// The backend's band pipeline, from the same create-infos.
VkPipeline band_pipeline(VkDevice device, VkPipelineLayout layout, Cleanup& cleanup) {
  const tidemark::backend::BandPipelineState state(shader(device, kBandVert, sizeof(kBandVert), cleanup),
                                                   shader(device, kBandFrag, sizeof(kBandFrag), cleanup), layout);
  VkPipeline pipeline = VK_NULL_HANDLE;
  check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &state.info, nullptr, &pipeline),
        "vkCreateGraphicsPipelines");
  cleanup.add([=] { vkDestroyPipeline(device, pipeline, nullptr); });
  return pipeline;
}

using tidemark::backend::image_barrier;

struct Target {
  VkImage image;
  VkImageView view;
};

Target make_target(const Floor& floor, uint32_t side, Cleanup& cleanup) {
  VkDevice device = floor.device.get();
  VkImageCreateInfo image_info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  image_info.imageType = VK_IMAGE_TYPE_2D;
  image_info.format = tidemark::backend::kTargetFormat;
  image_info.extent = {side, side, 1};
  image_info.mipLevels = image_info.arrayLayers = 1;
  image_info.samples = VK_SAMPLE_COUNT_1_BIT;
  image_info.tiling = VK_IMAGE_TILING_OPTIMAL;
  image_info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  VkImage image = VK_NULL_HANDLE;
  check(vkCreateImage(device, &image_info, nullptr, &image), "vkCreateImage");
  cleanup.add([=] { vkDestroyImage(device, image, nullptr); });
  VkMemoryRequirements needs;
  vkGetImageMemoryRequirements(device, image, &needs);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = needs.size;
  while (!(needs.memoryTypeBits & (1u << alloc.memoryTypeIndex))) ++alloc.memoryTypeIndex;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  check(vkAllocateMemory(device, &alloc, nullptr, &memory), "vkAllocateMemory");
  cleanup.add([=] { vkFreeMemory(device, memory, nullptr); });  // runs after the image is destroyed
  check(vkBindImageMemory(device, image, memory, 0), "vkBindImageMemory");
  VkImageViewCreateInfo view_info{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  view_info.image = image;
  view_info.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view_info.format = tidemark::backend::kTargetFormat;
  view_info.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VkImageView view = VK_NULL_HANDLE;
  check(vkCreateImageView(device, &view_info, nullptr, &view), "vkCreateImageView");
  cleanup.add([=] { vkDestroyImageView(device, view, nullptr); });
  return {image, view};
}

// A set layout with the uniform store's binding, a pipeline layout with the band's push
// constants, and one set naming `uniform`.
struct Binding {
  VkPipelineLayout layout;
  VkDescriptorSet set;
};

Binding bind_uniform(VkDevice device, VkBuffer uniform, Cleanup& cleanup) {
  VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT};
  VkDescriptorSetLayoutCreateInfo set_layout_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  set_layout_info.bindingCount = 1;
  set_layout_info.pBindings = &binding;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  check(vkCreateDescriptorSetLayout(device, &set_layout_info, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
  cleanup.add([=] { vkDestroyDescriptorSetLayout(device, set_layout, nullptr); });
  VkPushConstantRange push_range{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(tidemark::backend::PushConstants)};
  VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push_range;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  check(vkCreatePipelineLayout(device, &layout_info, nullptr, &layout), "vkCreatePipelineLayout");
  cleanup.add([=] { vkDestroyPipelineLayout(device, layout, nullptr); });

  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1};
  VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  check(vkCreateDescriptorPool(device, &pool_info, nullptr, &pool), "vkCreateDescriptorPool");
  cleanup.add([=] { vkDestroyDescriptorPool(device, pool, nullptr); });
  VkDescriptorSetAllocateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  set_info.descriptorPool = pool;
  set_info.descriptorSetCount = 1;
  set_info.pSetLayouts = &set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(device, &set_info, &set), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo buffer_info{uniform, 0, tidemark::backend::kUniformRange};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  write.pBufferInfo = &buffer_info;
  vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
  return {layout, set};
}

// Records the draw: the target cleared opaque black, one band over all of it, then copied to
// `read_back` for the host.
void record_draw(VkCommandBuffer commands, const Target& target, uint32_t side, const Binding& binding,
                 VkPipeline pipeline, VkBuffer vertices, VkBuffer read_back) {
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  image_barrier(commands, target.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
  VkRenderingAttachmentInfo attachment{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
  attachment.imageView = target.view;
  attachment.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
  attachment.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  attachment.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  attachment.clearValue.color.float32[3] = 1.0f;
  VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
  rendering.renderArea = {{0, 0}, {side, side}};
  rendering.layerCount = 1;
  rendering.colorAttachmentCount = 1;
  rendering.pColorAttachments = &attachment;
  vkCmdBeginRendering(commands, &rendering);
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  VkViewport viewport{0, 0, static_cast<float>(side), static_cast<float>(side), 0, 1};
  VkRect2D scissor{{0, 0}, {side, side}};
  vkCmdSetViewport(commands, 0, 1, &viewport);
  vkCmdSetScissor(commands, 0, 1, &scissor);
  vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, binding.layout, 0, 1, &binding.set, 0, nullptr);
  VkDeviceSize zero = 0;
  vkCmdBindVertexBuffers(commands, 0, 1, &vertices, &zero);
  const int32_t whole = static_cast<int32_t>(side);
  const tidemark::backend::PushConstants push{{0, 0, whole, whole}, {whole, whole}};  // the whole target
  vkCmdPushConstants(commands, binding.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(push), &push);
  vkCmdDraw(commands, 4, 1, 0, 0);
  vkCmdEndRendering(commands);
  image_barrier(commands, target.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {side, side, 1};
  vkCmdCopyImageToBuffer(commands, target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, read_back, 1, &region);
  VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr,
                       0, nullptr);
  check(vkEndCommandBuffer(commands), "vkEndCommandBuffer");
}

// The stream's one draw of `uniform`, submitted and read back: the first pixel's RGBA.
uint32_t draw_once(const Floor& floor, const Store& uniform) {
  constexpr uint32_t kSide = 16;
  VkDevice device = floor.device.get();
  Cleanup cleanup;
  const Target target = make_target(floor, kSide, cleanup);
  const Binding binding = bind_uniform(device, uniform.buffer(), cleanup);
  const VkPipeline pipeline = band_pipeline(device, binding.layout, cleanup);
  const Store vertices = mint(floor, std::vector<uint8_t>(tidemark::backend::kVertexBytes, 0));  // no offset
  const Store read_back = mint(floor, std::vector<uint8_t>(kSide * kSide * 4, 0));

  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool = VK_NULL_HANDLE;
  check(vkCreateCommandPool(device, &pool_info, nullptr, &pool), "vkCreateCommandPool");
  cleanup.add([=] { vkDestroyCommandPool(device, pool, nullptr); });
  VkCommandBufferAllocateInfo command_info{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  command_info.commandPool = pool;
  command_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  command_info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(device, &command_info, &commands), "vkAllocateCommandBuffers");
  record_draw(commands, target, kSide, binding, pipeline, vertices.buffer(), read_back.buffer());

  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkFence fence = VK_NULL_HANDLE;
  check(vkCreateFence(device, &fence_info, nullptr, &fence), "vkCreateFence");
  cleanup.add([=] { vkDestroyFence(device, fence, nullptr); });
  VkQueue queue = VK_NULL_HANDLE;
  vkGetDeviceQueue(device, 0, 0, &queue);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  check(vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  uint32_t pixel = 0;
  std::memcpy(&pixel, read_back.mapped(), sizeof(pixel));
  return pixel;
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
  bool draw = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--draw") {
      draw = true;
    } else if ((flag == "--cycles" || flag == "--size") && i + 1 < argc) {
      const char* value = argv[++i];
      (flag == "--cycles" ? cycles : size) = number(value, flag.c_str());
    } else {
      std::fprintf(stderr, "tidemark-vulkan-floor: expected --cycles N, --size BYTES or --draw, found '%s'\n", argv[i]);
      return 2;
    }
  }
  if (draw && size < tidemark::backend::kUniformRange) {
    std::fprintf(
        stderr, "tidemark-vulkan-floor: --draw: expected stores of at least %llu bytes (a colour), found %llu\n",
        static_cast<unsigned long long>(tidemark::backend::kUniformRange), static_cast<unsigned long long>(size));
    return 2;
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
  const auto ended = Clock::now();
  auto seconds = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  std::printf("{\"cycles\": %llu, \"size\": %llu, \"calls\": %llu, \"startup_seconds\": %.6f, \"cycle_seconds\": %.6f",
              static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(size),
              static_cast<unsigned long long>(cycles * kCallsPerCycle), seconds(started - began),
              seconds(ended - started));
  if (draw) {
    const uint32_t pixel = draw_once(floor, current);
    std::printf(", \"draw_seconds\": %.6f, \"pixel\": [%u, %u, %u, %u]", seconds(Clock::now() - ended), pixel & 0xff,
                (pixel >> 8) & 0xff, (pixel >> 16) & 0xff, pixel >> 24);
  }
  std::printf("}\n");
  current = Store();
  return 0;
}
