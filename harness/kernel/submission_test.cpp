#include "kernel/submission.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kernel/submission_test_support.h"

namespace tidemark::kernel {
namespace {

// Defaults the expectations below are worked out from (KmdConfig{}): submit_cpu_ns 5 us,
// irq_ns 10 us, wake_ns 200 us, idle_timeout_ns 5 ms, late_write_ns 50 us, probe_ns 1 ms,
// submit_timeout_ns 100 ms. A packet of n commands is 2 + 4n + 4 dwords: one draw is 10.
using test_support::draw;
using test_support::kMs;
using test_support::kUs;

Command semaphore_wait(uint64_t semaphore) { return {CommandKind::SemaphoreWait, kUs, semaphore}; }
Command bad_address(uint64_t address) { return {CommandKind::BadAddress, kUs, address}; }
Command bad_opcode(uint64_t opcode) { return {CommandKind::BadOpcode, kUs, opcode}; }

KmdConfig ring_of(uint32_t dwords) {
  KmdConfig config;
  config.ring_dwords = dwords;
  return config;
}

KmdConfig no_readback(PowerPolicy power = PowerPolicy::Wait) {
  KmdConfig config;
  config.power = power;
  config.doorbell_readback = false;
  return config;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// --- The ring -------------------------------------------------------------------------------

// Check the empty ring and one draw's trip: 10 dwords, fence 1 written after the draw and seen
// an interrupt later, then head == tail.
TEST(KmdRing, AnEmptyRingTakesOneDrawAndTheFenceFollowsIt) {
  SubmissionModel model;
  EXPECT_EQ(model.head(), 0u);
  EXPECT_EQ(model.tail(), 0u);
  EXPECT_EQ(model.ring_used(), 0u);
  EXPECT_EQ(model.last_fence(), 0u);
  EXPECT_EQ(model.engine_state(), "awake");
  EXPECT_EQ(packet_dwords(1), 10u);  // header 2 + one command 4 + fence write 4

  EXPECT_EQ(model.submit({draw()}), std::optional<uint64_t>{1});
  EXPECT_EQ(model.now(), 5 * kUs);  // submit_cpu_ns
  EXPECT_EQ(model.tail(), 10u);
  EXPECT_EQ(model.doorbell_register(), 10u);
  EXPECT_EQ(model.head(), 0u);  // rung, not fetched yet
  EXPECT_EQ(model.ring_used(), 10u);

  model.advance(kUs);  // the draw runs 5..6 us, then the fence write
  EXPECT_EQ(model.fence(), 1u);
  EXPECT_EQ(model.seen_fence(), 0u);  // the interrupt comes at 6 + 10 = 16 us
  EXPECT_EQ(model.head(), 10u);
  EXPECT_EQ(model.ring_used(), 0u);
  model.advance(10 * kUs);
  EXPECT_EQ(model.seen_fence(), 1u);
  EXPECT_EQ(model.head(), model.tail());
  EXPECT_EQ(model.counters().submits, 1);
  EXPECT_EQ(model.counters().busy_ns, 1'000);
  EXPECT_EQ(model.counters().ring_waits, 0);
}

// Check that a full ring makes the submitter wait until the engine's head frees enough dwords,
// and that the wait, its length and the ring's peak are counted.
TEST(KmdRing, AFullRingMakesTheSubmitterWaitForTheHead) {
  SubmissionModel model(ring_of(kMinRingDwords));  // 32 dwords, 31 usable
  // Packets of one 100 us draw, 10 dwords each, submitted every 5 us.
  EXPECT_EQ(model.submit({draw(100 * kUs)}), 1u);  // t 5: [0,10); the engine is on its draw (head 2) until 105
  EXPECT_EQ(model.submit({draw(100 * kUs)}), 2u);  // t 10: [10,20)
  EXPECT_EQ(model.submit({draw(100 * kUs)}), 3u);  // t 15: [20,30); used 30 - 2 = 28, free 31 - 28 = 3
  EXPECT_EQ(model.counters().ring_waits, 0);
  // t 20: 30 + 10 > 32, so pad 2 and start at 0: 12 dwords needed, 3 free. At 105 the first
  // packet is consumed (head 10, free 11) and the engine fetches the second header (head 12,
  // free 31 - 18 = 13 >= 12): the packet goes in then, after 105 - 20 = 85 us.
  EXPECT_EQ(model.submit({draw(100 * kUs)}), 4u);
  EXPECT_EQ(model.now(), 105 * kUs);
  EXPECT_EQ(model.counters().ring_waits, 1);
  EXPECT_EQ(model.counters().ring_wait_ns, 85'000);
  EXPECT_EQ(model.tail(), 10u);
  EXPECT_EQ(model.head(), 12u);
  EXPECT_EQ(model.counters().ring_peak, 30);  // (10 + 32 - 12) % 32
  EXPECT_EQ(model.counters().refused, 0);

  // The draws end at 205, 305, 405 us; fence 4 is seen at 415 us.
  EXPECT_TRUE(model.wait(4, kMs));
  EXPECT_EQ(model.now(), 415 * kUs);
  EXPECT_EQ(model.head(), 10u);
  // The fence is reached and the ring was full once in this frame.
  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "cpu_bound");
  EXPECT_EQ(d.finding, "the submitter found the ring full 1 times in this frame");
  EXPECT_TRUE(contains(d.remedy, "larger ring"));
}

// Check that a submit waiting on an engine stopped at a bad opcode is refused after
// submit_timeout_ns, takes no fence, and that the wait is still counted.
TEST(KmdRing, ASubmitIsRefusedWhenTheEngineNeverFreesTheRing) {
  SubmissionModel model(ring_of(kMinRingDwords));
  ASSERT_EQ(model.submit({bad_opcode(0x7f)}), 1u);  // t 5: the engine stops at dword 2
  ASSERT_EQ(model.submit({draw()}), 2u);            // t 10
  ASSERT_EQ(model.submit({draw()}), 3u);            // t 15: used 30 - 2 = 28, free 3
  EXPECT_EQ(model.submit({draw()}), std::nullopt);  // t 20: needs 2 + 10, waits 100 ms
  EXPECT_EQ(model.now(), 20 * kUs + 100 * kMs);
  EXPECT_EQ(model.counters().refused, 1);
  EXPECT_EQ(model.counters().submits, 3);
  EXPECT_EQ(model.counters().ring_waits, 1);
  EXPECT_EQ(model.counters().ring_wait_ns, 100'000'000);
  EXPECT_EQ(model.last_fence(), 3u);
  EXPECT_EQ(model.tail(), 30u);
  EXPECT_EQ(model.head(), 2u);
}

// Check that one dword stays free: a packet that would take the tail onto the head (and make a
// full ring read as empty) waits, and goes in once the engine has drained the ring.
TEST(KmdRing, OneDwordStaysFreeSoAFullRingNeverLooksEmpty) {
  KmdConfig config = no_readback(PowerPolicy::Off);
  config.ring_dwords = 40;
  SubmissionModel model(config);
  model.advance(5 * kMs);  // asleep: the Off policy's doorbells are lost, the head stays at 0
  for (uint64_t fence = 1; fence <= 3; ++fence) EXPECT_EQ(model.submit({draw()}), fence);
  EXPECT_EQ(model.tail(), 30u);
  EXPECT_EQ(model.head(), 0u);
  // 30 + 10 == 40 needs no pad but would put the tail on the head: 39 - 30 = 9 free < 10.
  EXPECT_EQ(model.submit({draw()}), std::nullopt);
  EXPECT_EQ(model.now(), 5'020 * kUs + 100 * kMs);
  EXPECT_EQ(model.counters().doorbells_lost, 3);

  EXPECT_TRUE(model.kick());              // wakes until 105 220 us and rings 30: the draws run 220..223
  EXPECT_EQ(model.submit({draw()}), 4u);  // at 105 220 + 5 = 105 225 us; 39 free
  EXPECT_EQ(model.tail(), 0u);
  EXPECT_EQ(model.head(), 30u);
  EXPECT_EQ(model.ring_used(), 10u);
  EXPECT_TRUE(model.wait(4, kMs));
  EXPECT_EQ(model.now(), 105'236 * kUs);  // draw 225..226, interrupt + 10
  EXPECT_EQ(model.head(), 0u);
}

// Check the wrap: a packet that does not fit before the ring's end pads to it and starts at 0;
// the pad counts as used until the engine passes it.
TEST(KmdRing, APacketThatDoesNotFitAtTheEndWrapsToZero) {
  SubmissionModel model(ring_of(64));
  for (uint64_t fence = 1; fence <= 6; ++fence) EXPECT_EQ(model.submit({draw()}), fence);
  model.advance(100 * kUs);
  EXPECT_EQ(model.tail(), 60u);  // 6 * 10
  EXPECT_EQ(model.head(), 60u);
  EXPECT_EQ(model.submit({draw()}), 7u);  // 60 + 10 > 64: pad 4, the packet takes [0,10)
  EXPECT_EQ(model.tail(), 10u);
  EXPECT_EQ(model.head(), 60u);       // at the pad, not yet passed
  EXPECT_EQ(model.ring_used(), 14u);  // pad 4 + packet 10
  EXPECT_EQ(model.counters().ring_peak, 14);
  model.advance(100 * kUs);
  EXPECT_EQ(model.fence(), 7u);
  EXPECT_EQ(model.head(), 10u);
  EXPECT_EQ(model.ring_used(), 0u);
}

// Check that a packet ending exactly at the ring's end needs no pad and leaves the tail at 0.
TEST(KmdRing, APacketEndingAtTheRingsEndLeavesTheTailAtZero) {
  SubmissionModel model(ring_of(60));
  for (uint64_t fence = 1; fence <= 5; ++fence) model.submit({draw()});
  EXPECT_EQ(model.tail(), 50u);
  EXPECT_EQ(model.submit({draw()}), 6u);  // 50 + 10 == 60: fits
  EXPECT_EQ(model.tail(), 0u);
  model.advance(100 * kUs);
  EXPECT_EQ(model.fence(), 6u);
  EXPECT_EQ(model.head(), 0u);
}

// --- Fences ---------------------------------------------------------------------------------

// Check that the fence only goes up across 300 submit-and-wait rounds in a ring that wraps
// many times, and that a wait that cannot be met times out and is counted.
TEST(KmdFence, FencesStayMonotonicAcrossManyWrapsAndWaitsTimeOut) {
  SubmissionModel model(ring_of(64));
  for (uint64_t fence = 1; fence <= 300; ++fence) {
    ASSERT_EQ(model.submit({draw()}), fence);
    ASSERT_TRUE(model.wait(fence, kMs));
    ASSERT_EQ(model.seen_fence(), fence);
    ASSERT_EQ(model.fence(), fence);
  }
  // Each round: 5 us submit + 1 us draw + 10 us interrupt = 16 us.
  EXPECT_EQ(model.now(), 300 * 16 * kUs);
  // Tails 10..60, then every 6 packets wrap (pad 4) and run 10..60 again: 300 = 6 + 49 * 6.
  EXPECT_EQ(model.tail(), 60u);
  EXPECT_EQ(model.head(), 60u);
  EXPECT_EQ(model.counters().fence_regressions, 0);
  EXPECT_EQ(model.counters().waits, 300);
  EXPECT_EQ(model.counters().wait_timeouts, 0);

  EXPECT_EQ(model.submit({semaphore_wait(9)}), 301u);  // at 4 805 us; never signalled
  EXPECT_FALSE(model.wait(301, kMs));
  EXPECT_EQ(model.now(), 4'805 * kUs + kMs);
  EXPECT_EQ(model.seen_fence(), 300u);
  EXPECT_EQ(model.counters().waits, 301);
  EXPECT_EQ(model.counters().wait_timeouts, 1);
}

// --- Power ----------------------------------------------------------------------------------

// Check that the engine powers down after the idle timeout and that the Wait policy wakes it
// and waits the wake before ringing, so the doorbell lands.
TEST(KmdPower, TheWaitPolicyWakesASleepingEngineBeforeRinging) {
  SubmissionModel model;
  model.advance(5 * kMs - 1);
  EXPECT_EQ(model.engine_state(), "awake");
  model.advance(1);  // idle since 0, timeout 5 ms
  EXPECT_EQ(model.engine_state(), "asleep");
  EXPECT_EQ(model.counters().sleeps, 1);

  EXPECT_EQ(model.submit({draw()}), 1u);
  EXPECT_EQ(model.now(), 5'205 * kUs);  // 5 000 + 5 submit + 200 wake
  EXPECT_EQ(model.engine_state(), "awake");
  EXPECT_EQ(model.counters().wakes, 1);
  EXPECT_EQ(model.counters().doorbells_lost, 0);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.now(), 5'216 * kUs);  // + 1 draw + 10 interrupt
}

// Check that with the Off policy (and no readback) a doorbell to a sleeping engine is lost, the
// engine stays asleep, the diagnosis says doorbell_lost, and a kick recovers.
TEST(KmdPower, TheOffPolicyLosesTheDoorbellToASleepingEngine) {
  SubmissionModel model(no_readback(PowerPolicy::Off));
  model.advance(5 * kMs);
  ASSERT_EQ(model.engine_state(), "asleep");
  EXPECT_EQ(model.submit({draw()}), 1u);  // at 5 005 us
  EXPECT_EQ(model.counters().doorbells_lost, 1);
  EXPECT_EQ(model.doorbell_register(), 0u);
  EXPECT_FALSE(model.wait(1, kMs));
  EXPECT_EQ(model.engine_state(), "asleep");
  EXPECT_EQ(model.counters().wakes, 0);

  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "doorbell_lost");
  EXPECT_EQ(d.engine, "asleep");
  EXPECT_EQ(d.head, 0u);
  EXPECT_EQ(d.tail, 10u);
  EXPECT_EQ(d.doorbell, 0u);
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.fence, 0u);
  EXPECT_EQ(d.awaited, 1u);
  EXPECT_TRUE(contains(d.remedy, "wake the engine"));

  // 5 005 + 1 000 wait + 1 000 probe = 7 005 us; the kick wakes (200 us) and rings.
  EXPECT_TRUE(model.kick());
  EXPECT_EQ(model.counters().kicks, 1);
  EXPECT_EQ(model.counters().wakes, 1);
  EXPECT_EQ(model.now(), 7'205 * kUs);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.now(), 7'216 * kUs);
  EXPECT_FALSE(model.kick());  // nothing left unannounced
}

// Check that the Race policy rings inside the wake window, losing the doorbell: the engine
// wakes but never learns of the packet.
TEST(KmdPower, TheRacePolicyLosesTheDoorbellInsideTheWakeWindow) {
  SubmissionModel model(no_readback(PowerPolicy::Race));
  model.advance(5 * kMs);
  EXPECT_EQ(model.submit({draw()}), 1u);
  EXPECT_EQ(model.now(), 5'005 * kUs);  // rang at once, no waiting for the wake
  EXPECT_EQ(model.engine_state(), "waking");
  EXPECT_EQ(model.counters().doorbells_lost, 1);
  EXPECT_FALSE(model.wait(1, kMs));
  EXPECT_EQ(model.engine_state(), "awake");  // up at 5 205 us, idle, asleep again only at 10 205
  EXPECT_EQ(model.counters().wakes, 1);

  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "doorbell_lost");
  EXPECT_EQ(d.engine, "awake");
  EXPECT_FALSE(d.head_moved);
  EXPECT_TRUE(contains(d.remedy, "wake the engine"));
}

// Check that reading the doorbell back recovers the Race policy's lost write: the driver finds
// the stale value, waits the wake and rewrites.
TEST(KmdPower, DoorbellReadbackRecoversTheRacePolicy) {
  KmdConfig config;
  config.power = PowerPolicy::Race;
  SubmissionModel model(config);
  model.advance(5 * kMs);
  EXPECT_EQ(model.submit({draw()}), 1u);
  EXPECT_EQ(model.counters().doorbells_lost, 1);
  EXPECT_EQ(model.counters().doorbell_rewrites, 1);
  EXPECT_EQ(model.now(), 5'205 * kUs);  // 5 000 + 5 submit + 200 wake before the rewrite
  EXPECT_EQ(model.doorbell_register(), 10u);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.now(), 5'216 * kUs);
}

// --- Doorbell faults --------------------------------------------------------------------------

// Check that a doorbell that is not written leaves the head still (diagnosis doorbell_lost on an
// awake engine) and that the next normal submit's doorbell brings the engine up to date.
TEST(KmdDoorbell, ANotWrittenDoorbellIsCaughtUpByTheNextOne) {
  SubmissionModel model(no_readback());
  model.arm({.doorbell = DoorbellFault::NotWritten});
  EXPECT_EQ(model.submit({draw()}), 1u);  // at 5 us
  EXPECT_EQ(model.counters().doorbells_lost, 1);

  Diagnosis d = model.diagnose();  // 5 .. 1 005 us
  EXPECT_EQ(d.scene, "doorbell_lost");
  EXPECT_EQ(d.head, 0u);
  EXPECT_EQ(d.tail, 10u);
  EXPECT_EQ(d.doorbell, 0u);
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.engine, "awake");
  EXPECT_EQ(d.remedy, "read the doorbell back after writing it: it was skipped or merged");

  EXPECT_EQ(model.submit({draw()}), 2u);  // at 1 010 us, doorbell 20 covers both
  EXPECT_EQ(model.doorbell_register(), 20u);
  EXPECT_TRUE(model.wait(2, kMs));
  EXPECT_EQ(model.now(), 1'022 * kUs);  // draws 1 010..1 011..1 012, interrupt + 10
  EXPECT_EQ(model.head(), 20u);
  EXPECT_EQ(model.counters().doorbells_lost, 1);
}

// Check that a merged doorbell is held back (the head does not move) until the next doorbell
// write, which brings the engine up to date.
TEST(KmdDoorbell, AMergedDoorbellIsHeldUntilTheNextWrite) {
  SubmissionModel model(no_readback());
  model.arm({.doorbell = DoorbellFault::Merged});
  EXPECT_EQ(model.submit({draw()}), 1u);
  EXPECT_EQ(model.doorbell_register(), 0u);

  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "doorbell_lost");
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.doorbell, 0u);
  EXPECT_EQ(d.tail, 10u);

  EXPECT_EQ(model.submit({draw()}), 2u);
  EXPECT_EQ(model.doorbell_register(), 20u);
  EXPECT_TRUE(model.wait(2, kMs));
  EXPECT_EQ(model.now(), 1'022 * kUs);
  EXPECT_EQ(model.counters().doorbells_lost, 1);
}

// Check that the readback rewrites a doorbell that was not written or was merged, so no
// submit stalls.
TEST(KmdDoorbell, ReadbackRewritesANotWrittenOrMergedDoorbell) {
  SubmissionModel model;  // readback on by default
  model.arm({.doorbell = DoorbellFault::NotWritten});
  EXPECT_EQ(model.submit({draw()}), 1u);
  model.arm({.doorbell = DoorbellFault::Merged});
  EXPECT_EQ(model.submit({draw()}), 2u);
  EXPECT_EQ(model.counters().doorbells_lost, 2);
  EXPECT_EQ(model.counters().doorbell_rewrites, 2);
  EXPECT_EQ(model.doorbell_register(), 20u);
  EXPECT_TRUE(model.wait(2, kMs));
  EXPECT_EQ(model.now(), 21 * kUs);  // second submit at 10 us, its draw 10..11, interrupt + 10
}

// --- Half-written packets -----------------------------------------------------------------

// Fills a 64-dword ring to tail 60 and lets the engine drain it; the next one-draw packet wraps.
void fill_to_the_end(SubmissionModel& model) {
  for (int i = 0; i < 6; ++i) model.submit({draw()});  // at 5, 10, ..., 30 us
  model.advance(kMs);                                  // to 1 030 us, all consumed
  ASSERT_EQ(model.head(), 60u);
  ASSERT_EQ(model.fence(), 6u);
}

// Check that the header magic catches a wrapped packet whose bytes land late: the tail waits
// for them, nothing stale is decoded, and the diagnosis names the scene once.
TEST(KmdHalfWritten, TheHeaderMagicCatchesAWrappedPacketStillBeingWritten) {
  SubmissionModel model(ring_of(64));
  fill_to_the_end(model);
  model.arm({.half_written = true});
  EXPECT_EQ(model.submit({draw()}), 7u);
  EXPECT_EQ(model.now(), 1'085 * kUs);  // 1 030 + 5 submit + 50 until the bytes land
  EXPECT_EQ(model.counters().magic_caught, 1);
  EXPECT_EQ(model.tail(), 10u);
  EXPECT_TRUE(model.wait(7, kMs));
  EXPECT_EQ(model.counters().stale_reads, 0);
  ASSERT_EQ(model.findings().size(), 1u);
  EXPECT_TRUE(contains(model.findings()[0], "header magic missing at ring offset 0 (fence 7)"));

  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "half_written");
  EXPECT_EQ(d.finding, model.findings().back());
  EXPECT_TRUE(contains(d.remedy, "header magic"));
  EXPECT_EQ(model.diagnose().scene, "healthy");  // only what happened since the last diagnosis
}

// Check that without the magic check the tail moves at once and the engine decodes the wrapped
// packet before its bytes land: a stale read.
TEST(KmdHalfWritten, WithoutTheMagicCheckTheEngineDecodesStaleBytes) {
  KmdConfig config = ring_of(64);
  config.magic_check = false;
  SubmissionModel model(config);
  fill_to_the_end(model);
  model.arm({.half_written = true});
  EXPECT_EQ(model.submit({draw()}), 7u);
  EXPECT_EQ(model.now(), 1'035 * kUs);  // no wait for the bytes (they land at 1 085)
  model.advance(100 * kUs);
  EXPECT_EQ(model.counters().magic_caught, 0);
  EXPECT_EQ(model.counters().stale_reads, 1);
  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "half_written");
  EXPECT_TRUE(contains(d.finding, "stale bytes"));
}

// Check that the fault on a packet that does not wrap changes nothing (the barrier is only
// missing on the wrap path), with or without the magic check.
TEST(KmdHalfWritten, ANonWrappingPacketIsUnaffected) {
  for (bool magic : {true, false}) {
    KmdConfig config;
    config.magic_check = magic;
    SubmissionModel model(config);
    model.arm({.half_written = true});
    EXPECT_EQ(model.submit({draw()}), 1u);
    EXPECT_EQ(model.now(), 5 * kUs);
    EXPECT_TRUE(model.wait(1, kMs));
    EXPECT_EQ(model.counters().magic_caught, 0);
    EXPECT_EQ(model.counters().stale_reads, 0);
    EXPECT_EQ(model.diagnose().scene, "healthy");
  }
}

// --- Fence never arrives -------------------------------------------------------------------

// Check that a long draw is heavy work: the fence is late and the head stays on an ordinary
// draw that is still running (no command finished in the probe, but nothing is stuck).
TEST(KmdDiagnosis, ALongDrawIsHeavyWork) {
  SubmissionModel model;
  EXPECT_EQ(model.submit({draw(10 * kMs)}), 1u);
  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "heavy_work");
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.head, 2u);
  EXPECT_EQ(d.fence, 0u);
  EXPECT_EQ(d.awaited, 1u);
  EXPECT_EQ(d.at_head, "draw");
  EXPECT_EQ(d.engine, "awake");
  EXPECT_TRUE(model.wait(1, 20 * kMs));
  EXPECT_EQ(model.now(), 10'015 * kUs);  // 5 + 10 000 draw + 10 interrupt
}

// Check heavy work seen mid-packet: ten 1 ms draws, watched from 2.5 ms to 3.5 ms after they
// start, move the head from the third draw to the fourth.
TEST(KmdDiagnosis, ManyDrawsMoveTheHeadCommandByCommand) {
  SubmissionModel model;
  EXPECT_EQ(model.submit(std::vector<Command>(10, draw(kMs))), 1u);  // 46 dwords, draws from 5 us
  model.advance(2'500 * kUs);  // at 2 505 us: draws 0 and 1 done, draw 2 (dword 2 + 8) running
  ASSERT_EQ(model.head(), 10u);
  Diagnosis d = model.diagnose();  // to 3 505 us: draw 3 (dword 14)
  EXPECT_EQ(d.scene, "heavy_work");
  EXPECT_EQ(d.head, 14u);
  EXPECT_TRUE(d.head_moved);
  EXPECT_EQ(d.tail, 46u);
}

// Check that a head stuck on an unsignalled semaphore is a stuck command decoded as
// "semaphore_wait 3", and that signalling it lets the packet finish.
TEST(KmdDiagnosis, AnUnsignalledSemaphoreIsAStuckCommand) {
  SubmissionModel model;
  EXPECT_EQ(model.submit({semaphore_wait(3)}), 1u);
  model.advance(10 * kUs);         // to 15 us: fetched, head on the semaphore at dword 2
  Diagnosis d = model.diagnose();  // to 1 015 us
  EXPECT_EQ(d.scene, "stuck_command");
  EXPECT_EQ(d.at_head, "semaphore_wait 3");
  EXPECT_EQ(d.head, 2u);
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.engine, "awake");
  EXPECT_TRUE(contains(d.remedy, "signal that semaphore"));
  EXPECT_FALSE(model.kick());  // the engine knows of the packet

  model.signal(3);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.now(), 1'026 * kUs);  // the wait's own 1 us, then the interrupt's 10
}

// Check that bad addresses and bad opcodes stop the engine for good and are decoded in hex.
TEST(KmdDiagnosis, BadAddressesAndOpcodesAreDecodedAtHead) {
  SubmissionModel address;
  address.submit({draw(), bad_address(0xdead000), draw()});
  address.advance(10 * kUs);  // the first draw 5..6 us, then head on command 1: dword 2 + 4
  Diagnosis a = address.diagnose();
  EXPECT_EQ(a.scene, "stuck_command");
  EXPECT_EQ(a.at_head, "bad_address 0xdead000");
  EXPECT_EQ(a.head, 6u);
  EXPECT_TRUE(contains(a.remedy, "address"));

  SubmissionModel opcode;
  opcode.submit({bad_opcode(0x7f)});
  opcode.advance(10 * kUs);
  Diagnosis o = opcode.diagnose();
  EXPECT_EQ(o.scene, "stuck_command");
  EXPECT_EQ(o.at_head, "bad_opcode 0x7f");
  EXPECT_EQ(o.head, 2u);
  EXPECT_TRUE(contains(o.remedy, "opcode"));
  opcode.signal(0x7f);  // nothing moves a stopped front end
  EXPECT_FALSE(opcode.wait(1, 10 * kMs));
  EXPECT_EQ(opcode.head(), 2u);
}

// Check that a fence write to an unwritable page leaves the fence unchanged with the ring
// consumed, and that the next packet's fence covers the earlier one.
TEST(KmdDiagnosis, AnUnwritableFenceIsSeenPastTheFenceWrite) {
  SubmissionModel model;
  model.arm({.fence_unwritable = true});
  EXPECT_EQ(model.submit({draw()}), 1u);
  model.advance(100 * kUs);  // the packet ran at 5..6 us
  EXPECT_EQ(model.fence(), 0u);
  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "fence_unwritable");
  EXPECT_EQ(d.head, 10u);
  EXPECT_EQ(d.tail, 10u);
  EXPECT_EQ(d.fence, 0u);
  EXPECT_EQ(d.awaited, 1u);
  EXPECT_FALSE(d.head_moved);
  EXPECT_EQ(d.at_head, "nothing");
  EXPECT_TRUE(contains(d.remedy, "write permission"));
  EXPECT_FALSE(model.wait(1, kMs));

  EXPECT_EQ(model.submit({draw()}), 2u);
  EXPECT_TRUE(model.wait(1, kMs));  // fence 2 >= 1
  EXPECT_EQ(model.seen_fence(), 2u);
  EXPECT_EQ(model.command_buffers_kept(), 2);
}

// Check that the diagnosis fields read as a check compares them, and command names parse.
TEST(KmdDiagnosis, FieldsReadAsTextAndCommandNamesParse) {
  Diagnosis d{.scene = "heavy_work", .head = 14, .tail = 46, .fence = 0, .awaited = 1, .head_moved = true};
  EXPECT_EQ(diagnosis_field(d, "scene"), "heavy_work");
  EXPECT_EQ(diagnosis_field(d, "head"), "14");
  EXPECT_EQ(diagnosis_field(d, "awaited"), "1");
  EXPECT_EQ(diagnosis_field(d, "head_moved"), "true");
  EXPECT_EQ(diagnosis_field(d, "nonsense"), std::nullopt);
  for (std::string_view field : kDiagnosisFields) EXPECT_TRUE(diagnosis_field(d, field)) << field;
  EXPECT_EQ(parse_command_kind("semaphore_wait"), CommandKind::SemaphoreWait);
  EXPECT_EQ(parse_command_kind("bad_opcode"), CommandKind::BadOpcode);
  EXPECT_EQ(parse_command_kind("jump"), std::nullopt);
}

// --- CPU busy, GPU idle --------------------------------------------------------------------

// Check that thousands of tiny submits with the engine mostly idle read as cpu_bound with the
// batching remedy, while ten read as healthy.
TEST(KmdCpuBound, ThousandsOfTinySubmitsAreCpuBound) {
  SubmissionModel many;
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(many.submit({draw()}));
  EXPECT_EQ(many.now(), 10 * kMs);  // 2000 * 5 us
  Diagnosis d = many.diagnose();
  // 2000 * 1 us busy in 10 000 + 1 000 us: 2 000 000 * 100 / 11 000 000 = 18 %.
  EXPECT_EQ(d.scene, "cpu_bound");
  EXPECT_EQ(d.finding, "2000 submits in this frame; the engine was busy 18% of its 11000 us");
  EXPECT_EQ(d.remedy, "batch submits: fewer, larger command buffers");
  EXPECT_EQ(d.fence, 2000u);

  SubmissionModel few;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(few.submit({draw()}));
  Diagnosis h = few.diagnose();
  EXPECT_EQ(h.scene, "healthy");
  EXPECT_EQ(h.finding, "fence 10 reached; the engine is awake");
  EXPECT_EQ(h.remedy, "none");
}

// Check that an engine busy for 2^62 ns reads as busy, not idle: busy * 100 overflowed int64
// (found by the session and kernel-ops fuzz targets under UBSan; 2^62 * 100 wraps to exactly 0,
// which read as 0% busy and so as cpu_bound).
TEST(KmdCpuBound, AnEngineBusyForAgesIsNotIdle) {
  KmdConfig config;
  config.tiny_submits = 1;
  SubmissionModel model(config);
  ASSERT_TRUE(model.submit({draw(uint64_t{1} << 62)}));
  ASSERT_TRUE(model.wait(1, UINT64_MAX));
  Diagnosis d = model.diagnose();
  EXPECT_EQ(d.scene, "healthy") << d.finding;
}

// Check that busy time stops at INT64_MAX rather than wrapping when three commands of 2^62 ns
// run (their sum overflowed int64: the fuzz targets' second kernel finding).
TEST(KmdCpuBound, BusyTimeSaturatesInsteadOfWrapping) {
  SubmissionModel model;
  const uint64_t ages = uint64_t{1} << 62;
  ASSERT_TRUE(model.submit({draw(ages), draw(ages), draw(ages)}));
  ASSERT_TRUE(model.wait(1, UINT64_MAX));
  EXPECT_EQ(model.counters().busy_ns, INT64_MAX);
  EXPECT_EQ(model.diagnose().scene, "healthy");
}

// Check that the per-frame statistics restart at a frame boundary: the same 2000 submits
// split over two frames are not "thousands in a frame".
TEST(KmdCpuBound, AFrameBoundaryRestartsTheCount) {
  SubmissionModel model;
  for (int i = 0; i < 1000; ++i) model.submit({draw()});
  model.frame();
  for (int i = 0; i < 999; ++i) model.submit({draw()});
  EXPECT_EQ(model.diagnose().scene, "healthy");  // 999 < tiny_submits 1000
}

// --- Command-buffer recycling --------------------------------------------------------------

// Check deferred recycling: a buffer completes when the driver sees its fence (not when the
// engine writes it), is kept two frames and recycled at the third with recycle_frames 3.
TEST(KmdRecycling, ACompletedBufferIsKeptForRecycleFrames) {
  KmdConfig config;
  config.recycle_frames = 3;
  SubmissionModel model(config);
  model.submit({draw()});
  model.advance(10 * kUs);  // to 15 us: fence 1 written at 6, its interrupt is at 16
  EXPECT_EQ(model.fence(), 1u);
  EXPECT_EQ(model.command_buffers_kept(), 0);
  model.advance(kUs);
  EXPECT_EQ(model.seen_fence(), 1u);
  EXPECT_EQ(model.command_buffers_kept(), 1);  // completed in frame 0

  model.frame();  // frame 1: 1 - 0 < 3
  EXPECT_EQ(model.command_buffers_kept(), 1);
  model.frame();  // frame 2
  EXPECT_EQ(model.command_buffers_kept(), 1);
  EXPECT_EQ(model.counters().recycled, 0);
  model.frame();  // frame 3: 3 - 0 >= 3
  EXPECT_EQ(model.command_buffers_kept(), 0);
  EXPECT_EQ(model.counters().recycled, 1);
  EXPECT_EQ(model.counters().uaf, 0);
  EXPECT_TRUE(model.findings().empty());
}

// Check that a buffer still in flight is never recycled, however many frames pass.
TEST(KmdRecycling, ABufferInFlightIsNeverRecycled) {
  SubmissionModel model;
  model.submit({semaphore_wait(1)});
  for (int i = 0; i < 5; ++i) {
    model.advance(kMs);
    model.frame();
  }
  EXPECT_EQ(model.counters().recycled, 0);
  model.signal(1);
  EXPECT_TRUE(model.wait(1, kMs));
  EXPECT_EQ(model.command_buffers_kept(), 1);
  model.frame();
  model.frame();  // default recycle_frames 2
  EXPECT_EQ(model.counters().recycled, 1);
  EXPECT_EQ(model.counters().uaf, 0);
}

}  // namespace
}  // namespace tidemark::kernel
