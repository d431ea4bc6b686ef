// Private to the backend: the band pipeline every draw uses (a rectangle of the target in the
// uniform store's colour, moved by the vertex store's offset) and the barriers around it.
#pragma once

#include <cstdint>

#include "backend/vk.h"
#include "core/error.h"

namespace tidemark::backend {

inline constexpr VkFormat kTargetFormat = VK_FORMAT_R8G8B8A8_UNORM;
inline constexpr uint64_t kUniformRange = 4;      // one packed RGBA8 colour
inline constexpr uint64_t kVertexBytes = 8;       // one float2 offset

struct PushConstants {
  int32_t rect[4];
  int32_t target[2];
};

inline constexpr VkPipelineStageFlags kDrawReadStages = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
                                                 VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                                 VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;

Result<vk::Pipeline> create_band_pipeline(VkDevice device, VkPipelineLayout layout);

void image_barrier(VkCommandBuffer commands, VkImage image, VkImageLayout from, VkImageLayout to,
                   VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                   VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace tidemark::backend
