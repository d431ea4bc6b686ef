// The submission model's mutants break what they name (built only where mutants are compiled in).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel/submission.h"
#include "kernel/submission_test_support.h"

namespace tidemark::kernel {
namespace {

// Defaults: submit_cpu_ns 5 us, irq_ns 10 us, wake_ns 200 us, idle_timeout_ns 5 ms,
// probe_ns 1 ms; one draw's packet is 10 dwords.
using test_support::draw;
using test_support::kMs;
using test_support::kUs;

KmdConfig with(PowerPolicy power, bool readback) {
  KmdConfig config;
  config.power = power;
  config.doorbell_readback = readback;
  return config;
}

// Check that recycling at submit lets the engine read a recycled buffer: one use-after-free,
// logged with the moments of both.
TEST(KmdMutants, RecycleOnSubmitIsAUseAfterFree) {
  SubmissionModel model({}, MutantId::KmdRecycleOnSubmit);
  model.submit({draw()});
  EXPECT_EQ(model.counters().recycled, 1);  // before the engine has read it
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.counters().uaf, 1);
  // Recycled at 5 us (after the submit's CPU time); fetched at 5 us, when the doorbell landed.
  ASSERT_EQ(model.findings().size(), 1u);
  EXPECT_EQ(model.findings()[0],
            "use-after-free: the command buffer of fence 1 was recycled at 5 us and read by the engine at 5 us");
}

// Check that recycling at completion keeps nothing: the buffer goes the moment the driver sees
// the fence, where the real model keeps it recycle_frames frames.
TEST(KmdMutants, RecycleAtCompletionKeepsNothing) {
  SubmissionModel model({}, MutantId::KmdRecycleAtCompletion);
  model.submit({draw()});
  model.advance(11 * kUs);  // to 16 us: the fence's interrupt
  EXPECT_EQ(model.seen_fence(), 1u);
  EXPECT_EQ(model.counters().recycled, 1);
  EXPECT_EQ(model.command_buffers_kept(), 0);  // the real model: 1 until frame 2
}

// Check that without the magic check a wrapped half-written packet is decoded stale although
// the configuration asks for the check.
TEST(KmdMutants, NoMagicCheckDecodesStaleBytes) {
  KmdConfig config;
  config.ring_dwords = 64;
  SubmissionModel model(config, MutantId::KmdNoMagicCheck);
  for (int i = 0; i < 6; ++i) model.submit({draw()});  // tail 60
  model.advance(kMs);
  model.arm({.half_written = true});
  model.submit({draw()});  // wraps: pad 4, starts at 0
  model.advance(100 * kUs);
  EXPECT_EQ(model.counters().magic_caught, 0);
  EXPECT_EQ(model.counters().stale_reads, 1);
  EXPECT_EQ(model.diagnose().scene, "half_written");
}

// Check that without the full check the submitter never waits: it writes over the packet the
// engine has not consumed.
TEST(KmdMutants, NoFullCheckClobbersUnconsumedPackets) {
  KmdConfig config;
  config.ring_dwords = kMinRingDwords;
  SubmissionModel model(config, MutantId::KmdNoFullCheck);
  model.submit({Command{CommandKind::SemaphoreWait, kUs, 1}});  // the engine waits at dword 2
  model.submit({draw()});
  model.submit({draw()});  // used 30 - 2 = 28, free 3
  // Pad 2 + 10 = 12 needed, 3 free: 9 dwords over the first packet (10 dwords).
  EXPECT_TRUE(model.submit({draw()}));
  EXPECT_EQ(model.now(), 20 * kUs);  // four submits, no waiting
  EXPECT_EQ(model.counters().ring_waits, 0);
  EXPECT_EQ(model.counters().clobbered, 1);
}

// Check that merging every doorbell into the next one leaves the last submit unannounced:
// the head stops short of the tail and the diagnosis says doorbell_lost.
TEST(KmdMutants, DoorbellMergedNeverDeliversTheLastSubmit) {
  SubmissionModel model(with(PowerPolicy::Wait, false), MutantId::KmdDoorbellMerged);
  for (int i = 0; i < 3; ++i) model.submit({draw()});  // each write releases the one before
  model.advance(kMs);
  EXPECT_EQ(model.fence(), 2u);
  EXPECT_EQ(model.last_fence(), 3u);
  EXPECT_EQ(model.head(), 20u);
  EXPECT_EQ(model.tail(), 30u);
  EXPECT_EQ(model.doorbell_register(), 20u);
  EXPECT_EQ(model.diagnose().scene, "doorbell_lost");

  // The readback catches it each time.
  SubmissionModel checked(with(PowerPolicy::Wait, true), MutantId::KmdDoorbellMerged);
  for (int i = 0; i < 3; ++i) checked.submit({draw()});
  EXPECT_EQ(checked.counters().doorbell_rewrites, 3);
  EXPECT_TRUE(checked.wait(3, kMs));
}

// Check that a doorbell that wakes the engine hides the Off policy's lost doorbell.
TEST(KmdMutants, DoorbellWakesEngineDeliversUnderTheOffPolicy) {
  SubmissionModel model(with(PowerPolicy::Off, false), MutantId::KmdDoorbellWakesEngine);
  model.advance(5 * kMs);
  ASSERT_EQ(model.engine_state(), "asleep");
  model.submit({draw()});
  EXPECT_EQ(model.counters().doorbells_lost, 0);
  EXPECT_EQ(model.counters().wakes, 1);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.now(), 5'216 * kUs);  // 5 000 + 5 + 200 wake + 1 draw + 10
}

// Check that without the readback the Race policy's doorbell stays lost even with readback on.
TEST(KmdMutants, NoDoorbellReadbackLeavesTheRaceLost) {
  SubmissionModel model(with(PowerPolicy::Race, true), MutantId::KmdNoDoorbellReadback);
  model.advance(5 * kMs);
  model.submit({draw()});
  EXPECT_EQ(model.counters().doorbells_lost, 1);
  EXPECT_EQ(model.counters().doorbell_rewrites, 0);
  EXPECT_FALSE(model.wait(1, kMs));
  EXPECT_EQ(model.diagnose().scene, "doorbell_lost");
}

// Check that an 8-bit fence goes back to 0 after 255: a regression, and the wait for 256
// times out.
TEST(KmdMutants, NarrowFenceRegressesAfter255) {
  KmdConfig config;
  config.ring_dwords = 64;
  SubmissionModel model(config, MutantId::KmdNarrowFence);
  for (uint64_t fence = 1; fence <= 255; ++fence) {
    ASSERT_EQ(model.submit({draw()}), fence);
    ASSERT_TRUE(model.wait(fence, kMs));
  }
  EXPECT_EQ(model.counters().fence_regressions, 0);
  EXPECT_EQ(model.submit({draw()}), 256u);
  EXPECT_FALSE(model.wait(256, kMs));
  EXPECT_EQ(model.fence(), 0u);  // 256 & 0xff
  EXPECT_EQ(model.counters().fence_regressions, 1);
}

// Check that a fence write ignoring the page's permission arrives: the scene cannot be seen.
TEST(KmdMutants, FenceIgnoresPermissionLetsTheFenceArrive) {
  SubmissionModel model({}, MutantId::KmdFenceIgnoresPermission);
  model.arm({.fence_unwritable = true});
  model.submit({draw()});
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.fence(), 1u);
}

// Check that an observer reading only the fence calls heavy work a stuck command.
TEST(KmdMutants, DiagnosisReadsFenceOnlyCallsHeavyWorkStuck) {
  SubmissionModel model({}, MutantId::KmdDiagnosisReadsFenceOnly);
  model.submit(std::vector<Command>(10, draw(kMs)));
  model.advance(2'500 * kUs);
  Diagnosis d = model.diagnose();
  EXPECT_TRUE(d.head_moved);  // 10 -> 14, as in the real model's heavy_work case
  EXPECT_EQ(d.scene, "stuck_command");
}

// Check that free submits make 2000 tiny submits look fine: no CPU time passes, the engine's
// 2 ms of draws fill most of the frame, and the scene is healthy, not cpu_bound.
TEST(KmdMutants, FreeSubmitsHideThousandsOfTinySubmits) {
  KmdConfig config;
  config.ring_dwords = 32'768;  // 2000 * 10 dwords fit: no ring-full waits
  SubmissionModel model(config, MutantId::KmdFreeSubmits);
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(model.submit({draw()}));
  EXPECT_EQ(model.now(), 0u);
  EXPECT_TRUE(model.wait(2000, 10 * kMs));
  EXPECT_EQ(model.now(), 2'010 * kUs);  // 2000 draws back to back, then the interrupt
  // 2 000 000 * 100 / (2 010 000 + 1 000 000) = 66 % >= 50.
  EXPECT_EQ(model.diagnose().scene, "healthy");

  SubmissionModel real(config);
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(real.submit({draw()}));
  EXPECT_TRUE(real.wait(2000, 10 * kMs));
  EXPECT_EQ(real.now(), 10'011 * kUs);  // last submit at 10 000 us, draw 1, interrupt 10
  // 2 000 000 * 100 / (10 011 000 + 1 000 000) = 18 % < 50.
  EXPECT_EQ(real.diagnose().scene, "cpu_bound");
}

}  // namespace
}  // namespace tidemark::kernel
