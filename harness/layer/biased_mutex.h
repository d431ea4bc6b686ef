// The layer's lock: a mutex biased towards the one thread that takes it, which then locks and
// unlocks with plain loads and stores. A program's Vulkan calls nearly always come from one thread,
// an uncontended std::mutex's two atomic read-modify-writes cost about as much as the layer's own
// work on a bare create/bind/destroy, and no library in Debian offers a biased lock. Without
// membarrier(2)'s private expedited barrier, or under ThreadSanitizer, it is a plain mutex.
#pragma once

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace tidemark::layer {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kUnderThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kUnderThreadSanitizer = true;
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif

class BiasedMutex {
 public:
  static constexpr uint32_t kStreak = 64;         // locks in a row by one thread before it holds the bias
  static constexpr uint32_t kMaxRevocations = 8;  // then the lock stays a plain mutex

  BiasedMutex() { barrier_ready_ = register_barrier(); }
  BiasedMutex(const BiasedMutex&) = delete;
  BiasedMutex& operator=(const BiasedMutex&) = delete;

  void lock() {
    if (lock_biased()) return;
    mutex_.lock();
    revoke(/*wait=*/true);
    held_biased_ = false;
  }

  // Never waits: false when another thread holds the lock, the mutex or the bias (a thread
  // stopped inside a call at exit keeps it).
  bool try_lock() {
    if (lock_biased()) return true;
    if (!mutex_.try_lock()) return false;
    if (!revoke(/*wait=*/false)) {
      mutex_.unlock();
      return false;
    }
    held_biased_ = false;
    return true;
  }

  void unlock() {
    if (held_biased_) {
      inside_.store(false, std::memory_order_release);
      return;
    }
    grant_after_streak();
    mutex_.unlock();
  }

  // In a forked child (one thread, the forking one; the lock as the parent's atfork handler
  // left it): its membarrier registration is made again, this process being new to the kernel.
  void after_fork_in_child() { barrier_ready_ = barrier_ready_ && register_barrier(); }

  // What the tests look at.
  bool biased_to_caller() const { return owner_.load(std::memory_order_relaxed) == self(); }
  uint32_t revocations() const { return revocations_.load(std::memory_order_relaxed); }
  // How many times a thread has found the owner inside a call and waited for it to end.
  uint32_t waits_for_owner() const { return waits_for_owner_.load(std::memory_order_relaxed); }

 private:
  static uint64_t self() { return static_cast<uint64_t>(::pthread_self()); }

  static bool register_barrier() {
    if (kUnderThreadSanitizer) return false;
    return ::syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
  }
  // The heavy half: every running thread of the process passes a full barrier. Registered, the
  // private barrier cannot fail; should it, the global one (slower, no registration) stands in
  // and the lock is never biased again.
  void heavy_barrier() {
    if (::syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
    barrier_ready_ = false;
    ::syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0);
  }

  bool lock_biased() {
    const uint64_t me = self();
    if (owner_.load(std::memory_order_relaxed) != me) return false;
    inside_.store(true, std::memory_order_relaxed);
    // The light half of the barrier pair: only the compiler is kept from moving the load above
    // the store; the revoker's membarrier orders the processor.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (owner_.load(std::memory_order_relaxed) == me) {
      held_biased_ = true;
      return true;
    }
    inside_.store(false, std::memory_order_release);
    return false;
  }

  // Caller holds the mutex. Takes the bias from its owner: after the heavy barrier either the
  // owner's mark (inside_) is visible here, and with `wait` its call in flight is waited out
  // (without: false), or the owner's own check sees the bias gone and it goes to the mutex.
  bool revoke(bool wait) {
    if (owner_.load(std::memory_order_relaxed) == 0) return true;
    owner_.store(0, std::memory_order_relaxed);
    streak_ = 0;
    revocations_.fetch_add(1, std::memory_order_relaxed);
    heavy_barrier();
    if (!inside_.load(std::memory_order_acquire)) return true;
    if (!wait) return false;
    waits_for_owner_.fetch_add(1, std::memory_order_relaxed);
    for (uint32_t spins = 0; inside_.load(std::memory_order_acquire); ++spins)
      if (spins >= 64) ::sched_yield();
    return true;
  }

  // Caller holds the mutex.
  void grant_after_streak() {
    if (!barrier_ready_ || revocations_.load(std::memory_order_relaxed) >= kMaxRevocations) return;
    const uint64_t me = self();
    if (me != streak_thread_) {
      streak_thread_ = me;
      streak_ = 0;
    }
    if (++streak_ >= kStreak) owner_.store(me, std::memory_order_relaxed);
  }

  std::mutex mutex_;
  std::atomic<uint64_t> owner_{0};   // the thread holding the bias; 0: none
  std::atomic<bool> inside_{false};  // the owner holds the lock through the bias
  bool held_biased_ = false;         // read and written only by the lock's holder
  bool barrier_ready_ = false;
  uint64_t streak_thread_ = 0;  // under the mutex
  uint32_t streak_ = 0;
  std::atomic<uint32_t> revocations_{0}, waits_for_owner_{0};
};

}  // namespace tidemark::layer
