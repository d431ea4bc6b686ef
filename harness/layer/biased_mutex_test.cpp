// The layer's biased lock: the thread that takes it often holds the bias; another thread takes
// the bias away and waits for the owner's call in flight; threads taking turns leave it a plain
// mutex; it stays exclusive throughout.
#include "layer/biased_mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace tidemark::layer {
namespace {

using Clock = std::chrono::steady_clock;

void take_often(BiasedMutex& mutex) {
  for (uint32_t i = 0; i < BiasedMutex::kStreak; ++i) {
    mutex.lock();
    mutex.unlock();
  }
}

// Check that a thread taking the lock kStreak times in a row holds the bias, and that its
// locks then still exclude a try from another thread.
TEST(BiasedMutex, TheThreadThatTakesItOftenHoldsTheBias) {
  BiasedMutex mutex;
  take_often(mutex);
  ASSERT_TRUE(mutex.biased_to_caller()) << "membarrier's private expedited barrier is missing on this kernel";
  mutex.lock();
  bool other_got_it = true;
  std::thread([&] { other_got_it = mutex.try_lock(); }).join();
  EXPECT_FALSE(other_got_it);
  mutex.unlock();
  EXPECT_EQ(mutex.revocations(), 1u);  // the try took the bias away, and did not wait
  EXPECT_FALSE(mutex.biased_to_caller());
}

// Check that a thread wanting the lock while the owner holds it through the bias waits for the
// owner's unlock, and only then holds it.
TEST(BiasedMutex, AnotherThreadWaitsForTheOwnersCallInFlight) {
  BiasedMutex mutex;
  take_often(mutex);
  ASSERT_TRUE(mutex.biased_to_caller());
  mutex.lock();
  std::atomic<bool> other_holds{false};
  std::thread other([&] {
    mutex.lock();
    other_holds = true;
    mutex.unlock();
  });
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  while (mutex.waits_for_owner() == 0 && Clock::now() < deadline) std::this_thread::yield();
  const uint32_t waited = mutex.waits_for_owner();
  const bool held_too_early = other_holds.load();
  mutex.unlock();
  other.join();
  EXPECT_EQ(waited, 1u) << "the other thread never waited for the owner";
  EXPECT_FALSE(held_too_early);
  EXPECT_TRUE(other_holds.load());
  EXPECT_FALSE(mutex.biased_to_caller());
}

// Check that threads taking turns keep the lock exclusive (a counter no atomic protects).
TEST(BiasedMutex, ThreadsTakingTurnsStayExclusiveAndEndOnTheMutex) {
  BiasedMutex mutex;
  constexpr int kThreads = 4, kRounds = 40, kPerRound = 200;
  uint64_t counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kPerRound; ++i) {
          std::lock_guard lock(mutex);
          const uint64_t seen = counter;
          std::atomic_signal_fence(std::memory_order_seq_cst);
          counter = seen + 1;
        }
        std::this_thread::yield();
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter, uint64_t{kThreads} * kRounds * kPerRound);
  EXPECT_LE(mutex.revocations(), BiasedMutex::kMaxRevocations);
}

// Check that after kMaxRevocations the bias is given to no one again.
TEST(BiasedMutex, AfterEnoughRevocationsItStaysAPlainMutex) {
  BiasedMutex mutex;
  for (uint32_t i = 0; i < BiasedMutex::kMaxRevocations; ++i) {
    take_often(mutex);
    ASSERT_TRUE(mutex.biased_to_caller()) << "after " << i << " revocations";
    std::thread([&] { std::lock_guard lock(mutex); }).join();
  }
  EXPECT_EQ(mutex.revocations(), BiasedMutex::kMaxRevocations);
  take_often(mutex);
  EXPECT_FALSE(mutex.biased_to_caller());
}

}  // namespace
}  // namespace tidemark::layer
