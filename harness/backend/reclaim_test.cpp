#include "backend/reclaim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace tidemark::backend {
namespace {

// A renderer whose clock moves only when the test says so.
class FakeTimeline : public SubmitTimeline {
 public:
  uint64_t sync_point() const override { return submitted + 1; }
  bool is_complete(uint64_t index) const override { return index <= completed; }
  bool is_idle() const override { return !recording && completed == submitted; }
  Status sync(const char* site) override {
    sites.push_back(site);
    if (fail_sync) return fail(ErrorKind::Fatal, "device lost");
    submitted += recording ? 1 : 0;
    completed = submitted;
    recording = false;
    return {};
  }
  // A draw records into the current batch and references a store.
  uint64_t record() {
    recording = true;
    return sync_point();
  }
  void submit() {
    if (recording) ++submitted;
    recording = false;
  }

  uint64_t submitted = 0;
  uint64_t completed = 0;
  bool recording = false;
  bool fail_sync = false;
  std::vector<std::string> sites;
};

struct Harness {
  explicit Harness(uint64_t deferred_bytes) : Harness(ReclaimPolicy{.deferred_bytes = deferred_bytes}) {}
  explicit Harness(ReclaimPolicy policy)
      : queue(policy, timeline,
              {[this](StoreHandle h) { destroyed.push_back(h); },
               [this] { parked_peak = std::max(parked_peak, queue.parked_count()); }}) {}
  FakeTimeline timeline;
  std::vector<StoreHandle> destroyed;
  size_t parked_peak = 0;
  ReclaimQueue queue;
};

constexpr uint64_t kMiB = 1 << 20;

// Check that a store no GPU command referenced is destroyed at once, never parked.
TEST(ReclaimQueue, UnreferencedStoreIsDestroyedAtOnce) {
  Harness h(64 * kMiB);
  ASSERT_TRUE(h.queue.park(7, 4096, /*last_use=*/0));
  EXPECT_EQ(h.destroyed, std::vector<StoreHandle>{7});
  EXPECT_EQ(h.queue.parked_count(), 0u);
  EXPECT_EQ(h.parked_peak, 0u);
}

// Check that the sweep destroys exactly the retired prefix and stops at the first live one.
TEST(ReclaimQueue, SweepDestroysTheRetiredPrefixOnly) {
  Harness h(64 * kMiB);
  ASSERT_TRUE(h.queue.park(1, 100, h.timeline.record()));  // parked at index 1
  h.timeline.submit();
  ASSERT_TRUE(h.queue.park(2, 100, h.timeline.record()));  // parked at index 2
  h.timeline.submit();
  ASSERT_TRUE(h.queue.park(3, 100, h.timeline.record()));  // parked at index 3, recording
  EXPECT_TRUE(h.destroyed.empty());

  h.timeline.completed = 1;  // a wait observed the first batch
  h.queue.sweep();
  EXPECT_EQ(h.destroyed, std::vector<StoreHandle>{1});
  EXPECT_EQ(h.queue.parked_count(), 2u);
  EXPECT_EQ(h.queue.parked_bytes(), 200u);
}

// Check that an idle renderer makes everything parked dead, whatever its index.
TEST(ReclaimQueue, IdleRendererMakesEverythingParkedDead) {
  Harness h(64 * kMiB);
  ASSERT_TRUE(h.queue.park(1, 100, h.timeline.record()));
  ASSERT_TRUE(h.queue.park(2, 100, h.timeline.record()));
  h.timeline.submit();
  h.timeline.completed = h.timeline.submitted;
  h.queue.sweep();
  EXPECT_EQ(h.destroyed, (std::vector<StoreHandle>{1, 2}));
}

// The budget scenario's shape: 8 MiB budget, 47 parks of 1 MiB, each drawn before it is
// orphaned. 9 parked stores exceed the budget, so the peak is 9 MiB and 47 parks sync 5 times.
TEST(ReclaimQueue, ByteWatermarkGivesTheBudgetScenarioShape) {
  Harness h(8 * kMiB);
  for (StoreHandle store = 1; store <= 47; ++store) ASSERT_TRUE(h.queue.park(store, kMiB, h.timeline.record()));
  EXPECT_EQ(h.queue.parked_bytes_peak(), 9 * kMiB);
  EXPECT_EQ(h.queue.forced_syncs(), 5u);
  EXPECT_EQ(h.parked_peak, 9u);
  EXPECT_EQ(h.queue.parked_count(), 47u - 45u);
  EXPECT_EQ(h.timeline.sites, std::vector<std::string>(5, "deferred-watermark"));
}

// The count-ceiling scenario's shape: tiny stores never reach the byte budget, but more
// than 1024 parked force a sync, so 2999 parks peak at 1025 and sync twice.
TEST(ReclaimQueue, CountCeilingGivesTheManySmallScenarioShape) {
  Harness h(64 * kMiB);
  for (StoreHandle store = 1; store <= 2999; ++store) ASSERT_TRUE(h.queue.park(store, 256, h.timeline.record()));
  EXPECT_EQ(h.parked_peak, 1025u);
  EXPECT_EQ(h.queue.forced_syncs(), 2u);
}

// Check that 0 turns off both watermarks: the negative control brings unbounded growth back.
TEST(ReclaimQueue, ZeroBudgetTurnsBothWatermarksOff) {
  Harness h(0);
  for (StoreHandle store = 1; store <= 2000; ++store) ASSERT_TRUE(h.queue.park(store, kMiB, h.timeline.record()));
  EXPECT_EQ(h.queue.forced_syncs(), 0u);
  EXPECT_EQ(h.parked_peak, 2000u);
  EXPECT_EQ(h.queue.parked_bytes_peak(), 2000 * kMiB);
}

// Check that the proofs still work with the watermarks off.
TEST(ReclaimQueue, ZeroBudgetKeepsTheProofs) {
  Harness h(0);
  ASSERT_TRUE(h.queue.park(1, kMiB, 0));
  EXPECT_EQ(h.destroyed, std::vector<StoreHandle>{1});
}

// Check that a sync that cannot complete is returned, not swallowed, and parks nothing more.
TEST(ReclaimQueue, FailedWatermarkSyncIsAnError) {
  Harness h(1 * kMiB);
  h.timeline.fail_sync = true;
  ASSERT_TRUE(h.queue.park(1, kMiB, h.timeline.record()));
  auto status = h.queue.park(2, kMiB, h.timeline.record());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::Fatal);
  EXPECT_EQ(h.timeline.sites, std::vector<std::string>{"deferred-watermark"});
  EXPECT_EQ(h.queue.forced_syncs(), 0u);
}

// Mutants: each switch takes away exactly its own proof or watermark.
TEST(ReclaimQueue, FrameBucketParksEverythingUntilTheBoundary) {
  Harness h(ReclaimPolicy{.deferred_bytes = 8 * kMiB, .frame_bucket = true});
  ASSERT_TRUE(h.queue.park(1, kMiB, 0));  // not even proof 1
  for (StoreHandle store = 2; store <= 48; ++store) ASSERT_TRUE(h.queue.park(store, kMiB, h.timeline.record()));
  EXPECT_TRUE(h.destroyed.empty());
  EXPECT_EQ(h.queue.forced_syncs(), 0u);
  EXPECT_EQ(h.parked_peak, 48u);
  ASSERT_TRUE(h.timeline.sync("present"));
  h.queue.sweep();  // the frame boundary
  EXPECT_EQ(h.destroyed.size(), 48u);
}

TEST(ReclaimQueue, WithoutTheCountCeilingSmallOrphansPileUp) {
  Harness h(ReclaimPolicy{.count_ceiling = false});
  for (StoreHandle store = 1; store <= 2999; ++store) ASSERT_TRUE(h.queue.park(store, 256, h.timeline.record()));
  EXPECT_EQ(h.parked_peak, 2999u);
  EXPECT_EQ(h.queue.forced_syncs(), 0u);
}

TEST(ReclaimQueue, WithoutProofOneAnUnreferencedStoreParksWhileTheRendererIsBusy) {
  Harness h(ReclaimPolicy{.immediate_destroy = false});
  h.timeline.record();  // another store's draw keeps the renderer busy
  ASSERT_TRUE(h.queue.park(7, 4096, 0));
  EXPECT_TRUE(h.destroyed.empty());
  EXPECT_EQ(h.queue.parked_count(), 1u);
}

}  // namespace
}  // namespace tidemark::backend
