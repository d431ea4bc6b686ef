// A lane's session: the session itself (monolith) or the wire's client over the lane's channel.
#include "lanes/lanes.h"

#include <unistd.h>

#include <fmt/format.h>

#include "core/files.h"
#include "core/mutants.h"
#include "lanes/channels.h"
#include "session/session.h"
#include "wire/client.h"
#include "wire/codec.h"
#include "wire/messages.h"
#include "wire/recording.h"

namespace tidemark::lanes {

using wire::Hello;

namespace {

class WireSession final : public LaneSession {
 public:
  WireSession(Lane lane, OpenedChannel opened, uint32_t kill_server_at_frame)
      : lane_(lane), opened_(std::move(opened)) {
    client_ = std::make_unique<wire::WireClient>(*opened_.channel, kill_server_at_frame);
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
    opened_.channel->set_deadline(wire::Clock::now() + timeout,
                                  fmt::format("the handshake within {} ms", timeout.count()));
    TIDEMARK_TRY(welcome, client_->hello(hello));
    opened_.channel->set_deadline(std::nullopt, {});
    welcome_ = std::move(welcome);
    open_ = true;
    return {};
  }
  api::Device& device() override { return *client_; }
  api::Model& model() override { return *client_; }
  LaneTraffic report() const override {
    return {std::string(lane_name(lane_)), opened_.channel->sent, opened_.channel->received, ::getpid(),
            welcome_.server_pid,           welcome_.knobs};
  }
  std::optional<ProcessDeath> server_death() const override { return opened_.channel->server_death(); }

 private:
  Lane lane_;
  OpenedChannel opened_;
  std::unique_ptr<wire::WireClient> client_;
  wire::Welcome welcome_;
  bool open_ = false;
  bool closed_ = false;
};

class DirectSession final : public LaneSession {
 public:
  explicit DirectSession(std::unique_ptr<api::Session> session) : session_(std::move(session)) {}
  api::Device& device() override { return session_->device(); }
  api::Model& model() override { return session_->model(); }
  LaneTraffic report() const override {
    LaneTraffic report;
    report.name = "monolith";
    report.client_pid = report.server_pid = ::getpid();
    return report;
  }

 private:
  std::unique_ptr<api::Session> session_;
};

Hello make_hello(const api::SessionConfig& config, MutantId mutant, std::string token) {
  Hello hello{.token = std::move(token), .config = config};
  if (mutant_is(mutant, MutantId::WireDropKnobs)) hello.config.knobs.clear();
  return hello;
}

// The session over the lane's channel: `config`'s names in the handshake, the mutant already resolved.
Result<std::unique_ptr<LaneSession>> open_wire_lane(const LaneOptions& options, const api::SessionConfig& config,
                                                    MutantId mutant, Log log) {
  TIDEMARK_TRY(opened, open_channel(options, log));
  Hello hello = make_hello(config, mutant, opened.token);
  if (!options.record.empty()) {
    wire::RecordingHeader header{options.record_name, config.width, config.height, config.knobs, config.mutant};
    TIDEMARK_TRY(writer, wire::RecordingWriter::create(options.record, header));
    opened.channel = wire::recording_channel(std::move(opened.channel), std::move(writer));
  }
  auto session = std::make_unique<WireSession>(options.lane, std::move(opened), options.kill_server_at_frame);
  if (auto ok = session->start(hello, options.handshake_timeout); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<LaneSession>(std::move(session));
}

Status check_has_registry(const LaneOptions& options) {
  if (!options.backends && (options.lane == Lane::Monolith || options.lane == Lane::Split))
    return fail(ErrorKind::Fatal, fmt::format("the {} lane was given no backend registry", lane_name(options.lane)));
  return {};
}

// Whether the lane is the session itself, in this process: a recorded run needs frames, so it
// talks to an in-process session over the wire's codec.
bool is_direct(const LaneOptions& options) { return options.lane == Lane::Monolith && options.record.empty(); }

Result<std::unique_ptr<LaneSession>> direct_lane(api::OpenResult opened) {
  if (!opened) return std::unexpected(std::move(opened.error().error));
  return std::unique_ptr<LaneSession>(std::make_unique<DirectSession>(std::move(*opened)));
}

}  // namespace

std::string default_server_program() {
  auto dir = this_executable_dir();
  if (dir.empty()) return "tidemark-server";
  return (dir / "tidemark-server").string();
}

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const session::ResolvedConfig& resolved,
                                               Log log) {
  TIDEMARK_CHECK(check_has_registry(options));
  // The knobs as given, not as a handshake would carry them (no wire to drop them here).
  if (is_direct(options)) return direct_lane(session::open_session(resolved, *options.backends, std::move(log)));
  return open_wire_lane(options, resolved.config, resolved.mutant, std::move(log));
}

Result<std::unique_ptr<LaneSession>> open_lane(const LaneOptions& options, const api::SessionConfig& config, Log log) {
  TIDEMARK_CHECK(check_has_registry(options));
  if (is_direct(options)) return direct_lane(session::open_session(config, *options.backends, std::move(log)));
  return open_wire_lane(options, config, find_mutant(config.mutant).value_or(MutantId::None), std::move(log));
}

}  // namespace tidemark::lanes
