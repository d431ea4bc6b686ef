#include "renderer/tapped_server.h"

#include <fmt/format.h>

#include <cstdlib>
#include <thread>

#include "core/process.h"
#include "renderer/driver_clock.h"
#include "tap/decoders.h"

namespace tidemark::renderer {

namespace fs = std::filesystem;

Result<std::unique_ptr<TappedServer>> TappedServer::start(const ServerSpec& spec, const fs::path& folder,
                                                          const fs::path& layer_dir, const std::string& layer_settings,
                                                          std::function<void(const ServerEnd&)> on_server_end,
                                                          std::function<void(const tap::WireEvent&)> on_event) {
  tap::DecoderFactory decoder;
  if (!spec.wire.empty()) {
    TIDEMARK_TRY(named, tap::decoder_for(spec.wire));
    decoder = std::move(named);
  }
  return start_decoded_by(std::move(decoder), spec, folder, layer_dir, layer_settings, std::move(on_server_end),
                          std::move(on_event));
}

Result<std::unique_ptr<TappedServer>> TappedServer::start_decoded_by(
    tap::DecoderFactory decoder, const ServerSpec& spec, const fs::path& folder, const fs::path& layer_dir,
    const std::string& layer_settings, std::function<void(const ServerEnd&)> on_server_end,
    std::function<void(const tap::WireEvent&)> on_event) {
  auto made = std::unique_ptr<TappedServer>(new TappedServer());
  made->on_server_end_ = std::move(on_server_end);
  made->on_event_ = std::move(on_event);
  TIDEMARK_TRY(server, RendererServer::start(spec, folder, layer_dir, layer_settings));
  made->server_.emplace(std::move(server));
  made->program_ = spec.command.front();
  if (decoder) {
    tap::TapOptions options{.on_event = [self = made.get()](const tap::WireEvent& event) { self->saw(event); },
                            .on_server_end = [self = made.get()](uint32_t) { self->server_ended(); }};
    TIDEMARK_TRY(tapped, tap::SocketTap::start(made->server_->socket().parent_path() / "tap.sock",
                                               made->server_->socket(), std::move(decoder), options));
    made->tap_.emplace(std::move(tapped));
  }
  return made;
}

TappedServer::~TappedServer() { stop_tap(); }

std::vector<std::pair<std::string, std::string>> TappedServer::client_settings(const fs::path& layer_dir,
                                                                               ClientAt at) const {
  auto settings = server_->client_settings(layer_dir, tap_ ? tap_->listen_path() : fs::path());
  std::erase_if(settings, [](const auto& setting) { return setting.first == "LD_PRELOAD"; });
  if (at == ClientAt::ThisProcess) return settings;
  // The clock first; then the redirect, when the client's path is fixed, which comes with the
  // program's own preloads; else the program's own.
  std::string preload = (layer_dir / kDriverClockLibrary).string();
  bool redirected = false;
  for (const auto& [name, value] : server_->client_settings(layer_dir))
    if (name == "LD_PRELOAD") {
      preload.append(":").append(value);
      redirected = true;
    }
  if (const char* theirs = std::getenv("LD_PRELOAD"); !redirected && theirs && *theirs)
    preload.append(":").append(theirs);
  settings.emplace_back("LD_PRELOAD", std::move(preload));
  settings.emplace_back(std::string(kDriverClockStep), fmt::format("{}", DriverClock::kStep.count()));
  return settings;
}

Status TappedServer::settle(std::chrono::milliseconds within) const {
  const auto deadline = std::chrono::steady_clock::now() + within;
  // Looked at again until it holds: a server mid-command finishes it within microseconds to
  // milliseconds (a shader compile), and nothing here depends on how long that took.
  for (uint64_t looks = 0;; ++looks) {
    if ((!tap_ || tap_->delivered_to_server()) && server_->waits_for_input()) return {};
    if (std::chrono::steady_clock::now() >= deadline)
      return fail(ErrorKind::Environment,
                  fmt::format("the renderer server {} (pid {}) did not settle within {} ms: {}",
                              server_->command_text(), server_->pid(), within.count(),
                              tap_ && !tap_->delivered_to_server() ? "its client's bytes were not all read"
                                                                   : "it never came back to wait for its client"));
    if (looks < 64)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

NamedGauges TappedServer::wire() const { return tap_ ? tap::named(tap_->gauges()) : NamedGauges{}; }

std::optional<Error> TappedServer::wire_error() const { return tap_ ? tap_->error() : std::nullopt; }

std::optional<ServerEnd> TappedServer::server_end() const {
  std::lock_guard lock(mutex_);
  return end_;
}

namespace {

// One wording for both notes; only how the server is named differs.
std::string end_note(std::string_view server, const ServerEnd& end) {
  return fmt::format("the renderer server {} ended mid-run: {}; the last wire command the tap saw: {}", server, end.how,
                     end.last_command);
}

}  // namespace

std::string ServerEnd::note() const { return end_note(fmt::format("{} (pid {})", command, pid), *this); }

std::string ServerEnd::verdict_note() const { return end_note(program, *this); }

void TappedServer::stop_tap() {
  if (tap_) tap_->stop();
}

void TappedServer::finish_tap(std::chrono::milliseconds within) {
  if (tap_) tap_->wait_closed(tap_->connections().size(), within);
  stop_tap();
}

void TappedServer::saw(const tap::WireEvent& event) {
  if (on_event_) on_event_(event);
  if (event.direction != tap::Direction::ToServer) return;
  std::lock_guard lock(mutex_);
  last_command_ = event.kind;  // named in full only if the server dies
  last_sequence_ = event.sequence;
}

void TappedServer::server_ended() {
  const std::optional<int> status = server_->ended_within(std::chrono::milliseconds(2000));
  ServerEnd end{.program = fs::path(program_).filename().string(),
                .command = server_->command_text(),
                .pid = static_cast<int>(server_->pid()),
                .how = status ? describe_wait_status(*status) : "it closed its connection and still runs",
                .wait_status = status,
                .last_command = "none"};
  {
    std::lock_guard lock(mutex_);
    if (!last_command_.empty())
      end.last_command = fmt::format("{} (command {} of the connection)", last_command_, last_sequence_);
    if (!end_) end_ = end;
  }
  if (on_server_end_) on_server_end_(end);
}

}  // namespace tidemark::renderer
