// The client side of the wire: the client API encoded into frames, over a channel.
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "wire/channel.h"
#include "wire/client.h"
#include "wire/lanes.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "core/files.h"
#include "session/session.h"
#include "wire/server.h"

namespace tidemark::wire {

namespace {

class WireSession final : public LaneSession {
 public:
  WireSession(Lane lane, OpenedChannel opened, uint32_t kill_server_at_frame)
      : lane_(lane), opened_(std::move(opened)) {
    client_ = std::make_unique<WireClient>(*opened_.channel, kill_server_at_frame);
  }
  ~WireSession() override { (void)close(); }

  // Say goodbye so a server process ends its session cleanly; a server that never greeted
  // us is simply killed (by ChildProcess).
  Status close() override {
    if (closed_) return {};
    closed_ = true;
    if (open_ && client_->goodbye() && opened_.server) opened_.server->wait_for(std::chrono::milliseconds(2000));
    open_ = false;
    TIDEMARK_CHECK(opened_.channel->close());
    if (auto frame = client_->kill_still_due())
      return fail(ErrorKind::BadInput, fmt::format("--kill-server-at-frame {}: expected a frame number the session "
                                                   "reaches, found one past its last ({} frames)",
                                                   *frame, opened_.channel->sent));
    return {};
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
  api::Device& device() override { return *client_; }
  api::Model& model() override { return *client_; }
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
  bool closed_ = false;
};

class DirectSession final : public LaneSession {
 public:
  explicit DirectSession(std::unique_ptr<session::LocalSession> session) : session_(std::move(session)) {}
  api::Device& device() override { return session_->device(); }
  api::Model& model() override { return session_->host(); }
  LaneReport report() const override {
    LaneReport report;
    report.lane = "monolith";
    report.client_pid = report.server_pid = ::getpid();
    return report;
  }

 private:
  std::unique_ptr<session::LocalSession> session_;
};

Hello make_hello(const api::SessionConfig& config, std::string token) {
  Hello hello{.token = std::move(token), .config = config};
  if (mutant_is(find_mutant(config.mutant).value_or(MutantId::None), MutantId::WireDropKnobs)) hello.config.knobs.clear();
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
  auto dir = this_executable_dir();
  if (dir.empty()) return "tidemark-server";
  return (dir / "tidemark-server").string();
}

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, api::SessionConfig config, Log log) {
  config.mutant = options.mutant;
  config.backend = options.backend.empty() ? std::string(api::kDefaultBackend) : options.backend;
  auto mutant = find_mutant(config.mutant);
  if (!mutant)
    return fail(ErrorKind::BadInput, fmt::format("mutant '{}' is not in this build's catalogue", config.mutant));
  if (!options.backends && (options.lane == Lane::Monolith || options.lane == Lane::Split))
    return fail(ErrorKind::Fatal, fmt::format("the {} lane was given no backend registry", lane_name(options.lane)));
  if (options.lane == Lane::Monolith && options.record.empty()) {
    // The knobs as given, not as a handshake would carry them (no wire to drop them here).
    TIDEMARK_TRY(knobs, resolve_knobs({&config.knobs}, "session"));
    TIDEMARK_TRY(direct, session::LocalSession::open(config, *options.backends,
                                                    {.knobs = knobs, .mutant = *mutant, .log = std::move(log)}));
    return std::unique_ptr<LaneSession>(std::make_unique<DirectSession>(std::move(direct)));
  }
  // Recording needs frames: a recorded monolith run talks to an in-process session directly.
  TIDEMARK_TRY(opened, open_channel(options, log));
  Hello hello = make_hello(config, opened.token);
  if (!options.record.empty()) {
    RecordingHeader header{options.record_name, config.width, config.height, config.knobs, config.mutant};
    TIDEMARK_TRY(writer, RecordingWriter::create(options.record, header));
    opened.channel = recording_channel(std::move(opened.channel), std::move(writer));
  }
  auto session = std::make_unique<WireSession>(options.lane, std::move(opened), options.kill_server_at_frame);
  if (auto ok = session->start(hello, options.handshake_timeout); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<LaneSession>(std::move(session));
}

}  // namespace tidemark::wire
