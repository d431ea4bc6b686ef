// What a client is shown of GPU progress under the layer: the deterministic completion rule
// (tidemark_layer.h states it). Pure bookkeeping over opaque handles, no Vulkan calls, so the
// rule is tested on its own; the layer asks it before answering a poll, and after a blocking
// wait (the program's, or its own at a poll's reveal point) the driver says finished.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "layer/handle_map.h"

namespace tidemark::layer {

// The Nth poll in a row that shows an object busy is a reveal point: the layer really waits
// for what it polls and shows the outcome. Counted in calls, never in time, so a poller sees
// the same answers on every run, and a program that only polls always finishes.
inline constexpr uint32_t kPollsToReveal = 32;

class CompletionRule {
 public:
  struct Options {
    bool real = false;        // the driver's own answers
    bool never_done = false;  // polls never show work done; a blocking wait shows only its own object
    uint32_t polls_to_reveal = kPollsToReveal;
  };
  struct Signal {
    uint64_t semaphore = 0, value = 0;  // a timeline semaphore's signal operation
  };
  // A submit some wait found finished: the queue, its number there, and its place among all
  // the device's submits (what orders submits on different queues).
  struct Reveal {
    uint64_t queue = 0, submit = 0, order = 0;
  };
  // The kernel fence that must be seen before a reveal holds (the newest in the range), and
  // whether the kernel's ring refused one of the submits in it (it can never be seen).
  struct KernelNeed {
    uint64_t fence = 0;
    bool refused = false;
  };

  explicit CompletionRule(Options options) : options_(options) {}
  bool deterministic() const { return !options_.real; }

  void submitted(uint64_t queue, uint64_t kernel_fence, uint64_t fence, std::span<const Signal> signals);
  void fence_created(uint64_t fence, bool signalled);
  void fence_reset(uint64_t fence);
  void fence_destroyed(uint64_t fence);
  // Something the rule does not follow signals the fence (an image acquire, a sparse bind, an
  // import): the driver's answers stand for it until it is reset.
  void fence_signalled_elsewhere(uint64_t fence);
  void semaphore_created(uint64_t semaphore, uint64_t initial_value);
  void semaphore_destroyed(uint64_t semaphore);
  void semaphore_signaled(uint64_t semaphore, uint64_t value);  // by the host: known at once
  bool is_timeline(uint64_t semaphore) const { return semaphores_.contains(semaphore); }

  // Polls: what the client is shown, given the driver's own answer.
  bool fence_shown_done(uint64_t fence, bool driver_done) const;
  // Whether the fence is known signalled: its submit is known done, or it was made signalled and
  // not reset since, or it was never submitted since it was made or reset (false); none:
  // something the rule does not follow signals it, so the driver's answer stands.
  std::optional<bool> fence_known(uint64_t fence) const;
  uint64_t semaphore_shown_value(uint64_t semaphore, uint64_t driver_value);
  // The value the semaphore is known to have reached (none: not a timeline the layer saw made).
  std::optional<uint64_t> semaphore_known(uint64_t semaphore);
  // The value the semaphore's last signal the layer saw brings it to (what a poll that shows
  // less than this is a busy answer against).
  uint64_t semaphore_target(uint64_t semaphore) const;

  // A poll showed the object busy. Returns the reveal point's work when this poll is the Nth in
  // a row for the object and the layer saw the submit that signals it (never under never_done
  // or real: those show what they show); the layer then waits for it and confirms.
  std::optional<Reveal> fence_polled_busy(uint64_t fence);
  std::optional<Reveal> semaphore_polled_busy(uint64_t semaphore, uint64_t value);
  // A poll showed the object done: its run of busy answers ends.
  void fence_polled_done(uint64_t fence) { fence_polls_.erase(fence); }
  void semaphore_polled_done(uint64_t semaphore) { semaphore_polls_.erase(semaphore); }

  // After the driver finished a blocking wait: the submit the wait reveals (none: nothing the
  // layer saw submitted, so the driver's answer stands).
  std::optional<Reveal> fence_wait(uint64_t fence) const;
  std::optional<Reveal> semaphore_wait(uint64_t semaphore, uint64_t value) const;
  std::optional<Reveal> queue_idle(uint64_t queue) const;
  std::vector<Reveal> device_idle() const;  // every queue's newest submit
  KernelNeed kernel_need(const Reveal& reveal) const;
  // The reveal held (the kernel saw it): the work up to it is known retired. `fence` or
  // `semaphore`/`value` name what the wait was on (never_done shows only that).
  void confirm(const Reveal& reveal, uint64_t fence, uint64_t semaphore = 0, uint64_t value = 0);

 private:
  struct Queue {
    uint64_t number = 0;  // from 1, in the order of the queues' first submits
    uint64_t submitted = 0, known = 0;
    std::deque<std::pair<uint64_t, uint64_t>> kernel_fences;  // (submit, kernel fence) not yet known
  };
  struct Pending {
    uint64_t queue = 0, submit = 0, order = 0;
  };
  struct Timeline {
    uint64_t known = 0;                                // the value shown to be reached
    std::deque<std::pair<uint64_t, Pending>> signals;  // (value, its submit), in signal order
    // Every signal's value above the one before (what the Vulkan spec asks of a timeline): the
    // first signal reaching a value is found by bisection, not by a walk over the signals (a
    // GL driver waiting on each of 50 000 submits made that walk quadratic).
    bool increasing = true;
  };
  bool known(const Pending& at) const;
  static Reveal reveal_of(const Pending& at) { return {at.queue, at.submit, at.order}; }
  bool at_reveal_point(HandleMap<uint32_t>& runs, uint64_t object);

  Options options_;
  uint64_t submits_ = 0;  // on every queue
  HandleMap<Queue> queues_;
  HandleMap<Pending> fences_;    // the submit each fence waits on
  HandleSet revealed_fences_;    // never_done: fences a blocking wait showed done
  HandleMap<bool> unsubmitted_;  // fences made or reset and not submitted since: signalled?
  HandleMap<Timeline> semaphores_;
  HandleMap<uint32_t> fence_polls_, semaphore_polls_;  // busy answers in a row
};

}  // namespace tidemark::layer
