// Private to the backend: the lavapipe instance and device, chosen explicitly.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/vk.h"
#include "core/error.h"

namespace tidemark::backend {

// Collects VK_LAYER_KHRONOS_validation messages; its address is handed to the layer.
class ValidationLog {
 public:
  void add(std::string message);
  std::vector<std::string> messages() const;

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

class Device {
  struct Passkey {};

 public:
  explicit Device(Passkey) {}
  // `observed`: the Tidemark layer beneath (the session has made it findable and attached).
  static Result<std::unique_ptr<Device>> create(bool validation, bool observed = false);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  VkDevice device() const { return device_.get(); }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  // The driver as identities name it: "driverName driverInfo (deviceName)".
  const std::string& driver_text() const { return driver_text_; }
  // An allocation of `size` bytes of the memory type that is host visible and coherent, as
  // lavapipe's only type is: what every buffer and the render target live in.
  Result<vk::Memory> allocate_host_memory(VkDeviceSize size) const;
  std::vector<std::string> validation_messages() const;

 private:
  // The steps of create(), in order.
  Status create_instance(bool validation, bool observed);
  Status pick_cpu_device();
  Status pick_queue_and_memory();
  Status create_logical_device();

  using InstancePtr = std::unique_ptr<std::remove_pointer_t<VkInstance>, vk::InstanceDeleter>;
  using DevicePtr = std::unique_ptr<std::remove_pointer_t<VkDevice>, vk::DeviceDeleter>;

  std::unique_ptr<ValidationLog> validation_log_;
  InstancePtr instance_;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties_{};
  std::string driver_text_;
  DevicePtr device_;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t host_memory_type_ = 0;
};

}  // namespace tidemark::backend
