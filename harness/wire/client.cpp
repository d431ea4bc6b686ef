// The client side of the wire: the client API encoded into frames, over a channel.
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <random>

#include "wire/lanes.h"
#include "wire/posix.h"
#include "wire/protocol.h"
#include "wire/server.h"

namespace tidemark::wire {

namespace {

// Carries one request to the server and brings back its reply.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual Result<Frame> call(const Frame& request) = 0;
  uint64_t sent = 0;
  uint64_t received = 0;
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

  void set_deadline(std::optional<Clock::time_point> deadline, std::string what) {
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

// The client API over a channel. Every call is answered, so a failure names its own step.
class WireClient final : public backend::Backend {
 public:
  explicit WireClient(Channel& channel) : channel_(channel) {}

  Result<Welcome> hello(const Hello& hello) {
    TIDEMARK_TRY(response, exchange(Opcode::Hello, encode_hello(hello), Opcode::Welcome));
    return decode_welcome(response.payload);
  }
  Status goodbye() { return expect_ok(Opcode::Goodbye, {}); }

  Result<backend::BufferId> create_buffer() override { return read_u32(Opcode::CreateBuffer, Opcode::BufferCreated); }
  Status buffer_data(backend::BufferId buffer, std::span<const uint8_t> data) override {
    return expect_ok(Opcode::BufferData, Writer().u32(buffer).bytes(data).take());
  }
  Status buffer_sub_data(backend::BufferId buffer, uint64_t offset, std::span<const uint8_t> data) override {
    return expect_ok(Opcode::BufferSubData, Writer().u32(buffer).u64(offset).bytes(data).take());
  }
  Status draw(const backend::DrawCall& call) override {
    return expect_ok(Opcode::Draw, Writer()
                                       .u32(call.uniform)
                                       .u32(call.vertices)
                                       .i32(call.rect.x0)
                                       .i32(call.rect.y0)
                                       .i32(call.rect.x1)
                                       .i32(call.rect.y1)
                                       .take());
  }
  Result<backend::FenceId> fence_sync() override { return read_u32(Opcode::FenceSync, Opcode::FenceCreated); }
  Result<backend::WaitStatus> client_wait(backend::FenceId fence, bool flush, uint64_t timeout_ns) override {
    TIDEMARK_TRY(response,
                 exchange(Opcode::ClientWait, Writer().u32(fence).u8(flush ? 1 : 0).u64(timeout_ns).take(),
                          Opcode::WaitResult));
    Reader reader(response.payload);
    TIDEMARK_TRY(status, reader.u8());
    if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
    if (status > static_cast<uint8_t>(backend::WaitStatus::TimeoutExpired))
      return fail(ErrorKind::Fatal, fmt::format("protocol: wait status {}", status));
    return static_cast<backend::WaitStatus>(status);
  }
  Status flush() override { return expect_ok(Opcode::Flush, {}); }
  Status finish() override { return expect_ok(Opcode::Finish, {}); }
  Status present() override { return expect_ok(Opcode::Present, {}); }
  Result<check::Image> read_pixels() override {
    TIDEMARK_TRY(response, exchange(Opcode::ReadPixels, {}, Opcode::Pixels));
    Reader reader(response.payload);
    check::Image image;
    TIDEMARK_TRY(width, reader.i32());
    TIDEMARK_TRY(height, reader.i32());
    TIDEMARK_TRY(pixels, reader.bytes());
    if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
    if (width < 0 || height < 0 || pixels.size() != size_t(width) * size_t(height) * 4)
      return fail(ErrorKind::Fatal, fmt::format("protocol: {}x{} image with {} bytes", width, height, pixels.size()));
    image.width = width;
    image.height = height;
    image.pixels.assign(pixels.begin(), pixels.end());
    return image;
  }
  Result<backend::Gauges> gauges() override {
    TIDEMARK_TRY(response, exchange(Opcode::ReadGauges, {}, Opcode::GaugeValues));
    Reader reader(response.payload);
    TIDEMARK_TRY(count, reader.u32());
    std::map<std::string, int64_t> values;
    for (uint32_t i = 0; i < count && i < kMaxListEntries; ++i) {
      TIDEMARK_TRY(name, reader.string());
      TIDEMARK_TRY(value, reader.i64());
      values[name] = value;
    }
    if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
    return backend::from_named(values);
  }
  Result<std::vector<std::string>> validation_messages() override {
    TIDEMARK_TRY(response, exchange(Opcode::ReadValidation, {}, Opcode::ValidationMessages));
    Reader reader(response.payload);
    TIDEMARK_TRY(count, reader.u32());
    std::vector<std::string> messages;
    for (uint32_t i = 0; i < count && i < kMaxListEntries; ++i) {
      TIDEMARK_TRY(message, reader.string());
      messages.push_back(std::move(message));
    }
    if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
    return messages;
  }

 private:
  Result<Frame> exchange(Opcode op, std::vector<uint8_t> payload, Opcode expected) {
    Frame request{op, ++sequence_, std::move(payload)};
    TIDEMARK_TRY(response, channel_.call(request));
    if (response.op == Opcode::Failure) {
      TIDEMARK_TRY(error, decode_failure(response.payload));
      return std::unexpected(std::move(error));
    }
    if (response.op == Opcode::ProtocolError) {
      Reader reader(response.payload);
      auto message = reader.string();
      return fail(ErrorKind::Fatal,
                  fmt::format("the server refused {}: {}", to_string(op), message ? *message : "(unreadable)"));
    }
    if (response.op != expected || response.sequence != request.sequence)
      return fail(ErrorKind::Fatal, fmt::format("protocol: {} #{} answered by {} #{}", to_string(op),
                                                request.sequence, to_string(response.op), response.sequence));
    return std::move(response);
  }
  Status expect_ok(Opcode op, std::vector<uint8_t> payload) {
    auto response = exchange(op, std::move(payload), Opcode::Ok);
    if (!response) return std::unexpected(response.error());
    return {};
  }
  Result<uint32_t> read_u32(Opcode op, Opcode expected) {
    TIDEMARK_TRY(response, exchange(op, {}, expected));
    Reader reader(response.payload);
    TIDEMARK_TRY(value, reader.u32());
    if (auto ok = reader.finish(); !ok) return std::unexpected(ok.error());
    return value;
  }

  Channel& channel_;
  uint32_t sequence_ = 0;
};

class DirectSession final : public LaneSession {
 public:
  explicit DirectSession(std::unique_ptr<backend::Backend> backend) : backend_(std::move(backend)) {}
  backend::Backend& api() override { return *backend_; }
  LaneReport report() const override {
    LaneReport report;
    report.lane = "monolith";
    report.client_pid = report.server_pid = ::getpid();
    return report;
  }

 private:
  std::unique_ptr<backend::Backend> backend_;
};

class WireSession final : public LaneSession {
 public:
  WireSession(Lane lane, ChildProcess server) : lane_(lane), server_(std::move(server)) {}
  ~WireSession() override {
    // Say goodbye so a server process ends its session cleanly; a server that never
    // greeted us is simply killed (by ChildProcess).
    if (open_ && client_->goodbye() && server_.pid() > 0) server_.wait_for(std::chrono::milliseconds(2000));
  }

  ChildProcess* server() { return server_.pid() > 0 ? &server_ : nullptr; }
  Status start(std::unique_ptr<Channel> channel, const Hello& hello) {
    channel_ = std::move(channel);
    client_ = std::make_unique<WireClient>(*channel_);
    TIDEMARK_TRY(welcome, client_->hello(hello));
    welcome_ = std::move(welcome);
    open_ = true;
    return {};
  }
  backend::Backend& api() override { return *client_; }
  LaneReport report() const override {
    return {std::string(lane_name(lane_)), channel_->sent, channel_->received, ::getpid(), welcome_.server_pid,
            welcome_.knobs};
  }

 private:
  Lane lane_;
  ChildProcess server_;
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<WireClient> client_;
  Welcome welcome_;
  bool open_ = false;
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

Hello make_hello(const LaneOptions& options, const SessionConfig& config, std::string token) {
  Hello hello{std::move(token), config.knobs, options.mutant, config.width, config.height, config.validation};
  if (mutant_is(find_mutant(options.mutant).value_or(MutantId::None), MutantId::WireDropKnobs)) hello.knobs.clear();
  return hello;
}

// The handshake over a socket, bounded by the handshake timeout and naming the lane.
Result<std::unique_ptr<LaneSession>> start_socket_session(Lane lane, ChildProcess server, UniqueFd fd,
                                                          const LaneOptions& options, const SessionConfig& config,
                                                          std::string token) {
  auto session = std::make_unique<WireSession>(lane, std::move(server));
  auto channel = std::make_unique<SocketChannel>(std::string(lane_name(lane)), std::move(fd), session->server(),
                                                 options.kill_server_at_frame);
  SocketChannel& socket = *channel;
  socket.set_deadline(Clock::now() + options.handshake_timeout,
                      fmt::format("the handshake within {} ms", options.handshake_timeout.count()));
  if (auto ok = session->start(std::move(channel), make_hello(options, config, std::move(token))); !ok)
    return std::unexpected(ok.error());
  socket.set_deadline(std::nullopt, {});
  return std::unique_ptr<LaneSession>(std::move(session));
}

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

Result<std::unique_ptr<LaneSession>> open_spawn(const LaneOptions& options, const SessionConfig& config) {
  TIDEMARK_TRY(pair, socket_pair());
  TIDEMARK_TRY(server, spawn_server(options, {"--fd", "3"}, pair.second.get(), {}));
  pair.second.reset();  // the child holds its end: EOF on ours now means the child is gone
  return start_socket_session(Lane::Spawn, std::move(server), std::move(pair.first), options, config, "");
}

Result<std::unique_ptr<LaneSession>> open_tcp(const LaneOptions& options, const SessionConfig& config) {
  if (!options.connect.empty()) {
    TIDEMARK_TRY(endpoint, parse_endpoint(options.connect));
    TIDEMARK_TRY(fd, tcp_connect(endpoint.first, endpoint.second));
    return start_socket_session(Lane::Tcp, ChildProcess(), std::move(fd), options, config, options.token);
  }
  // A private server on a port the kernel picks: parallel tests never clash.
  std::string token = random_token();
  TIDEMARK_TRY(server, spawn_server(options, {"--listen", "127.0.0.1:0", "--sessions", "1"}, -1,
                                    {{"TIDEMARK_TOKEN", token}}));
  auto deadline = Clock::now() + options.handshake_timeout;
  auto line = server.read_line(deadline);
  if (!line)
    return fail(ErrorKind::Fatal, fmt::format("the tcp server (pid {}) did not report its port within {} ms: {}",
                                              server.pid(), options.handshake_timeout.count(), line.error().message));
  auto at = line->rfind(' ');
  TIDEMARK_TRY(endpoint, parse_endpoint(line->substr(at == std::string::npos ? 0 : at + 1)));
  TIDEMARK_TRY(fd, tcp_connect(endpoint.first, endpoint.second));
  return start_socket_session(Lane::Tcp, std::move(server), std::move(fd), options, config, token);
}

}  // namespace

std::optional<Lane> parse_lane(std::string_view name) {
  for (Lane lane : kAllLanes)
    if (lane_name(lane) == name) return lane;
  return std::nullopt;
}

std::string_view lane_name(Lane lane) {
  switch (lane) {
    case Lane::Monolith: return "monolith";
    case Lane::Split: return "split";
    case Lane::Spawn: return "spawn";
    case Lane::Tcp: return "tcp";
  }
  return "?";
}

std::string_view lane_title(Lane lane) {
  switch (lane) {
    case Lane::Monolith: return "Monolith";
    case Lane::Split: return "Split";
    case Lane::Spawn: return "Spawn";
    case Lane::Tcp: return "Tcp";
  }
  return "?";
}

std::string default_server_program() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "tidemark-server";
  return (self.parent_path() / "tidemark-server").string();
}

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const SessionConfig& config) {
  switch (options.lane) {
    case Lane::Monolith: {
      backend::Config direct;
      direct.width = config.width;
      direct.height = config.height;
      direct.knobs = backend::knobs_from(config.knobs);
      direct.validation = config.validation;
      direct.log = config.log;
      auto mutant = find_mutant(options.mutant);
      if (!mutant)
        return fail(ErrorKind::BadInput, fmt::format("mutant '{}' is not in this build's catalogue", options.mutant));
      direct.mutant = *mutant;
      TIDEMARK_TRY(backend, backend::Backend::create(direct));
      return std::unique_ptr<LaneSession>(std::make_unique<DirectSession>(std::move(backend)));
    }
    case Lane::Split: {
      auto session = std::make_unique<WireSession>(Lane::Split, ChildProcess());
      auto channel = std::make_unique<InProcessChannel>(ServerOptions{"", config.log});
      if (auto ok = session->start(std::move(channel), make_hello(options, config, "")); !ok)
        return std::unexpected(ok.error());
      return std::unique_ptr<LaneSession>(std::move(session));
    }
    case Lane::Spawn:
      return open_spawn(options, config);
    case Lane::Tcp:
      return open_tcp(options, config);
  }
  return fail(ErrorKind::BadInput, "unknown lane");
}

}  // namespace tidemark::wire
