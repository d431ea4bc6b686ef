// Private to the backend: the colour target every draw renders into (a kTargetFormat image in
// host-visible memory, and its view), and the commands that clear it, render into it and copy
// it out. Each Vulkan object is owned (vk.h), destroyed view first, image last.
#pragma once

#include <cstdint>

#include "backend/device.h"
#include "backend/vk.h"
#include "core/error.h"

namespace tidemark::backend {

class RenderTarget {
 public:
  RenderTarget() = default;  // none yet: the backend makes one when it starts
  // A width x height target bound to its own allocation (outside the device-memory account: it
  // never changes), its contents undefined until record_clear.
  static Result<RenderTarget> create(const Device& device, int width, int height);

  uint64_t memory_bytes() const { return memory_bytes_; }

  // Clears to opaque black, so an unpainted pixel never matches a palette colour, and leaves the
  // target ready to render into.
  void record_clear(VkCommandBuffer commands) const;
  // Starts a rendering pass that loads and stores the whole target, `pipeline` bound, its
  // viewport and scissor the target; earlier draws, copies and clears come first.
  void record_begin_rendering(VkCommandBuffer commands, VkPipeline pipeline) const;
  // Copies the pixels (width * height * 4 bytes, top row first) into `buffer`, visible to the host
  // once the commands retire, and leaves the target ready to render into again.
  void record_copy_out(VkCommandBuffer commands, VkBuffer buffer) const;

 private:
  VkExtent2D extent() const { return {static_cast<uint32_t>(width_), static_cast<uint32_t>(height_)}; }

  int width_ = 0;
  int height_ = 0;
  uint64_t memory_bytes_ = 0;
  vk::Image image_;
  vk::Memory memory_;
  vk::ImageView view_;
};

}  // namespace tidemark::backend
