// Private to the backend: the band pipeline every draw uses (a rectangle of the target in the
// uniform store's colour, moved by the vertex store's offset), its layouts, and the barriers
// around it.
#pragma once

#include <cstdint>

#include "backend/band_pipeline_state.h"
#include "backend/vk.h"
#include "core/error.h"

namespace tidemark::backend {

inline constexpr VkPipelineStageFlags kDrawReadStages =
    VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;

// The pipeline and the layouts it is made with: a descriptor set of one uniform buffer (the
// colour, read by the fragment stage) and PushConstants (the band, read by the vertex stage).
// Destroyed pipeline first, set layout last.
class BandPipeline {
 public:
  BandPipeline() = default;  // none yet: the backend makes one when it starts
  static Result<BandPipeline> create(VkDevice device);

  VkDescriptorSetLayout set_layout() const { return set_layout_.get(); }
  VkPipelineLayout layout() const { return layout_.get(); }
  VkPipeline pipeline() const { return pipeline_.get(); }

 private:
  vk::DescriptorSetLayout set_layout_;
  vk::PipelineLayout layout_;
  vk::Pipeline pipeline_;
};

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

}  // namespace tidemark::backend
