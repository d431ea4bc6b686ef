// Private to the backend: the band pipeline every draw uses (a rectangle of the target in the
// uniform store's colour, moved by the vertex store's offset) and the barriers around it.
#pragma once

#include <cstdint>

#include "backend/band_pipeline_state.h"
#include "backend/vk.h"
#include "core/error.h"

namespace tidemark::backend {

inline constexpr VkPipelineStageFlags kDrawReadStages = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
                                                 VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                                 VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;

Result<vk::Pipeline> create_band_pipeline(VkDevice device, VkPipelineLayout layout);

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace tidemark::backend
