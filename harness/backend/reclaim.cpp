#include "backend/reclaim.h"

#include <algorithm>

namespace tidemark::backend {

ReclaimQueue::ReclaimQueue(ReclaimPolicy policy, SubmitTimeline& timeline, Hooks hooks)
    : policy_(policy), timeline_(timeline), hooks_(std::move(hooks)) {}

Status ReclaimQueue::park(StoreHandle store, uint64_t bytes, uint64_t last_use) {
  if (last_use == 0 && policy_.immediate_destroy && !policy_.frame_bucket) {
    hooks_.destroy(store);  // proof 1: no GPU command can reference it
    return {};
  }
  parked_.push_back({store, bytes, timeline_.sync_point()});
  parked_bytes_ += bytes;
  parked_bytes_peak_ = std::max(parked_bytes_peak_, parked_bytes_);
  if (hooks_.after_park) hooks_.after_park();
  if (policy_.frame_bucket) return {};  // waits for the frame boundary's sweep

  sweep();
  if (!over_watermark()) return {};
  if (auto synced = timeline_.sync("deferred-watermark"); !synced) return synced;
  ++forced_syncs_;
  sweep();  // nothing parked can be newer than the sync point just waited for
  if (hooks_.after_sync_sweep) hooks_.after_sync_sweep();
  return {};
}

void ReclaimQueue::sweep() {
  if (timeline_.is_idle()) {  // proof 3: everything parked is dead
    destroy_all();
    return;
  }
  // Proof 2, as a prefix: submit indices never decrease along the list.
  while (!parked_.empty() && timeline_.is_complete(parked_.front().submit_index)) destroy_front();
}

void ReclaimQueue::destroy_all() {
  while (!parked_.empty()) destroy_front();
}

bool ReclaimQueue::over_watermark() const {
  if (policy_.deferred_bytes == 0) return false;
  return parked_bytes_ > policy_.deferred_bytes ||
         (policy_.count_ceiling && parked_.size() > ReclaimPolicy::kCountCeiling);
}

void ReclaimQueue::destroy_front() {
  Parked front = parked_.front();
  parked_.pop_front();
  parked_bytes_ -= front.bytes;
  hooks_.destroy(front.store);
}

}  // namespace tidemark::backend
