// Private to the wire (and its tests): the client API encoded into frames over a channel.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <type_traits>

#include "api/device.h"
#include "api/model.h"
#include "wire/channel.h"
#include "wire/codec.h"
#include "wire/messages.h"

namespace tidemark::wire {

// The client API (both halves) over a channel. Calls without a value are pipelined: they
// return at once and a failure comes back with a later reply, naming how many calls ago it
// happened; the model's calls share the pipe with the device's, in order.
class WireClient final : public api::Device, public api::Model {
 public:
  // kill_server_at_frame: fault injection, see LaneOptions; 0: none.
  explicit WireClient(Channel& channel, uint32_t kill_server_at_frame = 0)
      : channel_(channel), kill_server_at_frame_(kill_server_at_frame) {}

  Result<Welcome> hello(const Hello& hello) {
    auto welcome = call(hello, false);
    if (welcome) driver_ = welcome->driver;
    return welcome;
  }
  Status goodbye() { return discard(call(Goodbye{}, false)); }

  Result<api::BufferId> create_buffer() override {
    TIDEMARK_TRY(reply, call(CreateBuffer{}));
    return reply.buffer;
  }
  Status buffer_data(api::BufferId buffer, std::span<const uint8_t> data) override {
    return post(BufferData{.buffer = buffer, .data = data});
  }
  Status buffer_sub_data(api::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override {
    return post(BufferSubData{.buffer = buffer, .offset = offset, .data = data});
  }
  Status draw(const api::DrawCall& call) override { return post(Draw{.call = call}); }
  Result<api::FenceId> fence_sync() override {
    TIDEMARK_TRY(reply, call(FenceSync{}));
    return reply.fence;
  }
  Result<WaitStatus> client_wait(api::FenceId fence, bool flush, uint64_t timeout_ns) override {
    TIDEMARK_TRY(reply, call(ClientWait{.fence = fence, .flush = flush, .timeout_ns = timeout_ns}));
    return reply.status;
  }
  Status flush() override { return post(Flush{}); }
  Status finish() override { return post(Finish{}); }
  Status present() override { return post(Present{}); }
  Result<Image> read_pixels() override {
    TIDEMARK_TRY(reply, call(ReadPixels{}));
    return Image{reply.width, reply.height, std::move(reply.bytes)};
  }
  Result<Gauges> gauges() override {
    TIDEMARK_TRY(reply, call(ReadGauges{}));
    return from_named({reply.values.begin(), reply.values.end()});
  }
  Result<std::vector<std::string>> validation_messages() override {
    TIDEMARK_TRY(reply, call(ReadValidation{}));
    return std::move(reply.messages);
  }
  // The frame fault injection was asked to kill the server before, if it never came.
  std::optional<uint32_t> kill_still_due() const {
    if (kill_server_at_frame_ == 0) return std::nullopt;
    return kill_server_at_frame_;
  }
  Status kernel_event(const kernel::GpuMemTotalEvent& event) override {
    return post(KernelEvent{.gpu = event.gpu_id, .pid = event.pid, .size = event.size});
  }
  Status kernel_allocate(uint32_t gpu, uint32_t pid, MemoryType type, uint64_t id, uint64_t size) override {
    return post(KernelAllocate{.gpu = gpu, .pid = pid, .type = static_cast<uint32_t>(type), .id = id, .size = size});
  }
  Status kernel_free(uint32_t gpu, uint32_t pid, uint64_t id) override {
    return post(KernelFree{.gpu = gpu, .pid = pid, .id = id});
  }
  Result<KernelGauges> kernel_gauges() override {
    TIDEMARK_TRY(reply, call(ReadKernelGauges{}));
    return kernel_from_named({reply.values.begin(), reply.values.end()});
  }

  Result<ObservedGauges> observed_gauges() override {
    TIDEMARK_TRY(reply, call(ReadObservedGauges{}));
    return observed_from_named({reply.values.begin(), reply.values.end()});
  }
  Result<NamedGauges> wire_gauges() override {
    TIDEMARK_TRY(reply, call(ReadWireGauges{}));
    return std::move(reply.values);
  }

  Status kernel_attach(const kernel::AttachScript& script) override {
    return post(KernelAttach{.failures = script.failures, .stop_requested = script.stop_requested});
  }
  Status kernel_walk(const WalkUpdates& updates) override { return post(KernelWalk{.updates = updates}); }
  Status kernel_sample() override { return post(KernelSample{}); }
  Result<std::string> kernel_dump() override {
    TIDEMARK_TRY(reply, call(KernelDump{}));
    return std::string(reply.text.begin(), reply.text.end());
  }
  Result<std::optional<std::string>> kernel_node(uint32_t pid, MemoryType type) override {
    TIDEMARK_TRY(reply, call(KernelNode{.pid = pid, .type = static_cast<uint32_t>(type)}));
    if (!reply.present) return std::optional<std::string>();
    return std::optional<std::string>(std::string(reply.text.begin(), reply.text.end()));
  }

  Status kernel_op(const kernel::KernelOp& op) override { return post_operation(op); }
  Status trace_op(const tracer::TraceOp& op) override { return post_operation(op); }
  // The reply's bytes are a view into its frame: copied out while the frame lives.
  Result<std::string_view> run_trace() override {
    TIDEMARK_TRY(frame, call_frame(ReadTrace{}));
    TIDEMARK_TRY(reply, decode<TraceBytes>(frame));
    trace_.assign(reply.bytes.begin(), reply.bytes.end());
    return std::string_view(trace_);
  }
  Result<std::string> run_trace_hash() override {
    TIDEMARK_TRY(reply, call(ReadTraceHash{}));
    return std::move(reply.hash);
  }
  Result<kernel::KernelReport> kernel_report() override {
    TIDEMARK_TRY(reply, call(ReadKernelReport{}));
    return std::move(reply.report);
  }

  // An operation (kernel or trace) as the pipelined message that carries it.
  template <class Operations>
  Status post_operation(const Operations& op) {
    return std::visit(
        [&](const auto& operation) -> Status {
          return post(MessageOf<std::decay_t<decltype(operation)>>{{.op = operation}});
        },
        op);
  }

  Status drain() override {
    if (pending_.empty()) return {};
    return discard(call(Sync{}, false));
  }

  std::string driver() const override { return driver_; }  // as the server's welcome named it

 private:
  std::string driver_;
  // A pipelined request the server has not yet shown to have succeeded.
  struct Pending {
    uint32_t sequence;
    Opcode op;
    uint64_t call;  // its ordinal among the API calls
  };

  template <class T>
  static Status discard(const Result<T>& result) {
    if (!result) return std::unexpected(result.error());
    return {};
  }

  template <class M>
  Status post(const M& message) {
    static_assert(kPipelined<M>);
    ++calls_;
    if (pending_.size() >= kMaxPipelinedCalls) {
      if (auto drained = drain(); !drained) return drained;
    }
    TIDEMARK_TRY(sequence, send(message));
    pending_.push_back({sequence, M::kOpcode, calls_});
    return {};
  }

  // Sends a reply-bearing request and reads replies up to its own frame. `api_call`: counted
  // as a call of the client API (the handshake, goodbye and drains are not).
  template <class M>
  Result<Frame> call_frame(const M& message, bool api_call = true) {
    if (api_call) ++calls_;
    TIDEMARK_TRY(sequence, send(message));
    return await(sequence, M::kOpcode);
  }
  // The same, decoded. The reply outlives its frame, so a reply whose fields are views into
  // it is read through call_frame() by its own caller.
  template <class M>
  Result<typename M::Reply> call(const M& message, bool api_call = true) {
    static_assert(!std::is_same_v<typename M::Reply, TraceBytes>, "TraceBytes is a view into its frame: call_frame()");
    TIDEMARK_TRY(reply, call_frame(message, api_call));
    return decode<typename M::Reply>(reply);
  }

  template <class M>
  Result<uint32_t> send(const M& message) {
    if (kill_server_at_frame_ != 0 && channel_.sent + 1 == kill_server_at_frame_) {
      // The fault lands on a drained pipe, so the failure names this call's step.
      kill_server_at_frame_ = 0;
      if (auto drained = drain(); !drained) return std::unexpected(drained.error());
      channel_.kill_server();
    }
    uint32_t sequence = ++sequence_;
    if (auto sent = channel_.send(make_frame(sequence, message)); !sent)
      return std::unexpected(blame_first_pending(sent.error()));
    return sequence;
  }

  // Reads replies until the one to `sequence`. A pipelined failure on the way is kept and
  // returned in place of that reply, which the server then sends as Skipped.
  Result<Frame> await(uint32_t sequence, Opcode op) {
    std::optional<Error> pipelined_failure;
    for (;;) {
      auto reply = channel_.receive();
      if (!reply) return std::unexpected(blame_first_pending(reply.error()));
      if (reply->sequence == sequence) {
        pending_.clear();  // the server answers in order: everything before has been carried out
        if (reply->op == Opcode::ProtocolError) return refused(*reply, op, 0);
        if (reply->op == Opcode::Skipped && pipelined_failure) return std::unexpected(*pipelined_failure);
        if (reply->op == Opcode::Failure) {
          TIDEMARK_TRY(failure, decode<Failure>(*reply));
          return std::unexpected(failure.error);
        }
        return std::move(*reply);
      }
      auto earlier = std::find_if(pending_.begin(), pending_.end(),
                                  [&](const Pending& p) { return p.sequence == reply->sequence; });
      if (earlier == pending_.end() || (reply->op != Opcode::Failure && reply->op != Opcode::ProtocolError))
        return fail(ErrorKind::Fatal, fmt::format("protocol: {} #{} answered by {} #{}", to_string(op), sequence,
                                                  to_string(reply->op), reply->sequence));
      auto calls_after = static_cast<uint32_t>(calls_ - earlier->call);
      if (reply->op == Opcode::ProtocolError) return refused(*reply, earlier->op, calls_after);
      TIDEMARK_TRY(failure, decode<Failure>(*reply));
      if (!pipelined_failure) {
        pipelined_failure = std::move(failure.error);
        pipelined_failure->calls_after = calls_after;
      }
    }
  }

  std::unexpected<Error> refused(const Frame& reply, Opcode op, uint32_t calls_after) {
    auto refusal = decode<ProtocolError>(reply);
    Error error{ErrorKind::Fatal,
                fmt::format("the server refused {}: {}", to_string(op), refusal ? refusal->message : "(unreadable)"),
                calls_after};
    return std::unexpected(std::move(error));
  }

  // The connection failed: the earliest call the server has not confirmed may not have run.
  Error blame_first_pending(Error error) const {
    if (!pending_.empty()) error.calls_after = static_cast<uint32_t>(calls_ - pending_.front().call);
    return error;
  }

  Channel& channel_;
  uint32_t kill_server_at_frame_;
  uint32_t sequence_ = 0;
  uint64_t calls_ = 0;
  std::deque<Pending> pending_;
  std::string trace_;  // the last trace read: run_trace() returns a view of it
};

}  // namespace tidemark::wire
