#include "backend/band_pipeline.h"

#include <span>
#include <utility>

namespace tidemark::backend {

namespace {

const uint32_t kBandVert[] = {
#include "shaders/band_vert.spv.inc"
};
const uint32_t kBandFrag[] = {
#include "shaders/band_frag.spv.inc"
};

Result<vk::ShaderModule> make_shader(VkDevice device, std::span<const uint32_t> words) {
  VkShaderModuleCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  info.codeSize = words.size_bytes();
  info.pCode = words.data();
  return vk::ShaderModule::create(device, vkCreateShaderModule, info, "vkCreateShaderModule");
}

Result<vk::Pipeline> create_band_pipeline(VkDevice device, VkPipelineLayout layout) {
  TIDEMARK_TRY(vert, make_shader(device, kBandVert));
  TIDEMARK_TRY(frag, make_shader(device, kBandFrag));
  const BandPipelineState state(vert.get(), frag.get(), layout);
  VkPipeline pipeline = VK_NULL_HANDLE;
  TIDEMARK_CHECK(vk::check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &state.info, nullptr, &pipeline),
                           "vkCreateGraphicsPipelines"));
  return vk::Pipeline(device, pipeline);
}

}  // namespace

Result<BandPipeline> BandPipeline::create(VkDevice device) {
  BandPipeline made;
  VkDescriptorSetLayoutBinding binding{};
  binding.binding = 0;
  binding.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
  binding.descriptorCount = 1;
  binding.stageFlags = VK_SHADER_STAGE_FRAGMENT_BIT;
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = 1;
  set_info.pBindings = &binding;
  TIDEMARK_TRY(set_layout, vk::DescriptorSetLayout::create(device, vkCreateDescriptorSetLayout, set_info,
                                                           "vkCreateDescriptorSetLayout"));
  made.set_layout_ = std::move(set_layout);
  VkDescriptorSetLayout set_layouts[] = {made.set_layout_.get()};

  VkPushConstantRange push{VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(PushConstants)};
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = set_layouts;
  layout_info.pushConstantRangeCount = 1;
  layout_info.pPushConstantRanges = &push;
  TIDEMARK_TRY(layout,
               vk::PipelineLayout::create(device, vkCreatePipelineLayout, layout_info, "vkCreatePipelineLayout"));
  made.layout_ = std::move(layout);

  TIDEMARK_TRY(pipeline, create_band_pipeline(device, made.layout_.get()));
  made.pipeline_ = std::move(pipeline);
  return made;
}

void memory_barrier(VkCommandBuffer commands, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(commands, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

}  // namespace tidemark::backend
