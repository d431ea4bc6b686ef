#include "wire/channel.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <vector>
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
  SocketChannel(std::string lane, UniqueFd fd, ChildProcess* server, std::chrono::milliseconds reply_timeout,
                std::filesystem::path server_log)
      : lane_(std::move(lane)),
        fd_(std::move(fd)),
        source_(fd_.get()),
        server_(server),
        reply_timeout_(reply_timeout),
        server_log_(std::move(server_log)) {}

  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) override {
    deadline_ = deadline;
    deadline_what_ = std::move(what);
  }
  void kill_server() override {
    if (server_) server_->kill(SIGKILL);
  }
  std::optional<ProcessDeath> server_death() const override { return death_; }

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
    return fail(ErrorKind::Fatal,
                fmt::format("the {} server stopped answering: no reply within {} ms (--reply-timeout-ms)", lane_,
                            reply_timeout_.count()));
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
      if (auto status = server_->wait_for(std::chrono::milliseconds(1500))) {
        death_ = ProcessDeath{.pid = server_->pid(), .wait_status = *status, .said = last_words()};
        return fail(ErrorKind::Fatal, fmt::format("the {} server (pid {}) died: {}{}", lane_, server_->pid(),
                                                  describe_wait_status(*status), death_->said));
      }
      return fail(ErrorKind::Fatal,
                  fmt::format("the {} server (pid {}) dropped the connection ({})", lane_, server_->pid(), io_message));
    }
    return fail(ErrorKind::Fatal, fmt::format("the {} server dropped the connection ({})", lane_, io_message));
  }

  // What the server said last (its log's last lines): why it died, when it knew (a driver's
  // renderer server that ended under it, and the driver's own complaint).
  std::string last_words() const {
    if (server_log_.empty()) return "";
    const std::vector<std::string> lines = last_lines(server_log_, 2);
    if (lines.empty()) return "";
    // Tidemark's own last word first (the server's process says what ended under it, and its
    // driver may complain for thousands of lines after), then the last two lines, the driver's.
    std::vector<std::string> said;
    if (auto own = last_line_starting(server_log_, "tidemark: ")) said.push_back(*own);
    for (size_t i = lines.size() > 2 ? lines.size() - 2 : 0; i < lines.size(); ++i)
      if (std::find(said.begin(), said.end(), lines[i]) == said.end()) said.push_back(lines[i]);
    std::string text;
    for (const auto& line : said) text += (text.empty() ? "" : " | ") + line;
    return fmt::format("; it said: {}", text);
  }

  std::string lane_;
  UniqueFd fd_;
  FdSource source_;
  ChildProcess* server_;
  std::vector<uint8_t> outbox_;
  std::chrono::milliseconds reply_timeout_;
  std::optional<Clock::time_point> deadline_;
  std::string deadline_what_;
  std::filesystem::path server_log_;
  std::optional<ProcessDeath> death_;
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
  std::optional<ProcessDeath> server_death() const override { return inner_->server_death(); }

 private:
  std::unique_ptr<Channel> inner_;
  RecordingWriter writer_;
};

}  // namespace

std::unique_ptr<Channel> direct_channel(ServerOptions options) {
  return std::make_unique<DirectChannel>(std::move(options));
}

std::unique_ptr<Channel> in_process_channel(ServerOptions options) {
  return std::make_unique<InProcessChannel>(std::move(options));
}

std::unique_ptr<Channel> socket_channel(std::string lane, UniqueFd fd, ChildProcess* server,
                                        std::chrono::milliseconds reply_timeout, std::filesystem::path server_log) {
  return std::make_unique<SocketChannel>(std::move(lane), std::move(fd), server, reply_timeout, std::move(server_log));
}

std::unique_ptr<Channel> recording_channel(std::unique_ptr<Channel> inner, RecordingWriter writer) {
  return std::make_unique<RecordingChannel>(std::move(inner), std::move(writer));
}

}  // namespace tidemark::wire
