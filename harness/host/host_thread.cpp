#include "host/host_thread.h"

namespace tidemark::host {

HostThread::HostThread(std::unique_ptr<ModelHost> host) : host_(std::move(host)), ring_(kCapacity) {
  thread_ = std::thread([this] { run(); });
}

HostThread::~HostThread() {
  stopping_.store(true);
  wake_.fetch_add(1);
  wake_.notify_one();
  thread_.join();
  std::lock_guard lock(mutex_);
  apply_queued();
}

uint64_t HostThread::backlog() const {
  return tail_.load(std::memory_order_relaxed) - head_.load(std::memory_order_acquire);
}

// One producer: the device's thread, or the layer beneath it on that same thread (a driver's
// own threads are off in every run Tidemark makes). Events are written into their slot and
// published by the tail; the host thread is woken only when a batch waits and it sleeps.
template <class Alternative>
void HostThread::push(const Alternative& event) {
  const uint64_t tail = tail_.load(std::memory_order_relaxed);
  if (tail - head_seen_ == kCapacity) {
    head_seen_ = head_.load(std::memory_order_acquire);
    if (tail - head_seen_ == kCapacity) {
      std::lock_guard lock(mutex_);  // full: the producer applies the queue itself
      apply_queued();
      head_seen_ = tail;
    }
  }
  ring_[tail % kCapacity] = event;
  tail_.store(tail + 1, std::memory_order_release);
  // Only every kWakeAt-th push looks for a sleeping host thread (a fence each push cost more
  // than the queue saved). Pairs with the fence in run(): either the host thread sees this
  // tail before it sleeps, or this thread sees it sleeping and wakes it. The host sleeps only
  // with fewer than kWakeAt waiting, so it is woken before 2 * kWakeAt wait.
  if ((tail + 1) % kWakeAt != 0) return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (sleeping_.exchange(false)) {
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_one();
  }
}

void HostThread::apply_queued() const {
  uint64_t head = head_.load(std::memory_order_relaxed);
  const uint64_t tail = tail_.load(std::memory_order_acquire);
  struct Apply {
    ModelHost& host;
    void operator()(const api::MemoryChange& change) const { host.memory_changed(change); }
    void operator()(const Frame&) const { host.frame(); }
    void operator()(const Sample& sample) const { host.sample(sample.counters); }
  };
  for (; head != tail; ++head) {
    std::visit(Apply{*host_}, ring_[head % kCapacity]);
    if (head % 256 == 255) head_.store(head + 1, std::memory_order_release);  // room for the producer
  }
  head_.store(head, std::memory_order_release);
}

void HostThread::run() {
  for (;;) {
    const uint32_t seen = wake_.load(std::memory_order_acquire);
    sleeping_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (!stopping_.load() && backlog() < kWakeAt) wake_.wait(seen, std::memory_order_acquire);
    sleeping_.store(false, std::memory_order_relaxed);
    if (stopping_.load()) return;
    std::lock_guard lock(mutex_);
    apply_queued();
  }
}

void HostThread::settle_with(std::function<Status()> settle) { settle_ = std::move(settle); }

void HostThread::wire_from(std::function<NamedGauges()> wire) {
  answered([&](ModelHost& host) { host.wire_from(std::move(wire)); });
}
void HostThread::read_back_from(std::function<Status(ModelHost&)> feed) {
  answered([&](ModelHost& host) { host.read_back_from(std::move(feed)); });
}
void HostThread::observe_from(std::function<ObservedGauges()> layer) {
  answered([&](ModelHost& host) { host.observe_from(std::move(layer)); });
}

void HostThread::memory_changed(const api::MemoryChange& change) { push(change); }
// A frame counts toward the kernel driver's recycling, so it too waits for a renderer server to
// settle (settle_with); one that does not settle is named by the next model step.
void HostThread::frame() {
  if (settle_) static_cast<void>(settle_());
  push(Frame{});
}
void HostThread::sample(const api::DeviceCounters& counters) { push(Sample{counters}); }

void HostThread::started(const api::DeviceCounters& counters) {
  answered([&](ModelHost& host) { host.started(counters); });
}
void HostThread::observed_sample(const ObservedGauges& gauges) {
  answered([&](ModelHost& host) { host.observed_sample(gauges); });
}
uint64_t HostThread::queue_submitted() {
  return answered([](ModelHost& host) { return host.queue_submitted(); });
}
bool HostThread::retired(uint64_t fence) const {
  return answered([&](ModelHost& host) { return host.retired(fence); });
}
void HostThread::wait_retired(uint64_t fence, uint64_t budget_ns) {
  answered([&](ModelHost& host) { host.wait_retired(fence, budget_ns); });
}
bool HostThread::kick() {
  return answered([](ModelHost& host) { return host.kick(); });
}
std::string HostThread::queue_state() const {
  return answered([](ModelHost& host) { return host.queue_state(); });
}

}  // namespace tidemark::host
