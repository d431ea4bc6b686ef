#include "wire/fake_backend.h"

#include <fmt/format.h>

namespace tidemark::wire {

namespace {

std::string hex_prefix(std::span<const uint8_t> data) {
  std::string out;
  for (size_t i = 0; i < std::min<size_t>(data.size(), 4); ++i) out += fmt::format("{:02x}", data[i]);
  return out;
}

}  // namespace

Status FakeBackend::called(std::string what) {
  log_.calls.push_back(std::move(what));
  auto failure = log_.fail_call.find(log_.calls.size());
  if (failure != log_.fail_call.end()) return std::unexpected(failure->second);
  return {};
}

Result<backend::BufferId> FakeBackend::create_buffer() {
  uint32_t id = next_id_++;
  if (auto ok = called(fmt::format("create_buffer() -> {}", id)); !ok) return std::unexpected(ok.error());
  return id;
}
Status FakeBackend::buffer_data(backend::BufferId buffer, std::span<const uint8_t> data) {
  return called(fmt::format("buffer_data({}, {} bytes: {})", buffer, data.size(), hex_prefix(data)));
}
Status FakeBackend::buffer_sub_data(backend::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) {
  return called(fmt::format("buffer_sub_data({}, +{}, {} bytes: {})", buffer, offset, data.size(), hex_prefix(data)));
}
Status FakeBackend::draw(const backend::DrawCall& call) {
  return called(fmt::format("draw(uniform {}, vertices {}, rect {},{} {},{})", call.uniform, call.vertices,
                            call.rect.x0, call.rect.y0, call.rect.x1, call.rect.y1));
}
Result<backend::FenceId> FakeBackend::fence_sync() {
  uint32_t id = next_id_++;
  if (auto ok = called(fmt::format("fence_sync() -> {}", id)); !ok) return std::unexpected(ok.error());
  return id;
}
Result<WaitStatus> FakeBackend::client_wait(backend::FenceId fence, bool flush, uint64_t timeout_ns) {
  if (auto ok = called(fmt::format("client_wait({}, flush={}, {} ns)", fence, flush, timeout_ns)); !ok)
    return std::unexpected(ok.error());
  return timeout_ns == 0 ? WaitStatus::TimeoutExpired : WaitStatus::ConditionSatisfied;
}
Status FakeBackend::flush() { return called("flush()"); }
Status FakeBackend::finish() { return called("finish()"); }
Status FakeBackend::present() { return called("present()"); }
Result<Image> FakeBackend::read_pixels() {
  if (auto ok = called("read_pixels()"); !ok) return std::unexpected(ok.error());
  Image image = make_image(log_.config.width, log_.config.height, {0, 0, 0, 255});
  // One marked pixel, if the Hello's target has it (a fuzzed 1x1 target wrote past the end).
  if (image.width > 1 && image.height > 2) image.set(1, 2, {10, 20, 30, 40});
  return image;
}
Result<Gauges> FakeBackend::gauges() {
  if (auto ok = called("gauges()"); !ok) return std::unexpected(ok.error());
  Gauges gauges;
  gauges.wbufs = next_id_ - 1;
  gauges.wdefmb = log_.config.knobs.wire_deferred_mb;
  gauges.submits = static_cast<int64_t>(log_.calls.size());
  return gauges;
}
Result<std::vector<std::string>> FakeBackend::validation_messages() {
  if (auto ok = called("validation_messages()"); !ok) return std::unexpected(ok.error());
  return std::vector<std::string>{"first message", std::string(5000, 'x')};
}

Status FakeBackend::kernel_event(const kernel::GpuMemTotalEvent& event) {
  return called("kernel_event(" + kernel::to_text(event) + ")");
}
Status FakeBackend::kernel_allocate(uint32_t gpu, uint32_t pid, kernel::MemoryType type, uint64_t id, uint64_t size) {
  return called(fmt::format("kernel_allocate(gpu {}, pid {}, {}, id {}, {} bytes)", gpu, pid, kernel::to_string(type), id,
                            size));
}
Status FakeBackend::kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) {
  return called(fmt::format("kernel_free(gpu {}, pid {}, id {})", gpu, pid, id));
}
Result<KernelGauges> FakeBackend::kernel_gauges() {
  if (auto ok = called("kernel_gauges()"); !ok) return std::unexpected(ok.error());
  KernelGauges gauges;
  gauges.kpid = log_.config.kernel_pid;
  gauges.kevents = static_cast<int64_t>(log_.calls.size());
  return gauges;
}

Status FakeBackend::kernel_attach(const kernel::AttachScript& script) {
  return called(fmt::format("kernel_attach(failures {}, stop {})", script.failures, script.stop_requested));
}
Status FakeBackend::kernel_walk(const std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>>& updates) {
  std::string text;
  for (const auto& [at, event] : updates) text += fmt::format(" at {}: {};", at, kernel::to_text(event));
  return called("kernel_walk(" + text + ")");
}
Result<std::string> FakeBackend::kernel_dump() {
  if (auto ok = called("kernel_dump()"); !ok) return std::unexpected(ok.error());
  return std::string("GPU memory total usage map is empty\n");
}
Result<std::optional<std::string>> FakeBackend::kernel_node(uint32_t pid, kernel::MemoryType type) {
  if (auto ok = called(fmt::format("kernel_node({}, {})", pid, kernel::to_string(type))); !ok)
    return std::unexpected(ok.error());
  if (pid == 0) return std::optional<std::string>();
  return std::optional<std::string>("4096,64");
}

Status FakeBackend::kernel_op(const kernel::KernelOp& op) {
  auto name = std::visit([](const auto& operation) { return to_string(MessageOf<std::decay_t<decltype(operation)>>::kOpcode); },
                         op);
  if (auto ok = called(fmt::format("kernel_op({})", name)); !ok) return ok;
  driver_.apply(op);
  return {};
}
Result<kernel::KernelReport> FakeBackend::kernel_report() {
  if (auto ok = called("kernel_report()"); !ok) return std::unexpected(ok.error());
  return driver_.report();
}

Result<std::string> FakeBackend::run_trace() {
  if (auto ok = called("run_trace()"); !ok) return std::unexpected(ok.error());
  return std::string("\x0a\x02\x40\x07", 4);  // one packet: timestamp 7
}

ServerOptions fake_backend_options(FakeBackendLog& log) {
  ServerOptions options;
  options.make_backend = [&log](const backend::Config& config) -> Result<std::unique_ptr<backend::Backend>> {
    log.config = config;
    log.created = true;
    return std::unique_ptr<backend::Backend>(std::make_unique<FakeBackend>(log));
  };
  return options;
}

}  // namespace tidemark::wire
