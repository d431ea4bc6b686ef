#include "wire/channel.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <deque>
#include <random>
#include <utility>

#include "wire/server.h"

namespace tidemark::wire {

namespace {

// Requests queue until a reply is wanted or this many bytes wait: a long stream of pipelined
// requests travels in batches, never as one buffer the size of the stream.
constexpr size_t kBatchBytes = 64 << 10;

std::unexpected<Error> no_reply() {
  return fail(ErrorKind::Fatal, "protocol: a reply was awaited where the server sent none");
}

// Monolith: the session's backend is called directly; frames are never turned into bytes.
class DirectChannel final : public Channel {
 public:
  explicit DirectChannel(ServerOptions options) : session_(std::move(options)) {}
  Status send(FrameView request) override {
    ++sent;
    if (auto reply = session_.handle(request)) replies_.push_back(std::move(*reply));
    return {};
  }
  Result<Frame> receive() override {
    if (replies_.empty()) return no_reply();
    Frame reply = std::move(replies_.front());
    replies_.pop_front();
    ++received;
    return reply;
  }

 private:
  ServerSession session_;
  std::deque<Frame> replies_;
};

// Split lane: the server lives in this process, but every frame still crosses as bytes and
// is read back by the same frame reader a socket's server uses.
class InProcessChannel final : public Channel {
 public:
  explicit InProcessChannel(ServerOptions options) : connection_(std::move(options)) {}

  Status send(FrameView request) override {
    ++sent;
    requests_.append(request);
    if (requests_.size() >= kBatchBytes) serve_queued();
    return {};
  }
  Result<Frame> receive() override {
    if (!requests_.empty()) serve_queued();
    auto reply = read_frame(replies_);
    if (!reply) return no_reply();
    ++received;
    return std::move(*reply);
  }

 private:
  // The server reads what has queued to its end; the buffer keeps its room for the next batch.
  void serve_queued() {
    connection_.serve(requests_, [this](const Frame& reply) -> Status {
      replies_.append(reply);
      return {};
    });
  }

  ServerConnection connection_;
  MemorySource requests_;
  MemorySource replies_;
};

// Spawn and tcp lanes: a socket to a server process this client may own. Requests go out in
// batches: on receive(), or once kBatchBytes have queued.
class SocketChannel final : public Channel {
 public:
  SocketChannel(std::string lane, UniqueFd fd, ChildProcess* server, std::chrono::milliseconds reply_timeout)
      : lane_(std::move(lane)), fd_(std::move(fd)), source_(fd_.get()), server_(server), reply_timeout_(reply_timeout) {}

  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) override {
    deadline_ = deadline;
    deadline_what_ = std::move(what);
  }
  void kill_server() override {
    if (server_) server_->kill(SIGKILL);
  }

  Status send(FrameView request) override {
    ++sent;
    append_encoded(outbox_, request);
    if (outbox_.size() >= kBatchBytes) return flush();
    return {};
  }

  Result<Frame> receive() override {
    if (auto flushed = flush(); !flushed) return std::unexpected(flushed.error());
    FrameLimits limits;
    limits.deadline = deadline_ ? *deadline_ : Clock::now() + reply_timeout_;
    limits.stall_limit = kFrameTimeout;
    auto reply = read_frame(source_, limits);
    if (!reply) return read_failed(reply.error());
    ++received;
    return std::move(*reply);
  }

 private:
  Status flush() {
    if (outbox_.empty()) return {};
    auto written = write_all(fd_.get(), outbox_, deadline_ ? *deadline_ : Clock::now() + reply_timeout_);
    outbox_.clear();
    if (!written && written.error().kind == ErrorKind::Fatal) return timed_out();
    if (!written) return server_gone(written.error().message);
    return {};
  }

  std::unexpected<Error> timed_out() {
    if (deadline_) return fail(ErrorKind::Fatal, fmt::format("the {} server did not answer {}", lane_, deadline_what_));
    return fail(ErrorKind::Fatal, fmt::format("the {} server stopped answering: no reply within {} ms (--reply-timeout-ms)",
                                              lane_, reply_timeout_.count()));
  }

  std::unexpected<Error> read_failed(const ReadError& error) {
    if (error.failure == ReadFailure::Timeout) return timed_out();
    if (error.failure == ReadFailure::Malformed)
      return fail(ErrorKind::Fatal, fmt::format("the {} server sent a bad frame: {}", lane_, error.message));
    return server_gone(error.message);
  }

  // The server died or hung up: say how, from its wait status when it is our child.
  std::unexpected<Error> server_gone(const std::string& io_message) {
    if (server_) {
      if (auto status = server_->wait_for(std::chrono::milliseconds(1500)))
        return fail(ErrorKind::Fatal, fmt::format("the {} server (pid {}) died: {}", lane_, server_->pid(),
                                                  describe_wait_status(*status)));
      return fail(ErrorKind::Fatal,
                  fmt::format("the {} server (pid {}) dropped the connection ({})", lane_, server_->pid(), io_message));
    }
    return fail(ErrorKind::Fatal, fmt::format("the {} server dropped the connection ({})", lane_, io_message));
  }

  std::string lane_;
  UniqueFd fd_;
  FdSource source_;
  ChildProcess* server_;
  std::vector<uint8_t> outbox_;
  std::chrono::milliseconds reply_timeout_;
  std::optional<Clock::time_point> deadline_;
  std::string deadline_what_;
};

class RecordingChannel final : public Channel {
 public:
  RecordingChannel(std::unique_ptr<Channel> inner, RecordingWriter writer)
      : inner_(std::move(inner)), writer_(std::move(writer)) {}
  ~RecordingChannel() override { (void)writer_.close(); }
  Status close() override { return writer_.close(); }

  Status send(FrameView request) override {
    ++sent;
    if (auto ok = writer_.write(Direction::Request, request); !ok) return ok;
    return inner_->send(request);
  }
  Result<Frame> receive() override {
    TIDEMARK_TRY(reply, inner_->receive());
    if (auto ok = writer_.write(Direction::Reply, reply); !ok) return std::unexpected(ok.error());
    ++received;
    return std::move(reply);
  }
  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) override {
    inner_->set_deadline(deadline, std::move(what));
  }
  void kill_server() override { inner_->kill_server(); }

 private:
  std::unique_ptr<Channel> inner_;
  RecordingWriter writer_;
};

std::string random_token() {
  std::random_device random;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", random(), random(), random(), random());
}

// What a server child keeps of our environment: the loader's and sanitizers' settings.
// Knobs are deliberately absent: they travel in the handshake.
const std::vector<std::string> kServerEnvironment = {
    "PATH",          "HOME",          "LD_LIBRARY_PATH", "LD_PRELOAD",      "ASAN_OPTIONS",
    "UBSAN_OPTIONS", "LSAN_OPTIONS",  "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_LAYER_PATH",
    "VK_ADD_LAYER_PATH", "XDG_DATA_DIRS", "LP_NUM_THREADS"};

Result<ChildProcess> spawn_server(const LaneOptions& options, std::vector<std::string> args, int pass_fd,
                                  std::vector<std::pair<std::string, std::string>> set_env) {
  ChildProcess::Options child;
  child.program = options.server_program.empty() ? default_server_program() : options.server_program;
  child.args = std::move(args);
  child.keep_env = kServerEnvironment;
  child.set_env = std::move(set_env);
  child.pass_fd = pass_fd;
  child.capture_stdout = pass_fd < 0;
  child.stderr_path = options.server_log;
  if (::access(child.program.c_str(), X_OK) != 0)
    return fail(ErrorKind::Environment, fmt::format("no server program at {} (build tidemark-server)", child.program));
  return ChildProcess::spawn(child);
}

}  // namespace

Result<OpenedChannel> open_channel(const LaneOptions& options, std::function<void(const std::string&)> log) {
  OpenedChannel opened;
  switch (options.lane) {
    case Lane::Monolith:
      opened.channel = std::make_unique<DirectChannel>(ServerOptions{"", std::move(log), options.backends});
      return opened;
    case Lane::Split:
      opened.channel = std::make_unique<InProcessChannel>(ServerOptions{"", std::move(log), options.backends});
      return opened;
    case Lane::Spawn: {
      TIDEMARK_TRY(pair, socket_pair());
      TIDEMARK_TRY(server, spawn_server(options, {"--fd", "3"}, pair.second.get(), {}));
      pair.second.reset();  // the child holds its end: EOF on ours now means the child is gone
      opened.server = std::make_unique<ChildProcess>(std::move(server));
      opened.channel = std::make_unique<SocketChannel>("spawn", std::move(pair.first), opened.server.get(),
                                                       options.reply_timeout);
      return opened;
    }
    case Lane::Tcp:
      break;
  }
  if (!options.connect.empty()) {
    TIDEMARK_TRY(endpoint, parse_endpoint(options.connect));
    TIDEMARK_TRY(fd, tcp_connect(endpoint.first, endpoint.second));
    opened.channel = std::make_unique<SocketChannel>("tcp", std::move(fd), nullptr, options.reply_timeout);
    opened.token = options.token;
    return opened;
  }
  // A private server on a port the kernel picks: parallel tests never clash.
  opened.token = random_token();
  TIDEMARK_TRY(server, spawn_server(options, {"--listen", "127.0.0.1:0", "--sessions", "1"}, -1,
                                    {{"TIDEMARK_TOKEN", opened.token}}));
  opened.server = std::make_unique<ChildProcess>(std::move(server));
  auto line = opened.server->read_line(Clock::now() + options.handshake_timeout);
  if (!line)
    return fail(ErrorKind::Fatal, fmt::format("the tcp server (pid {}) did not report its port within {} ms: {}",
                                              opened.server->pid(), options.handshake_timeout.count(),
                                              line.error().message));
  auto at = line->rfind(' ');
  TIDEMARK_TRY(endpoint, parse_endpoint(line->substr(at == std::string::npos ? 0 : at + 1)));
  TIDEMARK_TRY(fd, tcp_connect(endpoint.first, endpoint.second));
  opened.channel = std::make_unique<SocketChannel>("tcp", std::move(fd), opened.server.get(), options.reply_timeout);
  return opened;
}

std::unique_ptr<Channel> in_process_channel(ServerOptions options) {
  return std::make_unique<InProcessChannel>(std::move(options));
}

std::unique_ptr<Channel> recording_channel(std::unique_ptr<Channel> inner, RecordingWriter writer) {
  return std::make_unique<RecordingChannel>(std::move(inner), std::move(writer));
}

}  // namespace tidemark::wire
