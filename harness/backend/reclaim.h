// Reclaim of orphaned stores by proof, not by frame boundary (specs/reclaim.md).
// Pure logic: it sees the renderer only through SubmitTimeline, so unit tests drive it
// with a fake clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>

#include "core/error.h"

namespace tidemark::backend {

using StoreHandle = uint32_t;

// The renderer as the reclaim logic sees it. Completion is what has been observed by a
// real wait, never a status poll.
class SubmitTimeline {
 public:
  virtual ~SubmitTimeline() = default;
  // The submit index the current recording will get when it is submitted.
  virtual uint64_t sync_point() const = 0;
  virtual bool is_complete(uint64_t submit_index) const = 0;
  // Nothing recording and every submit observed complete.
  virtual bool is_idle() const = 0;
  // Submits what is recording and waits for it. An error is fatal for the run.
  virtual Status sync(const char* site) = 0;
};

struct ReclaimPolicy {
  // Parked bytes above this force a sync; 0 turns off both watermarks (a negative control).
  uint64_t deferred_bytes = 64ull << 20;
  // Stores are costed per object: many small orphans never reach a byte budget.
  static constexpr size_t kCountCeiling = 1024;
  // Mutants switch these off (red-once): the proof of a never-referenced store, the count
  // ceiling, or reclaim by proof altogether (the pre-fix frame bucket).
  bool immediate_destroy = true;
  bool count_ceiling = true;
  bool frame_bucket = false;
};

class ReclaimQueue {
 public:
  struct Hooks {
    std::function<void(StoreHandle)> destroy;
    std::function<void()> after_park;        // a store entered the parked list: sample peaks
    std::function<void()> after_sync_sweep;  // a watermark sync and its sweep are done
  };

  ReclaimQueue(ReclaimPolicy policy, SubmitTimeline& timeline, Hooks hooks);

  // Orphans a store. `last_use` is the submit index of the last GPU command that
  // referenced it, 0 when none has since it was minted.
  Status park(StoreHandle store, uint64_t bytes, uint64_t last_use);
  // Destroys the dead prefix of the parked list (everything when the renderer is idle).
  void sweep();
  // The device is known idle (shutdown): everything parked is dead.
  void destroy_all();

  size_t parked_count() const { return parked_.size(); }
  uint64_t parked_bytes() const { return parked_bytes_; }
  uint64_t parked_bytes_peak() const { return parked_bytes_peak_; }
  uint64_t forced_syncs() const { return forced_syncs_; }
  const ReclaimPolicy& policy() const { return policy_; }

 private:
  struct Parked {
    StoreHandle store;
    uint64_t bytes;
    uint64_t submit_index;  // sync point at park time: never decreases along the list
  };

  bool over_watermark() const;
  void destroy_front();

  ReclaimPolicy policy_;
  SubmitTimeline& timeline_;
  Hooks hooks_;
  std::deque<Parked> parked_;
  uint64_t parked_bytes_ = 0;
  uint64_t parked_bytes_peak_ = 0;
  uint64_t forced_syncs_ = 0;
};

}  // namespace tidemark::backend
