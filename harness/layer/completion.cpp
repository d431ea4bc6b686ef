#include "layer/completion.h"

#include <algorithm>

namespace tidemark::layer {

void CompletionRule::submitted(uint64_t queue, uint64_t kernel_fence, uint64_t fence, std::span<const Signal> signals) {
  auto [entry, added] = queues_.try_emplace(queue);
  Queue& q = entry->second;
  if (added) q.number = queues_.size();
  const Pending at{queue, ++q.submitted, ++submits_};
  q.kernel_fences.emplace_back(at.submit, kernel_fence);
  if (fence) {
    unsubmitted_.erase(fence);
    fences_[fence] = at;
    revealed_fences_.erase(fence);
    fence_polls_.erase(fence);
  }
  for (const Signal& signal : signals)
    if (auto found = semaphores_.find(signal.semaphore); found != semaphores_.end()) {
      Timeline& timeline = found->second;
      if (!timeline.signals.empty() && signal.value <= timeline.signals.back().first) timeline.increasing = false;
      timeline.signals.emplace_back(signal.value, at);
    }
}

void CompletionRule::fence_created(uint64_t fence, bool signalled) { unsubmitted_[fence] = signalled; }

void CompletionRule::fence_reset(uint64_t fence) {
  fence_destroyed(fence);
  unsubmitted_[fence] = false;
}

void CompletionRule::fence_destroyed(uint64_t fence) {
  fences_.erase(fence);
  revealed_fences_.erase(fence);
  fence_polls_.erase(fence);
  unsubmitted_.erase(fence);
}

void CompletionRule::fence_signalled_elsewhere(uint64_t fence) { fence_destroyed(fence); }

void CompletionRule::semaphore_created(uint64_t semaphore, uint64_t initial_value) {
  semaphores_[semaphore] = Timeline{initial_value, {}};
}
void CompletionRule::semaphore_destroyed(uint64_t semaphore) {
  semaphores_.erase(semaphore);
  semaphore_polls_.erase(semaphore);
}
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

std::optional<bool> CompletionRule::fence_known(uint64_t fence) const {
  auto pending = fences_.find(fence);
  if (pending == fences_.end()) {
    auto unsubmitted = unsubmitted_.find(fence);
    if (unsubmitted == unsubmitted_.end()) return std::nullopt;
    return unsubmitted->second;
  }
  if (options_.never_done) return revealed_fences_.contains(fence);
  return known(pending->second);
}

std::optional<uint64_t> CompletionRule::semaphore_known(uint64_t semaphore) {
  auto found = semaphores_.find(semaphore);
  if (found == semaphores_.end()) return std::nullopt;
  Timeline& timeline = found->second;
  if (!options_.never_done)
    while (!timeline.signals.empty() && known(timeline.signals.front().second)) {
      timeline.known = std::max(timeline.known, timeline.signals.front().first);
      timeline.signals.pop_front();
    }
  return timeline.known;
}

uint64_t CompletionRule::semaphore_shown_value(uint64_t semaphore, uint64_t driver_value) {
  auto known_value = semaphore_known(semaphore);
  if (options_.real || !known_value) return driver_value;
  return std::min(*known_value, driver_value);  // delayed, never advanced
}

bool CompletionRule::at_reveal_point(HandleMap<uint32_t>& runs, uint64_t object) {
  if (++runs[object] < std::max<uint32_t>(options_.polls_to_reveal, 1)) return false;
  runs.erase(object);
  return true;
}

std::optional<CompletionRule::Reveal> CompletionRule::fence_polled_busy(uint64_t fence) {
  if (options_.real || options_.never_done) return std::nullopt;
  auto pending = fences_.find(fence);
  if (pending == fences_.end() || !at_reveal_point(fence_polls_, fence)) return std::nullopt;
  return reveal_of(pending->second);
}

std::optional<CompletionRule::Reveal> CompletionRule::semaphore_polled_busy(uint64_t semaphore, uint64_t value) {
  if (options_.real || options_.never_done) return std::nullopt;
  auto reveal = semaphore_wait(semaphore, value);
  if (!reveal || !at_reveal_point(semaphore_polls_, semaphore)) return std::nullopt;
  return reveal;
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
  return reveal_of(pending->second);
}

std::optional<CompletionRule::Reveal> CompletionRule::semaphore_wait(uint64_t semaphore, uint64_t value) const {
  auto found = semaphores_.find(semaphore);
  if (found == semaphores_.end()) return std::nullopt;
  const auto& signals = found->second.signals;
  if (found->second.increasing) {
    auto first = std::lower_bound(signals.begin(), signals.end(), value,
                                  [](const auto& signal, uint64_t wanted) { return signal.first < wanted; });
    return first == signals.end() ? std::nullopt : std::optional(reveal_of(first->second));
  }
  for (const auto& [signalled, at] : signals)  // the first signal that reaches the value
    if (signalled >= value) return reveal_of(at);
  return std::nullopt;
}

std::optional<CompletionRule::Reveal> CompletionRule::queue_idle(uint64_t queue) const {
  auto found = queues_.find(queue);
  if (found == queues_.end() || found->second.submitted == 0) return std::nullopt;
  return Reveal{queue, found->second.submitted, 0};
}

std::vector<CompletionRule::Reveal> CompletionRule::device_idle() const {
  std::vector<std::pair<uint64_t, Reveal>> numbered;  // in the order the queues were first used, not by handle
  for (const auto& [queue, state] : queues_)
    if (state.submitted > 0) numbered.push_back({state.number, {queue, state.submitted, 0}});
  std::sort(numbered.begin(), numbered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Reveal> reveals;
  for (const auto& [number, reveal] : numbered) reveals.push_back(reveal);
  return reveals;
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
