#include "backend/band_pipeline.h"

#include <span>

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

}  // namespace

Result<vk::Pipeline> create_band_pipeline(VkDevice device, VkPipelineLayout layout) {
  TIDEMARK_TRY(vert, make_shader(device, kBandVert));
  TIDEMARK_TRY(frag, make_shader(device, kBandFrag));
  const BandPipelineState state(vert.get(), frag.get(), layout);
  VkPipeline pipeline = VK_NULL_HANDLE;
  if (auto ok = vk::check(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &state.info, nullptr, &pipeline),
                          "vkCreateGraphicsPipelines");
      !ok)
    return std::unexpected(ok.error());
  return vk::Pipeline(device, pipeline);
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
