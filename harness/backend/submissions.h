// Private to the backend: the command buffer being recorded and the queue's submits. Completion
// is seen only by waiting on a fence, never by polling, so what counts as retired is a pure
// function of the workload. Each submit is also a packet in the kernel model's ring and retires
// only when the kernel has seen its fence too, so a kernel fault (a lost doorbell) reaches the
// backend as a wait that times out in virtual time.
#pragma once

#include <deque>
#include <functional>
#include <vector>

#include "backend/device.h"
#include "backend/host_buffer.h"
#include "backend/reclaim.h"
#include "backend/vk.h"
#include "api/device.h"

namespace tidemark::backend {

class Submissions final : public SubmitTimeline {
 public:
  // `before_close` runs on the open command buffer just before it ends (the backend closes
  // its render pass there). `retire_lag` > 0: after each submit, wait for the one that many
  // submits earlier.
  // `kernel` null: the submits bypass the kernel model (a mutant).
  Submissions(const Device& device, uint32_t retire_lag, api::DeviceEvents* kernel,
              std::function<void(VkCommandBuffer)> before_close);
  ~Submissions() override;
  Status init();

  // The command buffer being recorded, begun on first use.
  Result<VkCommandBuffer> open();
  // Runs after every queue submit (the run trace samples the gauges there).
  void on_submitted(std::function<void()> callback) { on_submitted_ = std::move(callback); }
  // Something was recorded into it: the next submit has work.
  void recorded() { has_commands_ = true; }
  Status submit();
  // Waits until submit `index` retired, the kernel's part within `kernel_budget_ns` of
  // virtual time; false when the kernel's fence did not come.
  Result<bool> wait_for(uint64_t index, const char* site, uint64_t kernel_budget_ns);
  // Keeps `buffer` (a staging copy's source) until the submit being recorded retires.
  void release_when_retired(HostBuffer buffer);

  uint64_t submitted() const { return submitted_; }
  // The submit index a fence created now waits for.
  uint64_t fence_index() const { return has_commands_ ? sync_point() : submitted_; }

  // SubmitTimeline
  uint64_t sync_point() const override { return submitted_ + 1; }
  bool is_complete(uint64_t index) const override { return index <= completed_; }
  bool is_idle() const override { return !has_commands_ && completed_ == submitted_; }
  Status sync(const char* site) override;

 private:
  struct Batch {
    uint64_t index;
    VkCommandBuffer commands;
    vk::Fence fence;
  };
  Result<VkCommandBuffer> acquire_command_buffer();
  Result<vk::Fence> acquire_fence();
  // A wait that must end with the submit retired (present, finish, a write into a busy store, the
  // retire lag): rings again once (the driver's recovery, counted as kkicks), then fails naming
  // the kernel's registers.
  Status must_retire(uint64_t index, const char* site);

  const Device& device_;
  uint32_t retire_lag_;
  api::DeviceEvents* kernel_;
  std::deque<std::pair<uint64_t, uint64_t>>
      kernel_fences_;  // (submit index, kernel fence; 0: refused), not yet retired
  std::function<void(VkCommandBuffer)> before_close_;
  std::function<void()> on_submitted_;
  vk::CommandPool pool_;
  std::deque<Batch> in_flight_;
  std::vector<VkCommandBuffer> free_command_buffers_;
  std::vector<vk::Fence> free_fences_;
  std::deque<std::pair<uint64_t, HostBuffer>> held_;  // released when their submit retires
  VkCommandBuffer recording_ = VK_NULL_HANDLE;
  bool has_commands_ = false;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
};

}  // namespace tidemark::backend
