// The layer's intercepts of queue submits and of every way a client learns of completion, under
// the completion rule (completion.h): what a poll shows, what a blocking wait needs of the kernel.
#include "layer/observer.h"

namespace tidemark::layer {

constexpr uint64_t kKernelBudgetNs = 1'000'000'000;  // virtual: the kernel's time for a blocking wait

// --- submits and completion ---------------------------------------------------------------

// One queue submit: a packet in the kernel model's ring, a number on the queue for the
// completion rule, a sample of the gauges (caller holds the lock).
void submitted(Observer& o, DeviceState& device, VkQueue queue, VkFence fence,
               std::span<const CompletionRule::Signal> signals) {
  ++device.gauges.submits;
  const TidemarkLayerSink* sink = device.sink();
  uint64_t kernel_fence = sink && sink->queue_submitted ? sink->queue_submitted(sink->context) : 0;
  // Without the kernel model the layer's own order stands in for its fences.
  if (!sink || !sink->queue_submitted) kernel_fence = static_cast<uint64_t>(device.gauges.submits);
  device.completion.submitted(key(queue), kernel_fence, key(fence), signals);
  o.event(device, TIDEMARK_EVENT_SUBMITTED, 0, key(queue), 0);
  if (sink && sink->sample) sink->sample(sink->context, &device.gauges);
}

bool is_timeline(DeviceState& device, VkSemaphore semaphore) { return device.completion.is_timeline(key(semaphore)); }

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  VkResult result = next_of(queue).QueueSubmit(queue, count, submits, fence);
  if (result != VK_SUCCESS) return result;
  with_device(queue, [&](Observer& o, DeviceState& d) {
    std::vector<CompletionRule::Signal> signals;
    for (const VkSubmitInfo& submit : std::span(submits, count)) {
      auto* values = find_in_chain<VkTimelineSemaphoreSubmitInfo>(submit.pNext,
                                                                   VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
      if (!values || !values->pSignalSemaphoreValues) continue;
      for (uint32_t i = 0; i < std::min(submit.signalSemaphoreCount, values->signalSemaphoreValueCount); ++i)
        if (is_timeline(d, submit.pSignalSemaphores[i]))
          signals.push_back({key(submit.pSignalSemaphores[i]), values->pSignalSemaphoreValues[i]});
    }
    submitted(o, d, queue, fence, signals);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits, VkFence fence) {
  VkResult result = next_of(queue).QueueSubmit2(queue, count, submits, fence);
  if (result != VK_SUCCESS) return result;
  with_device(queue, [&](Observer& o, DeviceState& d) {
    std::vector<CompletionRule::Signal> signals;
    for (const VkSubmitInfo2& submit : std::span(submits, count))
      for (const auto& signal : std::span(submit.pSignalSemaphoreInfos, submit.signalSemaphoreInfoCount))
        if (is_timeline(d, signal.semaphore)) signals.push_back({key(signal.semaphore), signal.value});
    submitted(o, d, queue, fence, signals);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ResetFences(VkDevice device, uint32_t count, const VkFence* fences) {
  VkResult result = next_of(device).ResetFences(device, count, fences);
  if (result == VK_SUCCESS) with_device(device, [&](Observer&, DeviceState& d) {
      for (VkFence fence : std::span(fences, count)) d.completion.fence_reset(key(fence));
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyFence(device, fence, allocator);
  with_device(device, [&](Observer&, DeviceState& d) { d.completion.fence_reset(key(fence)); });
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* allocator, VkSemaphore* semaphore) {
  VkResult result = next_of(device).CreateSemaphore(device, info, allocator, semaphore);
  if (result != VK_SUCCESS) return result;
  auto* type = find_in_chain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  if (type && type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE)
    with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_created(key(*semaphore), type->initialValue); });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroySemaphore(VkDevice device, VkSemaphore semaphore, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroySemaphore(device, semaphore, allocator);
  with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_destroyed(key(semaphore)); });
}

VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphore(VkDevice device, const VkSemaphoreSignalInfo* info) {
  VkResult result = next_of(device).SignalSemaphore(device, info);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) { d.completion.semaphore_signaled(key(info->semaphore), info->value); });
  return result;
}

// A blocking wait the driver finished: the work it reveals must have been seen by the kernel
// model, within the wait's timeout of the kernel's virtual time. An unbounded wait (a sync that
// must finish) then has the driver ring again once, as the built-in backend's syncs do; a
// bounded one times out. False: never seen.
bool kernel_saw(DeviceState& device, const std::optional<CompletionRule::Reveal>& reveal, uint64_t timeout,
                uint64_t fence, uint64_t semaphore = 0, uint64_t value = 0) {
  if (!reveal) return true;  // nothing the layer saw submitted: the driver's answer stands
  const TidemarkLayerSink* sink = device.sink();
  if (sink && sink->retired && device.settings.completion == TIDEMARK_COMPLETION_DETERMINISTIC) {
    auto need = device.completion.kernel_need(*reveal);
    if (need.refused) return false;
    auto seen = [&] { return need.fence == 0 || sink->retired(sink->context, need.fence); };
    const uint64_t budget = std::min(timeout, kKernelBudgetNs);
    if (!seen() && sink->wait_retired) sink->wait_retired(sink->context, need.fence, budget);
    if (!seen() && timeout == UINT64_MAX && sink->kick && sink->kick(sink->context) && sink->wait_retired)
      sink->wait_retired(sink->context, need.fence, budget);
    if (!seen()) return false;
  }
  device.completion.confirm(*reveal, fence, semaphore, value);
  Observer::get().event(device, TIDEMARK_EVENT_RETIRED, 0, reveal->queue, reveal->submit);
  return true;
}

// A blocking wait's answer once the kernel is asked: lost work is a timeout for a bounded
// wait, and a lost device for an unbounded one (it would never return).
VkResult wait_outcome(DeviceState& device, bool seen, uint64_t timeout) {
  if (seen) {
    ++device.gauges.waits_done;
    return VK_SUCCESS;
  }
  ++device.gauges.waits_lost;
  return timeout == UINT64_MAX ? VK_ERROR_DEVICE_LOST : VK_TIMEOUT;
}

VkResult poll_outcome(DeviceState& device, bool done) {
  ++(done ? device.gauges.polls_done : device.gauges.polls_busy);
  return done ? VK_SUCCESS : VK_NOT_READY;
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  VkResult real = next_of(device).GetFenceStatus(device, fence);
  if (real != VK_SUCCESS && real != VK_NOT_READY) return real;
  return with_device(device, [&](Observer&, DeviceState& d) {
    return poll_outcome(d, d.completion.fence_shown_done(key(fence), real == VK_SUCCESS));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 wait_all,
                                             uint64_t timeout) {
  const DeviceTable& next = next_of(device);
  auto fence_list = std::span(fences, count);
  if (timeout == 0) {  // a poll: shown done by the rule
    std::vector<bool> driver_done;
    for (VkFence fence : fence_list) driver_done.push_back(next.GetFenceStatus(device, fence) == VK_SUCCESS);
    return with_device(device, [&](Observer&, DeviceState& d) {
      size_t done = 0;
      for (size_t i = 0; i < count; ++i) done += d.completion.fence_shown_done(key(fence_list[i]), driver_done[i]);
      VkResult shown = poll_outcome(d, wait_all ? done == count : done > 0);
      return shown == VK_NOT_READY ? VK_TIMEOUT : shown;
    });
  }
  VkResult real = next.WaitForFences(device, count, fences, wait_all, timeout);
  if (real == VK_TIMEOUT) {
    with_device(device, [&](Observer&, DeviceState& d) { ++d.gauges.waits_timed_out; });
    return real;
  }
  if (real != VK_SUCCESS) return real;
  std::vector<VkFence> finished;  // for a wait on any, the fences the driver has finished
  for (VkFence fence : fence_list)
    if (wait_all || next.GetFenceStatus(device, fence) == VK_SUCCESS) finished.push_back(fence);
  return with_device(device, [&](Observer&, DeviceState& d) {
    bool seen = true;
    for (VkFence fence : finished)
      seen = kernel_saw(d, d.completion.fence_wait(key(fence)), timeout, key(fence)) && seen;
    return wait_outcome(d, seen, timeout);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  VkResult real = next_of(device).GetSemaphoreCounterValue(device, semaphore, value);
  if (real != VK_SUCCESS) return real;
  with_device(device, [&](Observer&, DeviceState& d) {
    uint64_t driver_value = *value;
    *value = d.completion.semaphore_shown_value(key(semaphore), driver_value);
    poll_outcome(d, *value >= d.completion.semaphore_target(key(semaphore)));
  });
  return real;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  const DeviceTable& next = next_of(device);
  auto semaphores = std::span(info->pSemaphores, info->semaphoreCount);
  auto values = std::span(info->pValues, info->semaphoreCount);
  const bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
  std::vector<uint64_t> driver_values;
  auto read_values = [&] {
    driver_values.clear();
    for (VkSemaphore semaphore : semaphores) {
      uint64_t value = 0;
      next.GetSemaphoreCounterValue(device, semaphore, &value);
      driver_values.push_back(value);
    }
  };
  if (timeout == 0) {
    read_values();
    return with_device(device, [&](Observer&, DeviceState& d) {
      size_t reached = 0;
      for (size_t i = 0; i < semaphores.size(); ++i)
        reached += d.completion.semaphore_shown_value(key(semaphores[i]), driver_values[i]) >= values[i];
      VkResult shown = poll_outcome(d, any ? reached > 0 : reached == semaphores.size());
      return shown == VK_NOT_READY ? VK_TIMEOUT : shown;
    });
  }
  VkResult real = next.WaitSemaphores(device, info, timeout);
  if (real == VK_TIMEOUT) {
    with_device(device, [&](Observer&, DeviceState& d) { ++d.gauges.waits_timed_out; });
    return real;
  }
  if (real != VK_SUCCESS) return real;
  read_values();
  return with_device(device, [&](Observer&, DeviceState& d) {
    bool seen = true;
    for (size_t i = 0; i < semaphores.size(); ++i) {
      if (driver_values[i] < values[i]) continue;  // a wait on any: not this one
      uint64_t semaphore = key(semaphores[i]);
      seen = kernel_saw(d, d.completion.semaphore_wait(semaphore, values[i]), timeout, 0, semaphore, values[i]) && seen;
    }
    return wait_outcome(d, seen, timeout);
  });
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  VkResult real = next_of(queue).QueueWaitIdle(queue);
  if (real != VK_SUCCESS) return real;
  return with_device(queue, [&](Observer&, DeviceState& d) {
    return wait_outcome(d, kernel_saw(d, d.completion.queue_idle(key(queue)), UINT64_MAX, 0), UINT64_MAX);
  });
}


}  // namespace tidemark::layer
