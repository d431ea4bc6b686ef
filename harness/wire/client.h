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
#include "wire/replies.h"

#include "calls/wire_client.h"  // ClientCalls: the stubs, generated from api/calls.yaml

namespace tidemark::wire {

// The client API (both halves) over a channel, its stubs generated (ClientCalls). Calls without
// a value are pipelined: they return at once and a failure comes back with a later reply, naming
// how many calls ago it happened; the model's calls share the pipe with the device's, in order.
class WireClient final : public ClientCalls<WireClient> {
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

  // The frame fault injection was asked to kill the server before, if it never came.
  std::optional<uint32_t> kill_still_due() const {
    if (kill_server_at_frame_ == 0) return std::nullopt;
    return kill_server_at_frame_;
  }

  Status drain() override {
    if (pending_.empty()) return {};
    return discard(call(Sync{}, false));
  }

  std::string driver() const override { return driver_; }  // as the server's welcome named it

 private:
  friend class ClientCalls<WireClient>;

  // An operation (kernel or trace) as the pipelined message that carries it.
  template <class Operations>
  Status post_operation(const Operations& op) {
    return std::visit(
        [&](const auto& operation) -> Status {
          return post(MessageOf<std::decay_t<decltype(operation)>>{{.op = operation}});
        },
        op);
  }

  // A reply's bytes are a view into its frame: copied out while the frame lives, and given as
  // a view of the copy, valid until the next call.
  std::string_view kept(Bytes bytes) {
    trace_.assign(bytes.begin(), bytes.end());
    return std::string_view(trace_);
  }

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
