#include "wire/server.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/knobs.h"
#include "core/mutants.h"
#include "wire/posix.h"

namespace tidemark::wire {

namespace {

// The backend half of the dispatch table: one handler per request the backend carries out.
Result<BufferCreated> serve(backend::Backend& api, const CreateBuffer&) {
  TIDEMARK_TRY(buffer, api.create_buffer());
  return BufferCreated{.buffer = buffer};
}
Status serve(backend::Backend& api, const BufferData& m) { return api.buffer_data(m.buffer, m.data); }
Status serve(backend::Backend& api, const BufferSubData& m) {
  return api.buffer_sub_data(m.buffer, m.offset, m.data);
}
Status serve(backend::Backend& api, const Draw& m) { return api.draw(m.call); }
Result<FenceCreated> serve(backend::Backend& api, const FenceSync&) {
  TIDEMARK_TRY(fence, api.fence_sync());
  return FenceCreated{.fence = fence};
}
Result<WaitResult> serve(backend::Backend& api, const ClientWait& m) {
  TIDEMARK_TRY(status, api.client_wait(m.fence, m.flush, m.timeout_ns));
  return WaitResult{.status = status};
}
Status serve(backend::Backend& api, const Flush&) { return api.flush(); }
Status serve(backend::Backend& api, const Finish&) { return api.finish(); }
Status serve(backend::Backend& api, const Present&) { return api.present(); }
Result<Pixels> serve(backend::Backend& api, const ReadPixels&) {
  TIDEMARK_TRY(image, api.read_pixels());
  return Pixels{.width = image.width, .height = image.height, .bytes = std::move(image.pixels)};
}
Result<GaugeValues> serve(backend::Backend& api, const ReadGauges&) {
  TIDEMARK_TRY(gauges, api.gauges());
  return GaugeValues{.values = named(gauges)};
}
Result<ValidationMessages> serve(backend::Backend& api, const ReadValidation&) {
  TIDEMARK_TRY(messages, api.validation_messages());
  return ValidationMessages{.messages = std::move(messages)};
}

Result<Ok> serve(backend::Backend&, const Sync&) { return Ok{}; }
Status serve(backend::Backend& api, const KernelEvent& m) { return api.kernel_event({m.gpu, m.pid, m.size}); }
Status serve(backend::Backend& api, const KernelAllocate& m) {
  return api.kernel_allocate(m.gpu, m.pid, static_cast<kernel::MemoryType>(m.type), m.id, m.size);
}
Status serve(backend::Backend& api, const KernelFree& m) { return api.kernel_free(m.gpu, m.pid, m.id); }
Status serve(backend::Backend& api, const KernelAttach& m) {
  return api.kernel_attach({.failures = m.failures, .stop_requested = m.stop_requested});
}
Status serve(backend::Backend& api, const KernelWalk& m) { return api.kernel_walk(m.updates); }
Status serve(backend::Backend& api, const KernelSample&) { return api.kernel_sample(); }
Result<Text> serve(backend::Backend& api, const KernelDump&) {
  TIDEMARK_TRY(text, api.kernel_dump());
  return Text{.present = true, .text = {text.begin(), text.end()}};
}
Result<Text> serve(backend::Backend& api, const KernelNode& m) {
  TIDEMARK_TRY(node, api.kernel_node(m.pid, static_cast<kernel::MemoryType>(m.type)));
  std::string text = node.value_or("");
  return Text{.present = node.has_value(), .text = {text.begin(), text.end()}};
}
Result<GaugeValues> serve(backend::Backend& api, const ReadKernelGauges&) {
  TIDEMARK_TRY(gauges, api.kernel_gauges());
  return GaugeValues{.values = named(gauges)};
}
template <Opcode code, class Operation>
Status serve(backend::Backend& api, const OperationMessage<code, Operation>& m) {
  if constexpr (std::is_constructible_v<tracer::TraceOp, Operation>) return api.trace_op(m.op);
  else return api.kernel_op(m.op);
}
Result<TraceBytes> serve(backend::Backend& api, const ReadTrace&) {
  TIDEMARK_TRY(trace, api.run_trace());
  return TraceBytes{.bytes = {trace.begin(), trace.end()}};
}
Result<KernelReportReply> serve(backend::Backend& api, const ReadKernelReport&) {
  TIDEMARK_TRY(report, api.kernel_report());
  return KernelReportReply{.report = std::move(report)};
}

// Carries a request out on the backend: its reply, or none for a pipelined request that
// succeeded. A pipelined failure sets `failed` so that later requests are skipped.
template <class M>
std::optional<Frame> carry_out(backend::Backend& api, const Frame& request, const M& message,
                               std::optional<uint32_t>& failed) {
  auto result = serve(api, message);
  if (!result) {
    if constexpr (kPipelined<M>) failed = request.sequence;
    return make_frame(request.sequence, Failure{.error = result.error()});
  }
  if constexpr (kPipelined<M>) {
    return std::nullopt;
  } else {
    static_assert(std::is_same_v<std::remove_cvref_t<decltype(*result)>, typename M::Reply>,
                  "a handler answers with its request's Reply");
    return make_frame(request.sequence, *result);
  }
}

}  // namespace

ServerSession::ServerSession(ServerOptions options) : options_(std::move(options)) {}
ServerSession::~ServerSession() = default;

Frame ServerSession::protocol_error(const Frame& request, const std::string& message) {
  open_ = false;
  if (options_.log) options_.log("protocol error: " + message);
  return make_frame(request.sequence, ProtocolError{.message = message});
}

std::optional<Frame> ServerSession::handle(const Frame& request) {
  if (!open_) return protocol_error(request, "the session is closed");
  switch (request.op) {
#define TIDEMARK_ROUTE(name, code, text) \
  case Opcode::name:                     \
    return route<name>(request);
    TIDEMARK_WIRE_MESSAGES(TIDEMARK_ROUTE)
#undef TIDEMARK_ROUTE
  }
  return protocol_error(request, fmt::format("unknown opcode {}", static_cast<uint16_t>(request.op)));
}

template <class M>
std::optional<Frame> ServerSession::route(const Frame& request) {
  if constexpr (!RequestMessage<M>) {
    return protocol_error(request, fmt::format("{} is a reply, not a request", to_string(request.op)));
  } else {
    auto message = decode<M>(request.payload);
    if (!message) return protocol_error(request, message.error().message);
    if constexpr (std::is_same_v<M, Hello>) {
      return hello(request, *message);
    } else {
      if (!backend_) return protocol_error(request, fmt::format("{} before hello", to_string(request.op)));
      if constexpr (std::is_same_v<M, Goodbye>) {
        open_ = false;
        return make_frame(request.sequence, Ok{});
      } else {
        if (failed_sequence_) {
          if (kPipelined<M>) return std::nullopt;
          auto failed = *std::exchange(failed_sequence_, std::nullopt);
          return make_frame(request.sequence, Skipped{.failed_sequence = failed});
        }
        return carry_out(*backend_, request, *message, failed_sequence_);
      }
    }
  }
}

Frame ServerSession::hello(const Frame& request, const Hello& message) {
  if (backend_) return protocol_error(request, "a second hello");
  if (!options_.token.empty() && message.token != options_.token)
    return protocol_error(request, "session token refused");
  auto knobs = resolve_knobs({&message.knobs}, "handshake");
  if (!knobs) return protocol_error(request, knobs.error().message);
  auto mutant = find_mutant(message.mutant);
  if (!mutant)
    return protocol_error(request, fmt::format("mutant '{}' is not in this server's catalogue", message.mutant));

  backend::Config config = backend_config(message, *knobs, *mutant, options_.log);
  auto backend = options_.make_backend ? options_.make_backend(config) : backend::Backend::create(config);
  if (!backend) {
    open_ = false;
    return make_frame(request.sequence, Failure{.error = backend.error()});
  }
  backend_ = std::move(*backend);
  if (options_.log)
    options_.log(fmt::format("session: wire_deferred_mb={} retire_lag={} mutant='{}'",
                             knobs->at("wire_deferred_mb"), knobs->at("retire_lag"), message.mutant));
  Welcome welcome{.server_pid = ::getpid(),
                  .knobs = *knobs,
                  .capabilities = {"reclaim-by-proof", "descriptor-memo-epoch", "validation", "pipelined"}};
  return make_frame(request.sequence, welcome);
}

backend::Config backend_config(const Hello& hello, const KnobValues& knobs, MutantId mutant,
                               std::function<void(const std::string&)> log) {
  backend::Config config;
  config.width = hello.width;
  config.height = hello.height;
  config.knobs = backend::knobs_from(knobs);
  config.validation = hello.validation;
  config.kernel_pid = hello.kernel_pid;
  config.kernel_gpu = hello.kernel_gpu;
  config.kernel_reports = hello.kernel_reports;
  config.kmd = hello.kmd;
  config.kgsl = hello.kgsl;
  config.trace_memory = hello.trace_memory;
  config.mutant = mutant;
  config.log = std::move(log);
  return config;
}

ServerConnection::ServerConnection(ServerOptions options)
    : options_(options), session_(std::move(options)), hello_by_(Clock::now() + kHelloTimeout) {}

std::string ServerConnection::serve(ByteSource& source, const std::function<Status(const Frame&)>& write) {
  auto refuse = [&](const std::string& why) {
    (void)write(make_frame(0, ProtocolError{.message = why}));
    if (options_.log) options_.log("protocol error: " + why);
    return why;
  };
  while (session_.open()) {
    FrameLimits limits;
    limits.stall_limit = kFrameTimeout;
    if (!session_.greeted()) {
      limits.max_payload = kMaxHelloPayloadBytes;
      limits.deadline = hello_by_;
    }
    auto request = read_frame(source, limits);
    if (!request) {
      const ReadError& error = request.error();
      switch (error.failure) {
        case ReadFailure::Closed:
          return fmt::format("client left after {} frames ({})", frames_, error.message);
        case ReadFailure::Timeout:
          return refuse(session_.greeted() ? "a frame stalled midway" : "no hello in time");
        case ReadFailure::Malformed:
          return refuse(error.message);
        case ReadFailure::Io:
          return fmt::format("client connection failed after {} frames ({})", frames_, error.message);
      }
    }
    ++frames_;
    if (options_.stop_after_frames != 0 && frames_ == options_.stop_after_frames) ::raise(SIGSTOP);
    if (auto reply = session_.handle(*request)) {
      if (auto sent = write(*reply); !sent) return "client left: " + sent.error().message;
    }
  }
  return fmt::format("session closed after {} frames", frames_);
}

std::string serve_connection(int fd, const ServerOptions& options) {
  FdSource source(fd);
  ServerConnection connection(options);
  return connection.serve(source, [fd](const Frame& reply) { return write_all(fd, encode(reply)); });
}

}  // namespace tidemark::wire
