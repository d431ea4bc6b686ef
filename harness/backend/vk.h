// Private to the backend: RAII owners for Vulkan objects and result formatting.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <utility>

#include "core/error.h"

namespace tidemark::backend::vk {

const char* result_name(VkResult result);
// `call: VK_ERROR_...` as an error value; out of line, so the checks on every call stay small.
[[gnu::cold]] Error failed_call(const char* call, VkResult result);

// Owns one object created from a VkDevice and destroys it with `Destroy`.
template <class Handle, void (*Destroy)(VkDevice, Handle, const VkAllocationCallbacks*)>
class DeviceObject {
 public:
  DeviceObject() = default;
  DeviceObject(VkDevice device, Handle handle) : device_(device), handle_(handle) {}

  // Calls a vkCreate*/vkAllocate* entry point and owns what it made.
  template <class Info>
  static Result<DeviceObject> create(VkDevice device,
                                     VkResult (*make)(VkDevice, const Info*, const VkAllocationCallbacks*, Handle*),
                                     const Info& info, const char* call) {
    Handle handle = VK_NULL_HANDLE;
    VkResult made = make(device, &info, nullptr, &handle);
    if (made != VK_SUCCESS) [[unlikely]]
      return std::unexpected(failed_call(call, made));
    return DeviceObject(device, handle);
  }

  DeviceObject(DeviceObject&& other) noexcept
      : device_(other.device_), handle_(std::exchange(other.handle_, VK_NULL_HANDLE)) {}
  DeviceObject& operator=(DeviceObject&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
    }
    return *this;
  }
  DeviceObject(const DeviceObject&) = delete;
  DeviceObject& operator=(const DeviceObject&) = delete;
  ~DeviceObject() { reset(); }

  void reset() {
    if (handle_ != VK_NULL_HANDLE) Destroy(device_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }
  Handle get() const { return handle_; }
  explicit operator bool() const { return handle_ != VK_NULL_HANDLE; }

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  Handle handle_ = VK_NULL_HANDLE;
};

using Buffer = DeviceObject<VkBuffer, vkDestroyBuffer>;
using Memory = DeviceObject<VkDeviceMemory, vkFreeMemory>;
using Image = DeviceObject<VkImage, vkDestroyImage>;
using ImageView = DeviceObject<VkImageView, vkDestroyImageView>;
using ShaderModule = DeviceObject<VkShaderModule, vkDestroyShaderModule>;
using PipelineLayout = DeviceObject<VkPipelineLayout, vkDestroyPipelineLayout>;
using Pipeline = DeviceObject<VkPipeline, vkDestroyPipeline>;
using DescriptorSetLayout = DeviceObject<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout>;
using DescriptorPool = DeviceObject<VkDescriptorPool, vkDestroyDescriptorPool>;
using CommandPool = DeviceObject<VkCommandPool, vkDestroyCommandPool>;
using Fence = DeviceObject<VkFence, vkDestroyFence>;

struct InstanceDeleter {
  bool owned = true;  // false: an instance shared for the process's life, never destroyed here
  void operator()(VkInstance instance) const {
    if (owned) vkDestroyInstance(instance, nullptr);
  }
};
struct DeviceDeleter {
  void operator()(VkDevice device) const { vkDestroyDevice(device, nullptr); }
};

// A failed Vulkan call as an error value: `vkQueueSubmit: VK_ERROR_DEVICE_LOST`.
inline Status check(VkResult result, const char* call) {
  if (result == VK_SUCCESS) [[likely]]
    return {};
  return std::unexpected(failed_call(call, result));
}

}  // namespace tidemark::backend::vk
