// The client side of the wire: the client API encoded into frames, over a channel.
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "wire/channel.h"
#include "wire/lanes.h"
#include "wire/protocol.h"

namespace tidemark::wire {

namespace {

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
  Result<Image> read_pixels() override {
    TIDEMARK_TRY(response, exchange(Opcode::ReadPixels, {}, Opcode::Pixels));
    TIDEMARK_TRY(pixels, decode_pixels(response.payload));
    return Image{pixels.width, pixels.height, {pixels.bytes.begin(), pixels.bytes.end()}};
  }
  Result<backend::Gauges> gauges() override {
    TIDEMARK_TRY(response, exchange(Opcode::ReadGauges, {}, Opcode::GaugeValues));
    TIDEMARK_TRY(named, decode_gauge_values(response.payload));
    return backend::from_named({named.begin(), named.end()});
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

class WireSession final : public LaneSession {
 public:
  WireSession(Lane lane, OpenedChannel opened) : lane_(lane), opened_(std::move(opened)) {
    client_ = std::make_unique<WireClient>(*opened_.channel);
  }
  ~WireSession() override {
    // Say goodbye so a server process ends its session cleanly; a server that never
    // greeted us is simply killed (by ChildProcess).
    if (open_ && client_->goodbye() && opened_.server) opened_.server->wait_for(std::chrono::milliseconds(2000));
  }

  // The handshake, bounded by the handshake timeout and naming the lane.
  Status start(const Hello& hello, std::chrono::milliseconds timeout) {
    opened_.channel->set_deadline(Clock::now() + timeout, fmt::format("the handshake within {} ms", timeout.count()));
    TIDEMARK_TRY(welcome, client_->hello(hello));
    opened_.channel->set_deadline(std::nullopt, {});
    welcome_ = std::move(welcome);
    open_ = true;
    return {};
  }
  backend::Backend& api() override { return *client_; }
  LaneReport report() const override {
    return {std::string(lane_name(lane_)), opened_.channel->sent, opened_.channel->received, ::getpid(),
            welcome_.server_pid, welcome_.knobs};
  }

 private:
  Lane lane_;
  OpenedChannel opened_;
  std::unique_ptr<WireClient> client_;
  Welcome welcome_;
  bool open_ = false;
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

Hello make_hello(const LaneOptions& options, const SessionConfig& config, std::string token) {
  Hello hello{std::move(token), config.knobs, options.mutant, config.width, config.height, config.validation};
  if (mutant_is(find_mutant(options.mutant).value_or(MutantId::None), MutantId::WireDropKnobs)) hello.knobs.clear();
  return hello;
}

}  // namespace

Result<std::string> read_session_token(const std::string& token_file, std::string_view needed_by) {
  if (token_file.empty()) {
    const char* token = std::getenv("TIDEMARK_TOKEN");
    if (!token || !*token)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: expected a session token in TIDEMARK_TOKEN or --token-file, found none", needed_by));
    return std::string(token);
  }
  std::ifstream in(token_file);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty())
    return fail(ErrorKind::BadInput, fmt::format("--token-file: expected a token on the first line of {}", token_file));
  return token;
}

std::string default_server_program() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "tidemark-server";
  return (self.parent_path() / "tidemark-server").string();
}

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const SessionConfig& config) {
  auto mutant = find_mutant(options.mutant);
  if (!mutant)
    return fail(ErrorKind::BadInput, fmt::format("mutant '{}' is not in this build's catalogue", options.mutant));
  if (options.lane == Lane::Monolith && options.record.empty()) {
    backend::Config direct;
    direct.width = config.width;
    direct.height = config.height;
    direct.knobs = backend::knobs_from(config.knobs);
    direct.validation = config.validation;
    direct.mutant = *mutant;
    direct.log = config.log;
    TIDEMARK_TRY(backend, backend::Backend::create(direct));
    return std::unique_ptr<LaneSession>(std::make_unique<DirectSession>(std::move(backend)));
  }
  // Recording needs frames: a recorded monolith run talks to an in-process session directly.
  TIDEMARK_TRY(opened, open_channel(options, config.log));
  Hello hello = make_hello(options, config, opened.token);
  if (!options.record.empty()) {
    RecordingHeader header{options.record_name, config.width, config.height, config.knobs, options.mutant};
    TIDEMARK_TRY(writer, RecordingWriter::create(options.record, header));
    opened.channel = recording_channel(std::move(opened.channel), std::move(writer));
  }
  auto session = std::make_unique<WireSession>(options.lane, std::move(opened));
  if (auto ok = session->start(hello, options.handshake_timeout); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<LaneSession>(std::move(session));
}

}  // namespace tidemark::wire
