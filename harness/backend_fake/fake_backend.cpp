#include "backend_fake/fake_backend.h"

#include <map>

namespace tidemark::fake {

namespace {

class FakeBackend final : public api::Device {
 public:
  // Its target is its start-up memory, outside the device gauges, as the Vulkan backend's is.
  FakeBackend(FakeBackendLog& log, api::DeviceEvents& events) : log_(log), events_(events) {
    uint64_t target = uint64_t(log.config.width) * uint64_t(log.config.height) * 4;
    events_.memory_changed({.allocated = true,
                            .type = MemoryType::GlTexture,
                            .id = kTargetId,
                            .size = target,
                            .claimed_bytes = static_cast<int64_t>(target),
                            .counted = false});
    target_bytes_ = static_cast<int64_t>(target);
    events_.started(counters());
  }

  Result<api::BufferId> create_buffer() override {
    uint32_t id = next_id_++;
    stores_[id] = 0;
    return id;
  }
  // A store of the data's size: the old one freed, the new one allocated, as a device reports them.
  Status buffer_data(api::BufferId buffer, std::span<const uint8_t> data) override {
    uint64_t& store = stores_[buffer];
    if (store != 0) report(false, buffer, store);
    store = data.size();
    if (store != 0) report(true, buffer, store);
    return {};
  }
  Status buffer_sub_data(api::BufferId, uint64_t, std::span<const uint8_t>) override { return {}; }
  Status draw(const api::DrawCall&) override { return {}; }
  Result<api::FenceId> fence_sync() override { return next_id_++; }
  Result<WaitStatus> client_wait(api::FenceId, bool, uint64_t timeout_ns) override {
    return timeout_ns == 0 ? WaitStatus::TimeoutExpired : WaitStatus::ConditionSatisfied;
  }
  Status flush() override { return {}; }
  Status finish() override { return {}; }
  // One queue submit per frame, retired at once, then the frame and a trace sample.
  Status present() override {
    ++presents_;
    uint64_t fence = events_.queue_submitted();
    if (fence != 0) events_.wait_retired(fence, 1'000'000'000);
    events_.frame();
    events_.sample(counters());
    return {};
  }
  Result<Image> read_pixels() override {
    Image image = make_image(log_.config.width, log_.config.height, {0, 0, 0, 255});
    // One marked pixel, if the Hello's target has it (a fuzzed 1x1 target wrote past the end).
    if (image.width > 1 && image.height > 2) image.set(1, 2, {10, 20, 30, 40});
    return image;
  }
  Result<Gauges> gauges() override {
    Gauges gauges;
    gauges.wbufs = static_cast<int64_t>(stores_.size());
    gauges.wdefmb = log_.knobs.count("wire_deferred_mb") ? log_.knobs.at("wire_deferred_mb") : 0;
    gauges.submits = presents_;
    gauges.devbytes = bytes_;
    return gauges;
  }
  Result<std::vector<std::string>> validation_messages() override {
    return std::vector<std::string>{"first message", std::string(5000, 'x')};
  }

 private:
  void report(bool allocated, api::BufferId buffer, uint64_t size) {
    bytes_ += allocated ? static_cast<int64_t>(size) : -static_cast<int64_t>(size);
    events_.memory_changed({.allocated = allocated,
                            .type = MemoryType::GlBuffer,
                            .id = buffer,
                            .size = size,
                            .claimed_bytes = bytes_ + target_bytes_});
  }
  api::DeviceCounters counters() const { return {.device_bytes = bytes_}; }

  FakeBackendLog& log_;
  api::DeviceEvents& events_;
  std::map<api::BufferId, uint64_t> stores_;  // each record's store size (0: none)
  static constexpr uint64_t kTargetId = uint64_t{1} << 62;
  int64_t bytes_ = 0;         // the stores' bytes: the device-bytes gauge
  int64_t target_bytes_ = 0;  // reported beside them
  uint32_t next_id_ = 1;
  int64_t presents_ = 0;  // one queue submit each
};

}  // namespace

api::BackendEntry fake_backend(FakeBackendLog& log) {
  return {"fake",
          "logs every call, no GPU (wire tests)",
          {GaugeKind::Device},
          [&log](const api::SessionConfig& config,
                 const api::DeviceContext& context) -> Result<std::unique_ptr<api::Device>> {
            log.config = config;
            log.knobs = context.knobs;
            log.mutant = context.mutant;
            log.created = true;
            return std::unique_ptr<api::Device>(std::make_unique<FakeBackend>(log, *context.events));
          }};
}

api::BackendRegistry fake_backends(FakeBackendLog& log) { return api::BackendRegistry().add(fake_backend(log)); }

}  // namespace tidemark::fake
