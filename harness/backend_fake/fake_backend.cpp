#include "backend_fake/fake_backend.h"

#include <fmt/format.h>

#include <algorithm>

namespace tidemark::fake {

namespace {

std::string hex_prefix(std::span<const uint8_t> data) {
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(data.size(), 4); ++i) out += fmt::format("{:02x}", data[i]);
  return out;
}

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
    TIDEMARK_CHECK(called(fmt::format("create_buffer() -> {}", id)));
    stores_[id] = 0;
    return id;
  }
  // A store of the data's size: the old one freed, the new one allocated, as a device reports them.
  Status buffer_data(api::BufferId buffer, std::span<const uint8_t> data) override {
    TIDEMARK_CHECK(called(fmt::format("buffer_data({}, {} bytes: {})", buffer, data.size(), hex_prefix(data))));
    uint64_t& store = stores_[buffer];
    if (store != 0) report(false, buffer, store);
    store = data.size();
    if (store != 0) report(true, buffer, store);
    return {};
  }
  Status buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override {
    return called(fmt::format("buffer_sub_data({}, +{}, {} bytes: {})", buffer, offset, data.size(), hex_prefix(data)));
  }
  Status draw(const api::DrawCall& call) override {
    return called(fmt::format("draw(uniform {}, vertices {}, rect {},{} {},{})", call.uniform, call.vertices,
                              call.rect.x0, call.rect.y0, call.rect.x1, call.rect.y1));
  }
  Result<api::FenceId> fence_sync() override {
    uint32_t id = next_id_++;
    TIDEMARK_CHECK(called(fmt::format("fence_sync() -> {}", id)));
    return id;
  }
  Result<WaitStatus> client_wait(api::FenceId fence, bool flush, uint64_t timeout_ns) override {
    TIDEMARK_CHECK(called(fmt::format("client_wait({}, flush={}, {} ns)", fence, flush, timeout_ns)));
    return timeout_ns == 0 ? WaitStatus::TimeoutExpired : WaitStatus::ConditionSatisfied;
  }
  Status flush() override { return called("flush()"); }
  Status finish() override { return called("finish()"); }
  // One queue submit per frame, retired at once, then the frame and a trace sample.
  Status present() override {
    TIDEMARK_CHECK(called("present()"));
    uint64_t fence = events_.queue_submitted();
    if (fence != 0) events_.wait_retired(fence, 1'000'000'000);
    events_.frame();
    events_.sample(counters());
    return {};
  }
  Result<Image> read_pixels() override {
    TIDEMARK_CHECK(called("read_pixels()"));
    Image image = make_image(log_.config.width, log_.config.height, {0, 0, 0, 255});
    // One marked pixel, if the Hello's target has it (a fuzzed 1x1 target wrote past the end).
    if (image.width > 1 && image.height > 2) image.set(1, 2, {10, 20, 30, 40});
    return image;
  }
  Result<Gauges> gauges() override {
    TIDEMARK_CHECK(called("gauges()"));
    Gauges gauges;
    gauges.wbufs = static_cast<int64_t>(stores_.size());
    gauges.wdefmb = log_.knobs.count("wire_deferred_mb") ? log_.knobs.at("wire_deferred_mb") : 0;
    gauges.submits = static_cast<int64_t>(log_.calls.size());
    gauges.devbytes = bytes_;
    return gauges;
  }
  Result<std::vector<std::string>> validation_messages() override {
    TIDEMARK_CHECK(called("validation_messages()"));
    return std::vector<std::string>{"first message", std::string(5000, 'x')};
  }

 private:
  // Logs the call; its error if the test asked this call to fail.
  Status called(std::string what) {
    log_.calls.push_back(std::move(what));
    auto failure = log_.fail_call.find(log_.calls.size());
    if (failure != log_.fail_call.end()) return std::unexpected(failure->second);
    return {};
  }
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
