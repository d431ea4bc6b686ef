#include "layer/completion.h"

#include <algorithm>

namespace tidemark::layer {

void CompletionRule::submitted(uint64_t queue, uint64_t kernel_fence, uint64_t fence, std::span<const Signal> signals) {
  Queue& q = queues_[queue];
  uint64_t submit = ++q.submitted;
  q.kernel_fences.emplace_back(submit, kernel_fence);
  if (fence) {
    fences_[fence] = {queue, submit};
    revealed_fences_.erase(fence);
  }
  for (const Signal& signal : signals)
    if (auto found = semaphores_.find(signal.semaphore); found != semaphores_.end())
      found->second.signals.emplace_back(signal.value, Pending{queue, submit});
}

void CompletionRule::fence_reset(uint64_t fence) {
  fences_.erase(fence);
  revealed_fences_.erase(fence);
}

void CompletionRule::semaphore_created(uint64_t semaphore, uint64_t initial_value) {
  semaphores_[semaphore] = Timeline{initial_value, {}};
}
void CompletionRule::semaphore_destroyed(uint64_t semaphore) { semaphores_.erase(semaphore); }
void CompletionRule::semaphore_signaled(uint64_t semaphore, uint64_t value) {
  if (auto found = semaphores_.find(semaphore); found != semaphores_.end())
    found->second.known = std::max(found->second.known, value);
}

bool CompletionRule::known(const Pending& at) const {
  auto queue = queues_.find(at.queue);
  return queue != queues_.end() && queue->second.known >= at.submit;
}

bool CompletionRule::fence_shown_done(uint64_t fence, bool driver_done) const {
  if (options_.real || !driver_done) return driver_done;
  auto pending = fences_.find(fence);
  if (pending == fences_.end()) return driver_done;  // signalled at creation, or by nothing we saw
  if (options_.never_done) return revealed_fences_.contains(fence);
  return known(pending->second);
}

uint64_t CompletionRule::semaphore_shown_value(uint64_t semaphore, uint64_t driver_value) {
  auto found = semaphores_.find(semaphore);
  if (options_.real || found == semaphores_.end()) return driver_value;
  Timeline& timeline = found->second;
  if (!options_.never_done)
    while (!timeline.signals.empty() && known(timeline.signals.front().second)) {
      timeline.known = std::max(timeline.known, timeline.signals.front().first);
      timeline.signals.pop_front();
    }
  return std::min(timeline.known, driver_value);  // delayed, never advanced
}

uint64_t CompletionRule::semaphore_target(uint64_t semaphore) const {
  auto found = semaphores_.find(semaphore);
  if (found == semaphores_.end()) return 0;
  const Timeline& timeline = found->second;
  return timeline.signals.empty() ? timeline.known : std::max(timeline.known, timeline.signals.back().first);
}

std::optional<CompletionRule::Reveal> CompletionRule::fence_wait(uint64_t fence) const {
  auto pending = fences_.find(fence);
  if (pending == fences_.end()) return std::nullopt;
  return Reveal{pending->second.queue, pending->second.submit};
}

std::optional<CompletionRule::Reveal> CompletionRule::semaphore_wait(uint64_t semaphore, uint64_t value) const {
  auto found = semaphores_.find(semaphore);
  if (found == semaphores_.end()) return std::nullopt;
  for (const auto& [signalled, at] : found->second.signals)  // the first signal that reaches the value
    if (signalled >= value) return Reveal{at.queue, at.submit};
  return std::nullopt;
}

std::optional<CompletionRule::Reveal> CompletionRule::queue_idle(uint64_t queue) const {
  auto found = queues_.find(queue);
  if (found == queues_.end() || found->second.submitted == 0) return std::nullopt;
  return Reveal{queue, found->second.submitted};
}

CompletionRule::KernelNeed CompletionRule::kernel_need(const Reveal& reveal) const {
  KernelNeed need;
  auto queue = queues_.find(reveal.queue);
  if (queue == queues_.end()) return need;
  for (const auto& [submit, kernel_fence] : queue->second.kernel_fences) {
    if (submit > reveal.submit) break;
    if (kernel_fence == 0) need.refused = true;
    need.fence = std::max(need.fence, kernel_fence);
  }
  return need;
}

void CompletionRule::confirm(const Reveal& reveal, uint64_t fence, uint64_t semaphore, uint64_t value) {
  Queue& queue = queues_[reveal.queue];
  if (!options_.never_done) queue.known = std::max(queue.known, reveal.submit);
  while (!queue.kernel_fences.empty() && queue.kernel_fences.front().first <= reveal.submit)
    queue.kernel_fences.pop_front();
  if (fence) revealed_fences_.insert(fence);
  if (semaphore) semaphore_signaled(semaphore, value);
}

}  // namespace tidemark::layer
