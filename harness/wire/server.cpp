#include "wire/server.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/process.h"
#include "core/worker.h"
#include "wire/posix.h"
#include "wire/replies.h"

#include "calls/wire_dispatch.h"  // serve(): one handler per call, generated from api/calls.yaml

namespace tidemark::wire {

namespace {

using dispatch::serve;
using dispatch::Served;
Result<Ok> serve(Served&, const Sync&) { return Ok{}; }

// Carries a request out: its reply, or none for a pipelined request that
// succeeded. A pipelined failure sets `failed` so that later requests are skipped.
template <class M>
std::optional<Frame> carry_out(Served to, FrameView request, const M& message, std::optional<uint32_t>& failed) {
  auto result = serve(to, message);
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

Frame ServerSession::protocol_error(FrameView request, const std::string& message) {
  open_ = false;
  if (options_.log) options_.log("protocol error: " + message);
  return make_frame(request.sequence, ProtocolError{.message = message});
}

std::optional<Frame> ServerSession::handle(FrameView request) {
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
std::optional<Frame> ServerSession::route(FrameView request) {
  if constexpr (!RequestMessage<M>) {
    return protocol_error(request, fmt::format("{} is a reply, not a request", to_string(request.op)));
  } else {
    auto message = decode<M>(request.payload);
    if (!message) return protocol_error(request, message.error().message);
    if constexpr (std::is_same_v<M, Hello>) {
      return hello(request, *message);
    } else {
      if (!session_) return protocol_error(request, fmt::format("{} before hello", to_string(request.op)));
      if constexpr (std::is_same_v<M, Goodbye>) {
        open_ = false;
        return make_frame(request.sequence, Ok{});
      } else {
        if (failed_sequence_) {
          if (kPipelined<M>) return std::nullopt;
          auto failed = *std::exchange(failed_sequence_, std::nullopt);
          return make_frame(request.sequence, Skipped{.failed_sequence = failed});
        }
        return carry_out({session_->device(), session_->model()}, request, *message, failed_sequence_);
      }
    }
  }
}

Frame ServerSession::hello(FrameView request, const Hello& message) {
  if (session_) return protocol_error(request, "a second hello");
  if (!options_.token.empty() && message.token != options_.token)
    return protocol_error(request, "session token refused");
  const api::SessionConfig& config = message.config;
  if (!options_.open_session) return protocol_error(request, "this server opens no sessions");
  auto session = options_.open_session(config, options_.log);
  if (!session && session.error().config_refused) return protocol_error(request, session.error().error.message);
  if (!session) {
    open_ = false;
    return make_frame(request.sequence, Failure{.error = session.error().error});
  }
  session_ = std::move(*session);
  const KnobValues& knobs = session_->knobs();
  if (options_.log)
    options_.log(fmt::format("session: wire_deferred_mb={} retire_lag={} mutant='{}'", knobs.at("wire_deferred_mb"),
                             knobs.at("retire_lag"), config.mutant));
  Welcome welcome{.server_pid = ::getpid(),
                  .knobs = knobs,
                  .capabilities = {"reclaim-by-proof", "descriptor-memo-epoch", "validation", "pipelined"},
                  .driver = session_->device().driver()};
  return make_frame(request.sequence, welcome);
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
    auto read = read_frame(source, request_, limits);
    if (!read) {
      const ReadError& error = read.error();
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
    if (auto reply = session_.handle(request_)) {
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

Result<std::optional<int>> serve_tcp_sessions(int listener, const ServerOptions& options, int sessions) {
  std::vector<ChildProcess> running;
  for (int served = 0; sessions == 0 || served < sessions; ++served) {
    TIDEMARK_TRY(connection, tcp_accept(listener));
    std::erase_if(running,
                  [](ChildProcess& session) { return session.wait_for(std::chrono::milliseconds(0)).has_value(); });
    const int number = served + 1;
    TIDEMARK_TRY(session, ChildProcess::fork([&] {
                   ::close(listener);
                   const std::string ended = serve_connection(connection.get(), options);
                   if (options.log) options.log(fmt::format("session {}: {}", number, ended));
                   std::exit(0);
                 }));
    running.push_back(std::move(session));
  }
  std::optional<int> crashed;
  for (ChildProcess& session : running) {
    const int status = session.wait();
    if (!WIFSIGNALED(status)) continue;
    if (options.log) options.log(fmt::format("a session (pid {}) {}", session.pid(), describe_wait_status(status)));
    crashed = status;
  }
  return crashed;
}

}  // namespace tidemark::wire
