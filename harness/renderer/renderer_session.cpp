#include "renderer/renderer_session.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>

#include "host/layer_sink.h"
#include "layer/kernel_channel.h"
#include "layer/link.h"
#include "observe/crash_notes.h"

namespace tidemark::renderer {

namespace {

// The session's folder (TemporaryFolder) holds the server's socket, the tap's and the kernel channel's.
constexpr std::string_view kSessionFolder = "server";

// The note of a server that ends mid-run is said at once on stderr (the lane's server log): a
// client that loses its server may abort the process that holds it (Mesa's vtest winsys does):
// the parent of an isolated run hears of it too, whose child that is (observe/crash_notes.h).
void say_server_end(const ServerEnd& end) {
  std::fprintf(stderr, "tidemark: %s\n", end.note().c_str());
  std::fflush(stderr);
  crash_notes::note_server_end(end.pid, end.wait_status, end.last_command);
}

}  // namespace

Status RendererSession::room_for_sockets() { return TemporaryFolder::room_for(kSessionFolder, kKernelChannelName); }

Result<std::unique_ptr<RendererSession>> RendererSession::start(const ServerSpec& given,
                                                                const TidemarkLayerSettings& settings,
                                                                host::HostEvents& host, Log log) {
  TIDEMARK_TRY(folder, TemporaryFolder::make(kSessionFolder));
  auto made = std::unique_ptr<RendererSession>(new RendererSession(std::move(folder), std::move(log)));
  // The server's layer asks the session's kernel model live, as a hosted layer does through its
  // sink: the kernel driver's queues answer its submits and waits as they happen.
  TIDEMARK_TRY(channel,
               KernelChannelServer::start(made->folder_.path() / kKernelChannelName, host::layer_sink(host, false)));
  made->channel_ = std::move(channel);
  ServerSpec spec = given;
  spec.environment.emplace_back(layer::kKernelChannelVariable, made->channel_->path().string());
  made->records_ = std::make_unique<ServerRecords>(
      spec.command.empty() ? std::string("renderer server")
                           : std::filesystem::path(spec.command.front()).filename().string(),
      spec.wire, made->folder_.path() / "wire-events.spill");
  TidemarkLayerSettings server_settings = settings;
  server_settings.unbuffered_events = 1;  // its records are fed at each read-back
  TIDEMARK_TRY(served, TappedServer::start(spec, made->folder_.path(), layer::layer_dir(),
                                           layer::format_settings(server_settings), say_server_end,
                                           [records = made->records_.get()](const tap::WireEvent& event) {
                                             records->saw(event);
                                             crash_notes::note_wire(event.kind, event.sequence);
                                           }));
  made->served_ = std::move(served);
  made->clock_.emplace();
  for (const auto& [name, value] : made->served_->client_settings(layer::layer_dir(), ClientAt::ThisProcess)) {
    made->set_.push_back(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  if (made->log_)
    made->log_(fmt::format("server: {} (pid {}) listening on {}", made->server().command_text(), made->server().pid(),
                           made->server().socket().string()));
  return made;
}

void RendererSession::report_to(host::HostThread& host) {
  host.observe_from([server = &server()] { return server->status().gauges; });
  host.wire_from([served = served_.get()] { return served->wire(); });
  host.read_back_from([this](host::ModelHost& model) { return records_->feed(model, server().layer_folder()); });
  host.settle_with([served = served_.get()] { return served->settle(kSettleWithin); });
}

std::string RendererSession::described() const {
  return fmt::format("{} (pid {})", served_->server().command_text(), served_->server().pid());
}

RendererSession::~RendererSession() {
  for (const auto& name : set_) ::unsetenv(name.c_str());
  if (served_ && served_->tapped()) {
    served_->stop_tap();
    if (log_) {
      std::string line;
      for (const auto& [name, value] : served_->wire()) line += fmt::format(" {}={}", name, value);
      log_("wire:" + line);
      if (auto error = served_->wire_error()) log_("wire: " + error->message);
    }
  }
  if (log_ && clock_) log_(fmt::format("server: the client read its clock {} times", clock_->readings()));
  if (log_ && channel_) log_(fmt::format("server: the kernel channel answered {} questions", channel_->questions()));
  clock_.reset();
  if (served_) {
    server().end_connections_here();
    auto gathered = server().stop();
    if (log_) log_end(gathered);
    served_.reset();
  }
}

void RendererSession::log_end(const Result<observe::Gathered>& gathered) {
  log_(fmt::format("server: {} ({})", server().command_text(), describe_wait_status(server().wait_status())));
  if (!gathered) log_("server: its records: " + gathered.error().message);
  for (const auto& process : gathered ? gathered->processes : std::vector<observe::Process>{})
    log_(fmt::format(
        "server: pid {} {} ({}): {} devices; VkBuffers {} at the peak, {} made; {} submits; {} bytes of device memory "
        "at the peak",
        process.pid, process.executable, observe::name_of(process.kind), process.devices, process.observed.vkbufspk,
        process.observed.vkbufsmade, process.observed.vksubmits, process.observed.vkbytespk));
}

}  // namespace tidemark::renderer
