// A backend that logs every call it receives and runs no GPU: the server's side of the wire
// tests and of the session fuzz target. The kernel driver model is pure logic, so it runs the
// real one. Test support only: never linked into tidemark or tidemark-server.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "wire/server.h"

namespace tidemark::wire {

// What the fake backend saw and what it is told to do.
struct FakeBackendLog {
  std::vector<std::string> calls;          // "buffer_data(1, 4 bytes: 01020304)", in order
  std::map<size_t, Error> fail_call;       // 1-based call number -> the error it returns
  backend::Config config;                  // what the handshake configured
  bool created = false;
};

class FakeBackend final : public backend::Backend {
 public:
  explicit FakeBackend(FakeBackendLog& log)
      : log_(log), driver_(log.config.kmd, log.config.kgsl, log.config.mutant) {}
  Result<backend::BufferId> create_buffer() override;
  Status buffer_data(backend::BufferId buffer, std::span<const uint8_t> data) override;
  Status buffer_sub_data(backend::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override;
  Status draw(const backend::DrawCall& call) override;
  Result<backend::FenceId> fence_sync() override;
  Result<WaitStatus> client_wait(backend::FenceId fence, bool flush, uint64_t timeout_ns) override;
  Status flush() override;
  Status finish() override;
  Status present() override;
  Result<Image> read_pixels() override;
  Result<Gauges> gauges() override;
  Result<std::vector<std::string>> validation_messages() override;
  Status kernel_event(const kernel::GpuMemTotalEvent& event) override;
  Status kernel_allocate(uint32_t gpu, uint32_t pid, kernel::MemoryType type, uint64_t id, uint64_t size) override;
  Status kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) override;
  Result<KernelGauges> kernel_gauges() override;
  Status kernel_attach(const kernel::AttachScript& script) override;
  Result<std::string> kernel_dump() override;
  Status kernel_walk(const std::vector<std::pair<uint32_t, kernel::GpuMemTotalEvent>>& updates) override;
  Status kernel_sample() override { return called("kernel_sample()"); }
  Result<std::optional<std::string>> kernel_node(uint32_t pid, kernel::MemoryType type) override;
  // The kernel driver model is pure logic: the fake runs the real one and logs the operation.
  Status kernel_op(const kernel::KernelOp& op) override;
  Result<kernel::KernelReport> kernel_report() override;
  Result<std::string> run_trace() override;
  Status trace_op(const tracer::TraceOp& op) override {
    return called(std::holds_alternative<tracer::CounterStreamOp>(op) ? "trace_counters()" : "trace_sample()");
  }

 private:
  // Logs the call; its error if the test asked this call to fail.
  Status called(std::string what);
  FakeBackendLog& log_;
  kernel::KernelDriver driver_;
  uint32_t next_id_ = 1;
};

// Server options whose Hello creates a FakeBackend logging into `log`.
ServerOptions fake_backend_options(FakeBackendLog& log);

}  // namespace tidemark::wire
