// The wire's messages, each declared once below as a struct whose field list is its layout, with
// an opcode; wire/codec.h turns them into frames for the client, the server, recording and replay.
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

namespace tidemark::wire {

// name, opcode, wire name. Requests are below 100, replies from 100.
#define TIDEMARK_WIRE_MESSAGES(X)                   \
  X(Hello, 1, "hello")                              \
  X(CreateBuffer, 2, "create_buffer")               \
  X(BufferData, 3, "buffer_data")                   \
  X(BufferSubData, 4, "buffer_sub_data")            \
  X(Draw, 5, "draw")                                \
  X(FenceSync, 6, "fence")                          \
  X(ClientWait, 7, "client_wait")                   \
  X(Flush, 8, "flush")                              \
  X(Finish, 9, "finish")                            \
  X(Present, 10, "present")                         \
  X(ReadPixels, 11, "read_pixels")                  \
  X(ReadGauges, 12, "read_gauges")                  \
  X(ReadValidation, 13, "read_validation")          \
  X(Goodbye, 14, "goodbye")                         \
  X(Sync, 15, "sync")                               \
  X(KernelEvent, 16, "gpu_mem_total")               \
  X(KernelAllocate, 17, "gpu_alloc")                \
  X(KernelFree, 18, "gpu_free")                     \
  X(ReadKernelGauges, 19, "read_kernel_gauges")     \
  X(KernelAttach, 20, "gpumem_attach")              \
  X(KernelDump, 21, "gpumem_dump")                  \
  X(KernelNode, 22, "gpumem_node")                  \
  X(KernelWalk, 23, "gpumem_walk")                  \
  X(KernelSample, 24, "gpumem_sample")              \
  X(KmdSubmit, 25, "kmd_submit")                    \
  X(KmdAdvance, 26, "kmd_advance")                  \
  X(KmdWait, 27, "kmd_wait")                        \
  X(KmdFrame, 28, "kmd_frame")                      \
  X(KmdSignal, 29, "kmd_signal")                    \
  X(KmdFault, 30, "kmd_fault")                      \
  X(KmdDiagnose, 31, "kmd_diagnose")                \
  X(KgslSample, 32, "kgsl_sample")                  \
  X(KgslPower, 33, "kgsl_power")                    \
  X(KgslRead, 34, "kgsl_read")                      \
  X(ReadKernelReport, 35, "read_kernel_report")     \
  X(ReadTrace, 36, "read_trace")                    \
  X(TraceCounters, 37, "trace_counters")            \
  X(TraceSample, 38, "trace_sample")                \
  X(ReadObservedGauges, 39, "read_observed_gauges") \
  X(ReadTraceHash, 40, "read_trace_hash")           \
  X(ReadWireGauges, 41, "read_wire_gauges")         \
  X(Welcome, 100, "welcome")                        \
  X(Ok, 101, "ok")                                  \
  X(BufferCreated, 102, "buffer_created")           \
  X(FenceCreated, 103, "fence_created")             \
  X(WaitResult, 104, "wait_result")                 \
  X(Pixels, 105, "pixels")                          \
  X(GaugeValues, 106, "gauge_values")               \
  X(ValidationMessages, 107, "validation_messages") \
  X(Failure, 108, "failure")                        \
  X(ProtocolError, 109, "protocol_error")           \
  X(Skipped, 110, "skipped")                        \
  X(Text, 111, "text")                              \
  X(KernelReportReply, 112, "kernel_report")        \
  X(TraceBytes, 113, "trace_bytes")                 \
  X(TraceHash, 114, "trace_hash")

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
struct BufferCreated {
  static constexpr Opcode kOpcode = Opcode::BufferCreated;
  api::BufferId buffer = 0;
  static auto fields(auto& m) { return std::tie(m.buffer); }
};
struct FenceCreated {
  static constexpr Opcode kOpcode = Opcode::FenceCreated;
  api::FenceId fence = 0;
  static auto fields(auto& m) { return std::tie(m.fence); }
};
struct WaitResult {
  static constexpr Opcode kOpcode = Opcode::WaitResult;
  WaitStatus status = WaitStatus::AlreadySignaled;
  static auto fields(auto& m) { return std::tie(m.status); }
};
struct Pixels {  // width * height * 4 RGBA8 bytes, top row first
  static constexpr Opcode kOpcode = Opcode::Pixels;
  int32_t width = 0;
  int32_t height = 0;
  std::vector<uint8_t> bytes;
  static auto fields(auto& m) { return std::tie(m.width, m.height, m.bytes); }
  Status check() const;
};
struct GaugeValues {  // the gauges in their fixed order
  static constexpr Opcode kOpcode = Opcode::GaugeValues;
  NamedValues values;
  static auto fields(auto& m) { return std::tie(m.values); }
};
struct ValidationMessages {
  static constexpr Opcode kOpcode = Opcode::ValidationMessages;
  std::vector<std::string> messages;
  static auto fields(auto& m) { return std::tie(m.messages); }
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
struct Text {  // a text the server read (a dump, a node); present = false: nothing there
  static constexpr Opcode kOpcode = Opcode::Text;
  bool present = true;
  std::vector<uint8_t> text;  // bytes, not a string field: a dump of 1024 entries is ~25 KiB
  static auto fields(auto& m) { return std::tie(m.present, m.text); }
};
struct KernelReportReply {
  static constexpr Opcode kOpcode = Opcode::KernelReportReply;
  kernel::KernelReport report;
  static auto fields(auto& m) { return std::tie(m.report); }
};
struct TraceBytes {  // a Perfetto trace
  static constexpr Opcode kOpcode = Opcode::TraceBytes;
  Bytes bytes;  // a view: into the host's trace when sent, into the frame when received
  static auto fields(auto& m) { return std::tie(m.bytes); }
};
struct TraceHash {  // trace_hash() of the trace TraceBytes would carry
  static constexpr Opcode kOpcode = Opcode::TraceHash;
  std::string hash;
  static auto fields(auto& m) { return std::tie(m.hash); }
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
struct CreateBuffer : FieldlessRequest<Opcode::CreateBuffer, BufferCreated> {};
struct BufferData {
  static constexpr Opcode kOpcode = Opcode::BufferData;
  using Reply = NoReply;
  api::BufferId buffer = 0;
  Bytes data;
  static auto fields(auto& m) { return std::tie(m.buffer, m.data); }
};
struct BufferSubData {
  static constexpr Opcode kOpcode = Opcode::BufferSubData;
  using Reply = NoReply;
  api::BufferId buffer = 0;
  uint64_t offset = 0;
  Bytes data;
  static auto fields(auto& m) { return std::tie(m.buffer, m.offset, m.data); }
};
struct Draw {
  static constexpr Opcode kOpcode = Opcode::Draw;
  using Reply = NoReply;
  api::DrawCall call;
  static auto fields(auto& m) { return std::tie(m.call); }
};
struct FenceSync : FieldlessRequest<Opcode::FenceSync, FenceCreated> {};
struct ClientWait {
  static constexpr Opcode kOpcode = Opcode::ClientWait;
  using Reply = WaitResult;
  api::FenceId fence = 0;
  bool flush = false;
  uint64_t timeout_ns = 0;
  static auto fields(auto& m) { return std::tie(m.fence, m.flush, m.timeout_ns); }
};
struct Flush : FieldlessRequest<Opcode::Flush, NoReply> {};
struct Finish : FieldlessRequest<Opcode::Finish, NoReply> {};
struct Present : FieldlessRequest<Opcode::Present, NoReply> {};
struct ReadPixels : FieldlessRequest<Opcode::ReadPixels, Pixels> {};
struct ReadGauges : FieldlessRequest<Opcode::ReadGauges, GaugeValues> {};
struct ReadValidation : FieldlessRequest<Opcode::ReadValidation, ValidationMessages> {};
// the server ends the session after its Ok
struct Goodbye : FieldlessRequest<Opcode::Goodbye, Ok> {};
struct KernelEvent {  // a gpu_mem_total tracepoint hit, written by hand
  static constexpr Opcode kOpcode = Opcode::KernelEvent;
  using Reply = NoReply;
  uint32_t gpu = 0;
  uint32_t pid = 0;
  uint64_t size = 0;
  static auto fields(auto& m) { return std::tie(m.gpu, m.pid, m.size); }
};
struct KernelAllocate {
  static constexpr Opcode kOpcode = Opcode::KernelAllocate;
  using Reply = NoReply;
  uint32_t gpu = 0;
  uint32_t pid = 0;
  uint32_t type = 0;  // kernel::MemoryType
  uint64_t id = 0;
  uint64_t size = 0;
  static auto fields(auto& m) { return std::tie(m.gpu, m.pid, m.type, m.id, m.size); }
  Status check() const;
};
struct KernelFree {
  static constexpr Opcode kOpcode = Opcode::KernelFree;
  using Reply = NoReply;
  uint32_t gpu = 0;
  uint32_t pid = 0;
  uint64_t id = 0;
  static auto fields(auto& m) { return std::tie(m.gpu, m.pid, m.id); }
};
struct ReadKernelGauges : FieldlessRequest<Opcode::ReadKernelGauges, GaugeValues> {};
struct ReadObservedGauges : FieldlessRequest<Opcode::ReadObservedGauges, GaugeValues> {};
struct ReadWireGauges : FieldlessRequest<Opcode::ReadWireGauges, GaugeValues> {};
struct KernelAttach {
  static constexpr Opcode kOpcode = Opcode::KernelAttach;
  using Reply = NoReply;
  uint32_t failures = 0;
  bool stop_requested = false;
  static auto fields(auto& m) { return std::tie(m.failures, m.stop_requested); }
};
struct KernelDump : FieldlessRequest<Opcode::KernelDump, Text> {};
struct KernelSample : FieldlessRequest<Opcode::KernelSample, NoReply> {};
struct KernelWalk {
  static constexpr Opcode kOpcode = Opcode::KernelWalk;
  using Reply = NoReply;
  WalkUpdates updates;
  static auto fields(auto& m) { return std::tie(m.updates); }
};
struct KernelNode {
  static constexpr Opcode kOpcode = Opcode::KernelNode;
  using Reply = Text;  // present = false: the pid has no node
  uint32_t pid = 0;
  uint32_t type = 0;
  static auto fields(auto& m) { return std::tie(m.pid, m.type); }
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
struct KmdSubmit : OperationMessage<Opcode::KmdSubmit, kernel::KmdSubmitOp> {
  Status check() const;
};
struct KmdAdvance : OperationMessage<Opcode::KmdAdvance, kernel::KmdAdvanceOp> {};
struct KmdWait : OperationMessage<Opcode::KmdWait, kernel::KmdWaitOp> {};
struct KmdFrame : OperationMessage<Opcode::KmdFrame, kernel::KmdFrameOp> {};
struct KmdSignal : OperationMessage<Opcode::KmdSignal, kernel::KmdSignalOp> {};
struct KmdFault : OperationMessage<Opcode::KmdFault, kernel::KmdFaultOp> {};
struct KmdDiagnose : OperationMessage<Opcode::KmdDiagnose, kernel::KmdDiagnoseOp> {};
struct KgslSample : OperationMessage<Opcode::KgslSample, kernel::KgslSampleOp> {};
struct KgslPower : OperationMessage<Opcode::KgslPower, kernel::KgslPowerOp> {};
struct KgslRead : OperationMessage<Opcode::KgslRead, kernel::KgslReadOp> {};
// The message that carries an operation.
template <class Operation>
struct MessageOfOperation;
#define TIDEMARK_KERNEL_OP_MESSAGE(Message, Operation) \
  template <>                                          \
  struct MessageOfOperation<kernel::Operation> {       \
    using type = Message;                              \
  };
TIDEMARK_KERNEL_OP_MESSAGE(KmdSubmit, KmdSubmitOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdAdvance, KmdAdvanceOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdWait, KmdWaitOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdFrame, KmdFrameOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdSignal, KmdSignalOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdFault, KmdFaultOp)
TIDEMARK_KERNEL_OP_MESSAGE(KmdDiagnose, KmdDiagnoseOp)
TIDEMARK_KERNEL_OP_MESSAGE(KgslSample, KgslSampleOp)
TIDEMARK_KERNEL_OP_MESSAGE(KgslPower, KgslPowerOp)
TIDEMARK_KERNEL_OP_MESSAGE(KgslRead, KgslReadOp)
#undef TIDEMARK_KERNEL_OP_MESSAGE
template <>
struct MessageOfOperation<tracer::CounterStreamOp> {
  using type = struct TraceCounters;
};
template <>
struct MessageOfOperation<tracer::CounterSampleOp> {
  using type = struct TraceSample;
};
template <class Operation>
using MessageOf = typename MessageOfOperation<Operation>::type;
struct ReadTrace : FieldlessRequest<Opcode::ReadTrace, TraceBytes> {};
// What a replay sends for a recorded ReadTrace: it needs the trace's hash, not megabytes of it.
struct ReadTraceHash : FieldlessRequest<Opcode::ReadTraceHash, TraceHash> {};
struct TraceCounters : OperationMessage<Opcode::TraceCounters, tracer::CounterStreamOp> {
  Status check() const;
};
struct TraceSample : OperationMessage<Opcode::TraceSample, tracer::CounterSampleOp> {};
struct ReadKernelReport : FieldlessRequest<Opcode::ReadKernelReport, KernelReportReply> {};

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
