// The layer's intercepts of queue submits and of every way a client learns of completion, under
// the completion rule (completion.h): what a poll shows, what a blocking wait needs of the kernel.
#include "layer/observer.h"

namespace tidemark::layer {

constexpr uint64_t kKernelBudgetNs = 1'000'000'000;  // virtual: the kernel's time for a blocking wait

// --- a lost device -------------------------------------------------------------------------

// A call answered VK_ERROR_DEVICE_LOST, by the driver or the fault (caller holds the lock): counted,
// and the first one kept, and told to the host as it happens.
void note_lost(DeviceState& device, uint32_t call) {
  TidemarkLayerGauges& gauges = device.gauges();
  ++gauges.lost_answers;
  const bool first = gauges.first_lost_call == 0;
  if (first) {
    gauges.first_lost_call = call;
    gauges.first_lost_at = static_cast<int64_t>(device.submits_and_waits.load(std::memory_order_relaxed));
  }
  // A process whose calls another watches through TIDEMARK_LAYER_ACTIVITY (a lane's server, whose
  // session may never open to answer its gauges) notes them in its status file there too.
  Observer& o = Observer::get();
  if (!o.host_activity && o.watched_activity())
    if (TidemarkLayerGauges* slot = o.watched->slot(device.number)) *slot = gauges;
  if (!first) return;
  const TidemarkLayerSink* sink = device.sink();
  if (sink && sink->device_lost) sink->device_lost(sink->context, call, static_cast<uint64_t>(gauges.first_lost_at));
}

// The driver's answer, noted when it says the device is lost.
VkResult noted(const void* dispatchable, uint32_t call, VkResult answer) {
  if (answer != VK_ERROR_DEVICE_LOST) return answer;
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  note_lost(device_of(o, dispatchable), call);
  return answer;
}

// Before a submit, wait or poll goes down: a device device_lost_at made lost answers
// VK_ERROR_DEVICE_LOST from its Nth submit or wait on, as a lost device does, and the driver never
// sees the call. `counted`: one of the calls device_lost_at counts (a submit or wait of any timeout).
std::optional<VkResult> lost_before(const void* dispatchable, uint32_t call, bool counted) {
  DeviceState& device = unlocked_state(dispatchable);
  const uint64_t at = device.settings.device_lost_at;
  const uint64_t made = counted ? device.submits_and_waits.fetch_add(1, std::memory_order_relaxed) + 1 : 0;
  if (at == 0 || (made < at && !device.lost.load(std::memory_order_relaxed))) return std::nullopt;
  device.lost.store(true, std::memory_order_relaxed);
  Observer& o = Observer::get();
  std::lock_guard lock(o.mutex);
  note_lost(device, call);
  return VK_ERROR_DEVICE_LOST;
}

// --- submits and completion ---------------------------------------------------------------

// One queue submit: a packet in the kernel model's ring, a number on the queue for the
// completion rule, a sample of the gauges (caller holds the lock).
void submitted(Observer& o, DeviceState& device, VkQueue queue, VkFence fence,
               std::span<const CompletionRule::Signal> signals) {
  ++device.gauges().submits;
  const TidemarkLayerSink* sink = device.sink();
  uint64_t kernel_fence = sink && sink->queue_submitted ? sink->queue_submitted(sink->context) : 0;
  // Without the kernel model the layer's own order stands in for its fences.
  if (!sink || !sink->queue_submitted) kernel_fence = static_cast<uint64_t>(device.gauges().submits);
  device.completion.submitted(key(queue), kernel_fence, key(fence), signals);
  o.event(device, TIDEMARK_EVENT_SUBMITTED, 0, key(queue), static_cast<uint64_t>(device.gauges().memory_bytes.live));
  if (sink && sink->sample) sink->sample(sink->context, &device.gauges());
}

bool is_timeline(DeviceState& device, VkSemaphore semaphore) { return device.completion.is_timeline(key(semaphore)); }

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  if (auto lost = lost_before(queue, TIDEMARK_LOST_QUEUE_SUBMIT, true)) return *lost;
  VkResult result = next_of(queue).QueueSubmit(queue, count, submits, fence);
  if (result != VK_SUCCESS) return noted(queue, TIDEMARK_LOST_QUEUE_SUBMIT, result);
  with_device(queue, [&](Observer& o, DeviceState& d) {
    std::vector<CompletionRule::Signal> signals;
    for (const VkSubmitInfo& submit : std::span(submits, count)) {
      auto* values =
          find_in_chain<VkTimelineSemaphoreSubmitInfo>(submit.pNext, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
      if (!values || !values->pSignalSemaphoreValues) continue;
      for (uint32_t i = 0; i < std::min(submit.signalSemaphoreCount, values->signalSemaphoreValueCount); ++i)
        if (is_timeline(d, submit.pSignalSemaphores[i]))
          signals.push_back({key(submit.pSignalSemaphores[i]), values->pSignalSemaphoreValues[i]});
    }
    submitted(o, d, queue, fence, signals);
  });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue queue, uint32_t count, const VkSubmitInfo2* submits,
                                            VkFence fence) {
  if (auto lost = lost_before(queue, TIDEMARK_LOST_QUEUE_SUBMIT2, true)) return *lost;
  VkResult result = next_of(queue).QueueSubmit2(queue, count, submits, fence);
  if (result != VK_SUCCESS) return noted(queue, TIDEMARK_LOST_QUEUE_SUBMIT2, result);
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
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) {
      for (VkFence fence : std::span(fences, count)) d.completion.fence_reset(key(fence));
    });
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateFence(VkDevice device, const VkFenceCreateInfo* info,
                                           const VkAllocationCallbacks* allocator, VkFence* fence) {
  VkResult result = next_of(device).CreateFence(device, info, allocator, fence);
  if (result == VK_SUCCESS)
    with_device(device, [&](Observer&, DeviceState& d) {
      d.completion.fence_created(key(*fence), (info->flags & VK_FENCE_CREATE_SIGNALED_BIT) != 0);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroyFence(VkDevice device, VkFence fence, const VkAllocationCallbacks* allocator) {
  next_of(device).DestroyFence(device, fence, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    d.completion.fence_destroyed(key(fence));
    d.answers.erase(key(fence));
  });
}

// Fences signalled by what the rule does not follow: the driver's answers stand for them.
void signalled_elsewhere(const void* dispatchable, VkFence fence,
                         std::source_location where = std::source_location::current()) {
  if (fence != VK_NULL_HANDLE)
    with_device(
        dispatchable, [&](Observer&, DeviceState& d) { d.completion.fence_signalled_elsewhere(key(fence)); }, where);
}

VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImageKHR(VkDevice device, VkSwapchainKHR swapchain, uint64_t timeout,
                                                   VkSemaphore semaphore, VkFence fence, uint32_t* index) {
  VkResult result = next_of(device).AcquireNextImageKHR(device, swapchain, timeout, semaphore, fence, index);
  if (result == VK_SUCCESS || result == VK_SUBOPTIMAL_KHR) signalled_elsewhere(device, fence);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL AcquireNextImage2KHR(VkDevice device, const VkAcquireNextImageInfoKHR* info,
                                                    uint32_t* index) {
  VkResult result = next_of(device).AcquireNextImage2KHR(device, info, index);
  if (result == VK_SUCCESS || result == VK_SUBOPTIMAL_KHR) signalled_elsewhere(device, info->fence);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueBindSparse(VkQueue queue, uint32_t count, const VkBindSparseInfo* binds,
                                               VkFence fence) {
  VkResult result = next_of(queue).QueueBindSparse(queue, count, binds, fence);
  if (result == VK_SUCCESS) signalled_elsewhere(queue, fence);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL ImportFenceFdKHR(VkDevice device, const VkImportFenceFdInfoKHR* info) {
  VkResult result = next_of(device).ImportFenceFdKHR(device, info);
  if (result == VK_SUCCESS) signalled_elsewhere(device, info->fence);
  return result;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo* info,
                                               const VkAllocationCallbacks* allocator, VkSemaphore* semaphore) {
  VkResult result = next_of(device).CreateSemaphore(device, info, allocator, semaphore);
  if (result != VK_SUCCESS) return result;
  auto* type = find_in_chain<VkSemaphoreTypeCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  if (type && type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE)
    with_device(device, [&](Observer&, DeviceState& d) {
      d.completion.semaphore_created(key(*semaphore), type->initialValue);
    });
  return result;
}

VKAPI_ATTR void VKAPI_CALL DestroySemaphore(VkDevice device, VkSemaphore semaphore,
                                            const VkAllocationCallbacks* allocator) {
  next_of(device).DestroySemaphore(device, semaphore, allocator);
  with_device(device, [&](Observer&, DeviceState& d) {
    d.completion.semaphore_destroyed(key(semaphore));
    d.answers.erase(key(semaphore));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL SignalSemaphore(VkDevice device, const VkSemaphoreSignalInfo* info) {
  VkResult result = next_of(device).SignalSemaphore(device, info);
  if (result == VK_SUCCESS)
    with_device(device,
                [&](Observer&, DeviceState& d) { d.completion.semaphore_signaled(key(info->semaphore), info->value); });
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
    ++device.gauges().waits_done;
    return VK_SUCCESS;
  }
  ++device.gauges().waits_lost;
  return timeout == UINT64_MAX ? VK_ERROR_DEVICE_LOST : VK_TIMEOUT;
}

// A wait's or poll's answer on `object` (its first, for several), told to the activity a run's
// bounds read: progress only when it changed (Observer::answered).
VkResult answered(Observer& o, DeviceState& device, const char* what, uint64_t object, VkResult answer) {
  const char* text = answer == VK_SUCCESS             ? "VK_SUCCESS"
                     : answer == VK_NOT_READY         ? "VK_NOT_READY"
                     : answer == VK_TIMEOUT           ? "VK_TIMEOUT"
                     : answer == VK_ERROR_DEVICE_LOST ? "VK_ERROR_DEVICE_LOST"
                                                      : "another VkResult";
  o.answered(device, what, object, answer, text);
  return answer;
}

VkResult poll_outcome(DeviceState& device, bool done) {
  ++(done ? device.gauges().polls_done : device.gauges().polls_busy);
  return done ? VK_SUCCESS : VK_NOT_READY;
}

// How long the layer's own wait at a reveal point may take, in wall time. A submit that finishes
// only after the program does something more (signals a semaphore from the host, on this
// thread, after the poll) would never finish while the layer waits: past this, the poll shows
// busy, the run of polls starts again, and the layer says once that the answers now depend on time.
constexpr uint64_t kRevealGuardNs = 10'000'000'000;

void warn_reveal_guard() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::fputs(TIDEMARK_LAYER_NAME
               ": a polled submit did not finish within 10 s of the layer's wait (does it wait on "
               "something the program signals later?); the polls' answers now depend on time\n",
               stderr);
  });
}

// The layer's own wait, beneath the program's unchanged call, bounded by kRevealGuardNs: the
// driver's answer (VK_TIMEOUT once the guard is past).
VkResult wait_guarded(VkDevice device, const std::vector<VkFence>& fences) {
  VkResult waited = next_of(device).WaitForFences(device, static_cast<uint32_t>(fences.size()), fences.data(), VK_TRUE,
                                                  kRevealGuardNs);
  if (waited == VK_TIMEOUT) warn_reveal_guard();
  return waited;
}
VkResult wait_guarded(VkDevice device, const std::vector<std::pair<VkSemaphore, uint64_t>>& reached) {
  std::vector<VkSemaphore> semaphores;
  std::vector<uint64_t> values;
  for (const auto& [semaphore, value] : reached) {
    semaphores.push_back(semaphore);
    values.push_back(value);
  }
  VkSemaphoreWaitInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  info.semaphoreCount = static_cast<uint32_t>(semaphores.size());
  info.pSemaphores = semaphores.data();
  info.pValues = values.data();
  VkResult waited = next_of(device).WaitSemaphores(device, &info, kRevealGuardNs);
  if (waited == VK_TIMEOUT) warn_reveal_guard();
  return waited;
}

// What a reveal point came to: none (not at one), the work seen, lost to the kernel model, the
// layer's wait cut by its guard (the driver's answer stands), or failed in the driver.
enum class Revealed { None, Seen, Lost, Guarded, Failed };
bool shown_lost(Revealed revealed) { return revealed == Revealed::Lost || revealed == Revealed::Failed; }

// A reveal point: the layer waits for the objects, then the kernel must have seen each one's
// work, as for an unbounded wait. `reveal_one(d, object)` confirms one object with the rule;
// `where` is the intercept that reached it.
template <class Object, class RevealOne>
Revealed reveal(VkDevice device, const std::vector<Object>& objects, RevealOne reveal_one, std::source_location where) {
  if (objects.empty()) return Revealed::None;
  if (VkResult waited = wait_guarded(device, objects); waited != VK_SUCCESS)
    return waited == VK_TIMEOUT ? Revealed::Guarded : Revealed::Failed;
  return with_device_asking(
      device,
      [&](Observer&, DeviceState& d) {
        bool seen = true;
        for (const Object& object : objects) {
          ++d.gauges().polls_revealed;
          seen = reveal_one(d, object) && seen;
        }
        if (!seen) ++d.gauges().waits_lost;
        return seen ? Revealed::Seen : Revealed::Lost;
      },
      where);
}
Revealed reveal_fences(VkDevice device, const std::vector<VkFence>& fences,
                       std::source_location where = std::source_location::current()) {
  return reveal(
      device, fences,
      [](DeviceState& d, VkFence fence) {
        return kernel_saw(d, d.completion.fence_wait(key(fence)), UINT64_MAX, key(fence));
      },
      where);
}
Revealed reveal_semaphores(VkDevice device, const std::vector<std::pair<VkSemaphore, uint64_t>>& reached,
                           std::source_location where = std::source_location::current()) {
  return reveal(
      device, reached,
      [](DeviceState& d, const std::pair<VkSemaphore, uint64_t>& at) {
        const uint64_t id = key(at.first);
        return kernel_saw(d, d.completion.semaphore_wait(id, at.second), UINT64_MAX, 0, id, at.second);
      },
      where);
}

// Every poll reaches the driver as the program made it; under the deterministic rule only the
// answer it is shown changes. A poll that shows an object busy for the Nth time in a row is a
// reveal point (completion.h): the layer waits, and the poll shows the work done, or the device
// lost when the kernel model never saw it.

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  if (auto lost = lost_before(device, TIDEMARK_LOST_GET_FENCE_STATUS, false)) return *lost;
  VkResult real = next_of(device).GetFenceStatus(device, fence);
  if (real != VK_SUCCESS && real != VK_NOT_READY) return noted(device, TIDEMARK_LOST_GET_FENCE_STATUS, real);
  bool reveal = with_device_asking(device, [&](Observer&, DeviceState& d) {
    if (d.completion.fence_shown_done(key(fence), real == VK_SUCCESS)) {
      d.completion.fence_polled_done(key(fence));
      return false;
    }
    return d.completion.fence_polled_busy(key(fence)).has_value();
  });
  Revealed revealed = reveal ? reveal_fences(device, {fence}) : Revealed::None;
  return with_device_asking(device, [&](Observer& o, DeviceState& d) {
    const VkResult shown = shown_lost(revealed)
                               ? VK_ERROR_DEVICE_LOST
                               : poll_outcome(d, d.completion.fence_shown_done(
                                                     key(fence), real == VK_SUCCESS || revealed == Revealed::Seen));
    return answered(o, d, "polled fence", key(fence), shown);
  });
}

// What a poll of several fences shows: a fence no submit the layer saw signals counts as the
// driver's answer for the whole call says (the driver does not say which fence it found done).
bool fences_shown_done(DeviceState& d, std::span<const VkFence> fences, bool wait_all, bool driver_done) {
  if (!driver_done) return false;
  size_t done = 0;
  for (VkFence fence : fences) done += d.completion.fence_known(key(fence)).value_or(true);
  return wait_all ? done == fences.size() : done > 0;
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 wait_all,
                                             uint64_t timeout) {
  if (auto lost = lost_before(device, TIDEMARK_LOST_WAIT_FOR_FENCES, true)) return *lost;
  VkResult real = next_of(device).WaitForFences(device, count, fences, wait_all, timeout);
  if (real != VK_SUCCESS && real != VK_TIMEOUT) return noted(device, TIDEMARK_LOST_WAIT_FOR_FENCES, real);
  auto fence_list = std::span(fences, count);
  const uint64_t first_fence = count > 0 ? key(fences[0]) : 0;
  if (timeout == 0) {  // a poll
    std::vector<VkFence> reveal = with_device_asking(device, [&](Observer&, DeviceState& d) {
      std::vector<VkFence> at_point;
      if (!d.completion.deterministic() || fences_shown_done(d, fence_list, wait_all, real == VK_SUCCESS)) {
        for (VkFence fence : fence_list) d.completion.fence_polled_done(key(fence));
        return at_point;
      }
      for (VkFence fence : fence_list)
        if (!d.completion.fence_known(key(fence)).value_or(true) && d.completion.fence_polled_busy(key(fence)))
          at_point.push_back(fence);
      return at_point;
    });
    Revealed revealed = reveal_fences(device, reveal);
    if (shown_lost(revealed)) return VK_ERROR_DEVICE_LOST;
    return with_device_asking(device, [&](Observer& o, DeviceState& d) {
      bool done = d.completion.deterministic()
                      ? fences_shown_done(d, fence_list, wait_all, real == VK_SUCCESS || revealed == Revealed::Seen)
                      : real == VK_SUCCESS;
      return answered(o, d, "polled fence", first_fence, poll_outcome(d, done) == VK_SUCCESS ? VK_SUCCESS : VK_TIMEOUT);
    });
  }
  if (real == VK_TIMEOUT) {
    with_device_asking(device, [&](Observer& o, DeviceState& d) {
      ++d.gauges().waits_timed_out;
      answered(o, d, "waited on fence", first_fence, real);
    });
    return real;
  }
  // What the wait reveals: every fence of a wait on all; of a wait on any, the one submitted
  // first (in-order queues finish it first), which the layer waits for itself under the
  // deterministic rule, so what is shown never depends on which fence the driver finished first.
  std::vector<VkFence> revealed(fence_list.begin(), fence_list.end());
  if (!wait_all) {
    revealed = with_device_asking(device, [&](Observer&, DeviceState& d) {
      std::optional<std::pair<uint64_t, VkFence>> first;
      for (VkFence fence : fence_list) {
        auto known = d.completion.fence_known(key(fence));
        if (known.value_or(true)) return std::vector<VkFence>{};  // done already, or the driver's answer stands
        auto reveal = d.completion.fence_wait(key(fence));
        if (reveal && (!first || reveal->order < first->first)) first = {reveal->order, fence};
      }
      return first ? std::vector<VkFence>{first->second} : std::vector<VkFence>{};
    });
    if (next_state(device).completion.deterministic() && !revealed.empty() &&
        wait_guarded(device, revealed) != VK_SUCCESS)
      revealed.clear();
  }
  return with_device_asking(device, [&](Observer& o, DeviceState& d) {
    bool seen = true;
    for (VkFence fence : revealed)
      seen = kernel_saw(d, d.completion.fence_wait(key(fence)), timeout, key(fence)) && seen;
    return answered(o, d, "waited on fence", first_fence, wait_outcome(d, seen, timeout));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  if (auto lost = lost_before(device, TIDEMARK_LOST_GET_SEMAPHORE_COUNTER_VALUE, false)) return *lost;
  VkResult real = next_of(device).GetSemaphoreCounterValue(device, semaphore, value);
  if (real != VK_SUCCESS) return noted(device, TIDEMARK_LOST_GET_SEMAPHORE_COUNTER_VALUE, real);
  const uint64_t driver_value = *value;
  auto reveal = with_device_asking(device, [&](Observer&, DeviceState& d) -> std::optional<uint64_t> {
    const uint64_t target = d.completion.semaphore_target(key(semaphore));
    if (d.completion.semaphore_shown_value(key(semaphore), driver_value) >= target) {
      d.completion.semaphore_polled_done(key(semaphore));
      return std::nullopt;
    }
    if (!d.completion.semaphore_polled_busy(key(semaphore), target)) return std::nullopt;
    return target;
  });
  Revealed revealed = reveal ? reveal_semaphores(device, {{semaphore, *reveal}}) : Revealed::None;
  if (shown_lost(revealed)) return VK_ERROR_DEVICE_LOST;
  with_device_asking(device, [&](Observer& o, DeviceState& d) {
    // After the layer's own wait the driver has reached the target, whatever it said before.
    const uint64_t reached = revealed == Revealed::Seen ? std::max(driver_value, *reveal) : driver_value;
    *value = d.completion.semaphore_shown_value(key(semaphore), reached);
    poll_outcome(d, *value >= d.completion.semaphore_target(key(semaphore)));
    char text[32];
    std::snprintf(text, sizeof text, "value %llu", static_cast<unsigned long long>(*value));
    o.answered(d, "polled semaphore", key(semaphore), static_cast<int64_t>(*value), text);
  });
  return real;
}

// What a poll of several semaphores shows: one the layer did not see made counts as the
// driver's answer for the whole call says.
bool semaphores_shown_reached(DeviceState& d, std::span<const VkSemaphore> semaphores, std::span<const uint64_t> values,
                              bool any, bool driver_reached) {
  if (!driver_reached) return false;
  size_t reached = 0;
  for (size_t i = 0; i < semaphores.size(); ++i) {
    auto known = d.completion.semaphore_known(key(semaphores[i]));
    reached += !known || *known >= values[i];
  }
  return any ? reached > 0 : reached == semaphores.size();
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  if (auto lost = lost_before(device, TIDEMARK_LOST_WAIT_SEMAPHORES, false)) return *lost;
  VkResult real = next_of(device).WaitSemaphores(device, info, timeout);
  if (real != VK_SUCCESS && real != VK_TIMEOUT) return noted(device, TIDEMARK_LOST_WAIT_SEMAPHORES, real);
  auto semaphores = std::span(info->pSemaphores, info->semaphoreCount);
  auto values = std::span(info->pValues, info->semaphoreCount);
  const bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
  const uint64_t first_semaphore = semaphores.empty() ? 0 : key(semaphores[0]);
  if (timeout == 0) {  // a poll
    auto reveal = with_device_asking(device, [&](Observer&, DeviceState& d) {
      std::vector<std::pair<VkSemaphore, uint64_t>> at_point;
      if (!d.completion.deterministic() || semaphores_shown_reached(d, semaphores, values, any, real == VK_SUCCESS)) {
        for (VkSemaphore semaphore : semaphores) d.completion.semaphore_polled_done(key(semaphore));
        return at_point;
      }
      for (size_t i = 0; i < semaphores.size(); ++i) {
        auto known = d.completion.semaphore_known(key(semaphores[i]));
        if (known && *known < values[i] && d.completion.semaphore_polled_busy(key(semaphores[i]), values[i]))
          at_point.emplace_back(semaphores[i], values[i]);
      }
      return at_point;
    });
    Revealed revealed = reveal_semaphores(device, reveal);
    if (shown_lost(revealed)) return VK_ERROR_DEVICE_LOST;
    return with_device_asking(device, [&](Observer& o, DeviceState& d) {
      bool reached =
          d.completion.deterministic()
              ? semaphores_shown_reached(d, semaphores, values, any, real == VK_SUCCESS || revealed == Revealed::Seen)
              : real == VK_SUCCESS;
      return answered(o, d, "polled semaphore", first_semaphore,
                      poll_outcome(d, reached) == VK_SUCCESS ? VK_SUCCESS : VK_TIMEOUT);
    });
  }
  if (real == VK_TIMEOUT) {
    with_device_asking(device, [&](Observer& o, DeviceState& d) {
      ++d.gauges().waits_timed_out;
      answered(o, d, "waited on semaphore", first_semaphore, real);
    });
    return real;
  }
  // What the wait reveals: every value of a wait on all; of a wait on any, the first one whose
  // signal was submitted first, which the layer waits for itself under the deterministic rule.
  std::vector<std::pair<VkSemaphore, uint64_t>> revealed;
  for (size_t i = 0; i < semaphores.size(); ++i) revealed.emplace_back(semaphores[i], values[i]);
  if (any) {
    revealed = with_device_asking(device, [&](Observer&, DeviceState& d) {
      std::optional<std::pair<uint64_t, size_t>> first;
      for (size_t i = 0; i < semaphores.size(); ++i) {
        auto reveal = d.completion.semaphore_wait(key(semaphores[i]), values[i]);
        auto known = d.completion.semaphore_known(key(semaphores[i]));
        if (!reveal || !known || *known >= values[i]) return std::vector<std::pair<VkSemaphore, uint64_t>>{};
        if (!first || reveal->order < first->first) first = {reveal->order, i};
      }
      if (!first) return std::vector<std::pair<VkSemaphore, uint64_t>>{};
      return std::vector<std::pair<VkSemaphore, uint64_t>>{{semaphores[first->second], values[first->second]}};
    });
    if (next_state(device).completion.deterministic() && !revealed.empty() &&
        wait_guarded(device, revealed) != VK_SUCCESS)
      revealed.clear();
  }
  return with_device_asking(device, [&](Observer& o, DeviceState& d) {
    bool seen = true;
    for (const auto& [semaphore, value] : revealed) {
      uint64_t id = key(semaphore);
      seen = kernel_saw(d, d.completion.semaphore_wait(id, value), timeout, 0, id, value) && seen;
    }
    return answered(o, d, "waited on semaphore", first_semaphore, wait_outcome(d, seen, timeout));
  });
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  if (auto lost = lost_before(queue, TIDEMARK_LOST_QUEUE_WAIT_IDLE, true)) return *lost;
  VkResult real = next_of(queue).QueueWaitIdle(queue);
  if (real != VK_SUCCESS) return noted(queue, TIDEMARK_LOST_QUEUE_WAIT_IDLE, real);
  return with_device(queue, [&](Observer&, DeviceState& d) {
    return wait_outcome(d, kernel_saw(d, d.completion.queue_idle(key(queue)), UINT64_MAX, 0), UINT64_MAX);
  });
}

// Every queue of the device idle: each queue's newest submit is revealed, as by a wait on it.
VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  if (auto lost = lost_before(device, TIDEMARK_LOST_DEVICE_WAIT_IDLE, true)) return *lost;
  VkResult real = next_of(device).DeviceWaitIdle(device);
  if (real != VK_SUCCESS) return noted(device, TIDEMARK_LOST_DEVICE_WAIT_IDLE, real);
  return with_device(device, [&](Observer&, DeviceState& d) {
    bool seen = true;
    for (const auto& reveal : d.completion.device_idle()) seen = kernel_saw(d, reveal, UINT64_MAX, 0) && seen;
    return wait_outcome(d, seen, UINT64_MAX);
  });
}

}  // namespace tidemark::layer
