// The model host on a thread of its own: the device's thread enqueues what it reports and goes
// on; the host thread applies it in call order. Whatever needs an answer first applies what is
// still queued, on the asking thread, so the host sees the calls in the same order and virtual
// time as on the call path: every result and digest is unchanged. The queue is a fixed ring; when
// it is full the producer applies the queued events itself (nothing dropped, nothing grown).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <variant>
#include <vector>

#include "host/model_host.h"

#include "calls/host_forwarding.h"  // ForwardedModel, generated from api/calls.yaml

namespace tidemark::host {

class HostThread final : public HostEvents, public ForwardedModel<HostThread> {
 public:
  static constexpr uint64_t kCapacity = 8192;  // about 400 KiB of events
  // The host thread sleeps only with fewer than kWakeAt events waiting, and every kWakeAt-th push
  // looks for it asleep: it is woken before 2 * kWakeAt wait, and a short run wakes it once.
  static constexpr uint64_t kWakeAt = 1024;

  explicit HostThread(std::unique_ptr<ModelHost> host);
  ~HostThread() override;  // applies what is queued, then stops the thread
  HostThread(const HostThread&) = delete;
  HostThread& operator=(const HostThread&) = delete;

  void observe_from(std::function<ObservedGauges()> layer);
  void wire_from(std::function<NamedGauges()> wire);
  void read_back_from(std::function<Status(ModelHost&)> feed);
  // Called before each model step (api::Model), on the stepping thread, before the host is
  // taken: a renderer server whose layer asks the host through the kernel channel must have
  // settled first (renderer::TappedServer::settle), or its questions and the step would meet in
  // an order of the moment. Set before the session's first step.
  void settle_with(std::function<Status()> settle);

  // HostEvents: queued
  void memory_changed(const api::MemoryChange& change) override;
  void frame() override;
  void sample(const api::DeviceCounters& counters) override;
  // HostEvents: answered, after the queue is applied
  void started(const api::DeviceCounters& counters) override;
  void observed_sample(const ObservedGauges& gauges) override;
  uint64_t queue_submitted() override;
  bool retired(uint64_t fence) const override;
  void wait_retired(uint64_t fence, uint64_t budget_ns) override;
  bool kick() override;
  std::string queue_state() const override;

 private:
  // api::Model (ForwardedModel): every step answered after the queue is applied. run_trace's view
  // stays valid until the next call, as the host's own: the trace's room is made once (RunTrace
  // reserves it), so events applied meanwhile only write past the view's end.
  friend class ForwardedModel<HostThread>;
  template <typename Call>
  auto forward(Call&& call) {
    return stepped(std::forward<Call>(call));
  }

  struct Frame {};
  struct Sample {
    api::DeviceCounters counters;
  };
  using Event = std::variant<api::MemoryChange, Frame, Sample>;

  template <class Alternative>
  void push(const Alternative& event);  // written into its slot as it is, no Event made first
  uint64_t backlog() const;
  // With mutex_ held: every queued event applied to the host, in order.
  void apply_queued() const;
  // The host with the queue applied, held for the caller's one call.
  template <typename Call>
  auto answered(Call&& call) const;
  // The same for a model step: settle_ first.
  template <typename Call>
  std::invoke_result_t<Call, ModelHost&> stepped(Call&& call);
  void run();

  std::unique_ptr<ModelHost> host_;
  std::function<Status()> settle_;
  std::vector<Event> ring_;
  // The producer's and the appliers' positions on lines of their own: a push reads no line the
  // host thread writes, but once a ring's length (when the ring looks full).
  alignas(64) std::atomic<uint64_t> tail_{0};          // the next slot the producer writes
  uint64_t head_seen_ = 0;                             // head_ as the producer last read it: never ahead of it
  alignas(64) mutable std::atomic<uint64_t> head_{0};  // the next slot to apply (moved under mutex_)
  alignas(64) mutable std::mutex mutex_;               // whoever holds it may apply events and use host_
  std::atomic<uint32_t> wake_{0};                      // bumped to wake the host thread
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

template <typename Call>
auto HostThread::answered(Call&& call) const {
  std::lock_guard lock(mutex_);
  apply_queued();
  return call(*host_);
}

template <typename Call>
std::invoke_result_t<Call, ModelHost&> HostThread::stepped(Call&& call) {
  if (settle_)
    if (Status settled = settle_(); !settled) return std::unexpected(settled.error());
  return answered(std::forward<Call>(call));
}

}  // namespace tidemark::host
