#include "backend/submissions.h"

#include <fmt/format.h>

#include <algorithm>

namespace tidemark::backend {

namespace {

constexpr uint64_t kWatchdogNs = 30'000'000'000ull;      // a batch lavapipe cannot finish in 30 s is a hang
constexpr uint64_t kKernelSyncBudgetNs = 1'000'000'000;  // virtual: the kernel's fence for a sync that must finish

std::unexpected<Error> sync_fatal(const char* site, std::string why) {
  return fail(ErrorKind::Fatal, fmt::format("fatal buffer-write-sync {{site={}}}: {}", site, why));
}

}  // namespace

Submissions::Submissions(const Device& device, uint32_t retire_lag, api::DeviceEvents* kernel,
                         std::function<void(VkCommandBuffer)> before_close)
    : device_(device), retire_lag_(retire_lag), kernel_(kernel), before_close_(std::move(before_close)) {}

Submissions::~Submissions() {
  if (device_.device() != VK_NULL_HANDLE) vkDeviceWaitIdle(device_.device());
}

Status Submissions::init() {
  VkCommandPoolCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex = device_.queue_family();
  TIDEMARK_TRY(pool, vk::CommandPool::create(device_.device(), vkCreateCommandPool, info, "vkCreateCommandPool"));
  pool_ = std::move(pool);
  return {};
}

Result<VkCommandBuffer> Submissions::acquire_command_buffer() {
  if (!free_command_buffers_.empty()) {
    VkCommandBuffer commands = free_command_buffers_.back();
    free_command_buffers_.pop_back();
    return commands;
  }
  VkCommandBufferAllocateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = pool_.get();
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  if (auto ok = vk::check(vkAllocateCommandBuffers(device_.device(), &info, &commands), "vkAllocateCommandBuffers");
      !ok)
    return std::unexpected(ok.error());
  return commands;
}

Result<vk::Fence> Submissions::acquire_fence() {
  if (!free_fences_.empty()) {
    vk::Fence fence = std::move(free_fences_.back());
    free_fences_.pop_back();
    return fence;
  }
  VkFenceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  return vk::Fence::create(device_.device(), vkCreateFence, info, "vkCreateFence");
}

Result<VkCommandBuffer> Submissions::open() {
  if (recording_ != VK_NULL_HANDLE) return recording_;
  TIDEMARK_TRY(commands, acquire_command_buffer());
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (auto ok = vk::check(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer"); !ok)
    return std::unexpected(ok.error());
  recording_ = commands;
  return recording_;
}

Status Submissions::submit() {
  if (!has_commands_) return {};
  before_close_(recording_);
  if (auto ok = vk::check(vkEndCommandBuffer(recording_), "vkEndCommandBuffer"); !ok) return ok;
  TIDEMARK_TRY(fence, acquire_fence());
  VkSubmitInfo info{};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.commandBufferCount = 1;
  info.pCommandBuffers = &recording_;
  if (auto ok = vk::check(vkQueueSubmit(device_.queue(), 1, &info, fence.get()), "vkQueueSubmit"); !ok) return ok;
  in_flight_.push_back({++submitted_, recording_, std::move(fence)});
  recording_ = VK_NULL_HANDLE;
  has_commands_ = false;
  if (kernel_) kernel_fences_.emplace_back(submitted_, kernel_->queue_submitted());
  if (on_submitted_) on_submitted_();
  if (retire_lag_ > 0 && submitted_ > retire_lag_) return must_retire(submitted_ - retire_lag_, "retire-lag");
  return {};
}

Status Submissions::must_retire(uint64_t index, const char* site) {
  TIDEMARK_TRY(retired, wait_for(index, site, kKernelSyncBudgetNs));
  if (retired) return {};
  if (kernel_->kick()) {
    TIDEMARK_TRY(after_kick, wait_for(index, site, kKernelSyncBudgetNs));
    if (after_kick) return {};
  }
  return sync_fatal(site, fmt::format("submit {} did not retire: {}", index, kernel_->queue_state()));
}

Result<bool> Submissions::wait_for(uint64_t index, const char* site, uint64_t kernel_budget_ns) {
  while (!in_flight_.empty() && in_flight_.front().index <= index) {
    Batch& batch = in_flight_.front();
    VkFence fence = batch.fence.get();
    VkResult waited = vkWaitForFences(device_.device(), 1, &fence, VK_TRUE, kWatchdogNs);
    if (waited == VK_TIMEOUT) return sync_fatal(site, fmt::format("submit {} did not retire within 30 s", batch.index));
    if (waited != VK_SUCCESS)
      return sync_fatal(site, fmt::format("waiting for submit {}: {}", batch.index, vk::result_name(waited)));
    vkResetFences(device_.device(), 1, &fence);
    vkResetCommandBuffer(batch.commands, 0);
    free_command_buffers_.push_back(batch.commands);
    free_fences_.push_back(std::move(batch.fence));
    in_flight_.pop_front();
  }
  uint64_t target = std::min(index, submitted_);
  if (!kernel_) {
    completed_ = std::max(completed_, target);
  } else {
    auto needed = std::find_if(kernel_fences_.begin(), kernel_fences_.end(),
                               [&](const auto& entry) { return entry.first == target; });
    if (needed != kernel_fences_.end() && needed->second != 0) kernel_->wait_retired(needed->second, kernel_budget_ns);
    while (!kernel_fences_.empty() && kernel_fences_.front().first <= target && kernel_fences_.front().second != 0 &&
           kernel_->retired(kernel_fences_.front().second)) {
      completed_ = std::max(completed_, kernel_fences_.front().first);
      kernel_fences_.pop_front();
    }
  }
  while (!held_.empty() && held_.front().first <= completed_) held_.pop_front();
  return completed_ >= target;
}

Status Submissions::sync(const char* site) {
  if (auto ok = submit(); !ok) return ok;
  return must_retire(submitted_, site);
}

void Submissions::release_when_retired(HostBuffer buffer) { held_.emplace_back(sync_point(), std::move(buffer)); }

}  // namespace tidemark::backend
