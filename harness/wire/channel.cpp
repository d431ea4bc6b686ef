#include "wire/channel.h"

#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <random>

#include "wire/server.h"

namespace tidemark::wire {

namespace {

// Monolith: the session's backend is called directly; frames are never turned into bytes.
class DirectChannel final : public Channel {
 public:
  explicit DirectChannel(ServerOptions options) : session_(std::move(options)) {}
  Result<Frame> call(const Frame& request) override {
    ++sent;
    Frame response = session_.handle(request);
    ++received;
    return response;
  }

 private:
  ServerSession session_;
};

// Split lane: the server session lives in this process; every frame still goes through
// the byte encoding both ways.
class InProcessChannel final : public Channel {
 public:
  explicit InProcessChannel(ServerOptions options) : session_(std::move(options)) {}

  Result<Frame> call(const Frame& request) override {
    ++sent;
    TIDEMARK_TRY(delivered, decode(encode(request)));
    Frame response = session_.handle(delivered);
    TIDEMARK_TRY(returned, decode(encode(response)));
    ++received;
    return std::move(returned);
  }

 private:
  static Result<Frame> decode(const std::vector<uint8_t>& bytes) {
    auto header = decode_header(std::span<const uint8_t, kHeaderBytes>(bytes.data(), kHeaderBytes));
    if (!header) return std::unexpected(header.error());
    return Frame{header->op, header->sequence, {bytes.begin() + kHeaderBytes, bytes.end()}};
  }
  ServerSession session_;
};

// Spawn and tcp lanes: a socket to a server process this client may own.
class SocketChannel final : public Channel {
 public:
  SocketChannel(std::string lane, UniqueFd fd, ChildProcess* server, uint32_t kill_at_frame)
      : lane_(std::move(lane)), fd_(std::move(fd)), server_(server), kill_at_frame_(kill_at_frame) {}

  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) override {
    deadline_ = deadline;
    deadline_what_ = std::move(what);
  }

  Result<Frame> call(const Frame& request) override {
    if (kill_at_frame_ != 0 && sent + 1 == kill_at_frame_ && server_) server_->kill(SIGKILL);
    ++sent;
    if (auto written = write_all(fd_.get(), encode(request)); !written) return server_gone(written.error().message);
    std::array<uint8_t, kHeaderBytes> header_bytes;
    if (auto got = read_exact(fd_.get(), header_bytes, deadline_); !got) return read_failed(got.error());
    auto header = decode_header(header_bytes);
    if (!header) return std::unexpected(header.error());
    Frame response{header->op, header->sequence, std::vector<uint8_t>(header->length)};
    if (auto got = read_exact(fd_.get(), response.payload, Clock::now() + kFrameTimeout); !got)
      return read_failed(got.error());
    ++received;
    return response;
  }

 private:
  std::unexpected<Error> read_failed(const ReadError& error) {
    if (error.failure == ReadFailure::Timeout)
      return fail(ErrorKind::Fatal, fmt::format("the {} server did not answer {}", lane_, deadline_what_));
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
  ChildProcess* server_;
  uint32_t kill_at_frame_;
  std::optional<Clock::time_point> deadline_;
  std::string deadline_what_;
};

class RecordingChannel final : public Channel {
 public:
  RecordingChannel(std::unique_ptr<Channel> inner, RecordingWriter writer)
      : inner_(std::move(inner)), writer_(std::move(writer)) {}
  ~RecordingChannel() override { (void)writer_.close(); }

  Result<Frame> call(const Frame& request) override {
    ++sent;
    if (auto ok = writer_.write(Direction::Request, request); !ok) return std::unexpected(ok.error());
    TIDEMARK_TRY(response, inner_->call(request));
    if (auto ok = writer_.write(Direction::Reply, response); !ok) return std::unexpected(ok.error());
    ++received;
    return std::move(response);
  }
  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) override {
    inner_->set_deadline(deadline, std::move(what));
  }

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
      opened.channel = std::make_unique<DirectChannel>(ServerOptions{"", std::move(log)});
      return opened;
    case Lane::Split:
      opened.channel = std::make_unique<InProcessChannel>(ServerOptions{"", std::move(log)});
      return opened;
    case Lane::Spawn: {
      TIDEMARK_TRY(pair, socket_pair());
      TIDEMARK_TRY(server, spawn_server(options, {"--fd", "3"}, pair.second.get(), {}));
      pair.second.reset();  // the child holds its end: EOF on ours now means the child is gone
      opened.server = std::make_unique<ChildProcess>(std::move(server));
      opened.channel = std::make_unique<SocketChannel>("spawn", std::move(pair.first), opened.server.get(),
                                                       options.kill_server_at_frame);
      return opened;
    }
    case Lane::Tcp:
      break;
  }
  if (!options.connect.empty()) {
    TIDEMARK_TRY(endpoint, parse_endpoint(options.connect));
    TIDEMARK_TRY(fd, tcp_connect(endpoint.first, endpoint.second));
    opened.channel = std::make_unique<SocketChannel>("tcp", std::move(fd), nullptr, options.kill_server_at_frame);
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
  opened.channel = std::make_unique<SocketChannel>("tcp", std::move(fd), opened.server.get(),
                                                   options.kill_server_at_frame);
  return opened;
}

std::unique_ptr<Channel> recording_channel(std::unique_ptr<Channel> inner, RecordingWriter writer) {
  return std::make_unique<RecordingChannel>(std::move(inner), std::move(writer));
}

}  // namespace tidemark::wire
