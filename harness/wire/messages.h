// The wire's messages, each declared once as a struct whose field list is its layout, with an
// opcode: the session's own below, the calls' generated from api/calls.yaml. wire/codec.h turns
// them into frames for the client, the server, recording and replay.
// Requests whose Reply is NoReply are pipelined: the server answers one only when it fails
// (Failure, naming its sequence), then skips every later request up to the next with a reply and
// answers that Skipped, so every earlier failure reaches the client before a reply.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/device.h"
#include "api/model.h"
#include "api/session_config.h"
#include "core/error.h"

#include "calls/wire_opcodes.h"  // TIDEMARK_WIRE_MESSAGES, generated from api/calls.yaml

namespace tidemark::wire {

enum class Opcode : uint16_t {
#define TIDEMARK_OPCODE(name, code, text) name = code,
  TIDEMARK_WIRE_MESSAGES(TIDEMARK_OPCODE)
#undef TIDEMARK_OPCODE
};
bool is_known(Opcode op);
const char* to_string(Opcode op);  // "unknown" for a value no message has
bool is_request(Opcode op);
bool has_reply(Opcode op);  // a request that is not pipelined

// Field types of the messages beside the integers, strings and the API's own structs.
using Bytes = std::span<const uint8_t>;  // decoded: a view into the frame's payload
using api::WalkUpdates;
using KnobMap = std::map<std::string, int64_t>;
using NamedValues = std::vector<std::pair<std::string, int64_t>>;

// Each message has kOpcode, fields(self) (its layout, in order) and, for a request, its Reply
// (NoReply: pipelined). check() adds what a layout cannot say.

struct NoReply {};

struct Ok {
  static constexpr Opcode kOpcode = Opcode::Ok;
  static auto fields(auto&) { return std::tie(); }
};
struct Welcome {
  static constexpr Opcode kOpcode = Opcode::Welcome;
  int64_t server_pid = 0;
  KnobMap knobs;  // the values the server applied
  std::vector<std::string> capabilities;
  std::string driver;  // the driver as the session's device named itself (api::Device::driver); empty: none
  static auto fields(auto& m) { return std::tie(m.server_pid, m.knobs, m.capabilities, m.driver); }
};
struct Failure {  // the request failed; the session goes on
  static constexpr Opcode kOpcode = Opcode::Failure;
  Error error;
  static auto fields(auto& m) { return std::tie(m.error); }
};
struct ProtocolError {  // the frame was bad; the server closes the session
  static constexpr Opcode kOpcode = Opcode::ProtocolError;
  std::string message;
  static auto fields(auto& m) { return std::tie(m.message); }
};
struct Skipped {  // not carried out: the pipelined request `failed_sequence` failed first
  static constexpr Opcode kOpcode = Opcode::Skipped;
  uint32_t failed_sequence = 0;
  static auto fields(auto& m) { return std::tie(m.failed_sequence); }
};

template <Opcode op, class ReplyMessage>
struct FieldlessRequest {
  static constexpr Opcode kOpcode = op;
  using Reply = ReplyMessage;
  static auto fields(auto&) { return std::tie(); }
};

struct Hello {
  static constexpr Opcode kOpcode = Opcode::Hello;
  using Reply = Welcome;
  std::string token;
  api::SessionConfig config;
  static auto fields(auto& m) { return std::tie(m.token, m.config); }
  Status check() const;
};
// The kernel driver's scripted operations: one pipelined message each, laid out as the
// operation's own fields.
template <Opcode code, class Operation>
struct OperationMessage {
  static constexpr Opcode kOpcode = code;
  using Reply = NoReply;
  Operation op;
  static auto fields(auto& m) { return Operation::fields(m.op); }
};
// the server ends the session after its Ok
struct Goodbye : FieldlessRequest<Opcode::Goodbye, Ok> {};
// drains the pipe: its Ok (or Skipped) follows every earlier failure
struct Sync : FieldlessRequest<Opcode::Sync, Ok> {};

template <class M>
concept RequestMessage = requires { typename M::Reply; };

template <RequestMessage M>
inline constexpr bool kPipelined = std::is_same_v<typename M::Reply, NoReply>;

template <class M>
constexpr bool expects_reply() {
  if constexpr (RequestMessage<M>) return !kPipelined<M>;
  return false;
}

}  // namespace tidemark::wire

// The calls' requests and replies, generated from api/calls.yaml.
#include "calls/wire_messages.h"
