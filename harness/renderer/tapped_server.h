// A renderer server with the tap (tap/socket_tap.h) in front when its drivers-file entry names its
// driver protocol: the one wiring of a server, its tap and the note of its end, for a session's
// client in Tidemark's process (renderer_session.h) and an observed program's (renderer::observe).
// When the server ends its side while the client still talks, the tap hears it first: the note
// names the server's exit or signal and the last command the tap saw.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/gauges.h"
#include "renderer/renderer_server.h"
#include "tap/socket_tap.h"

namespace tidemark::renderer {

// Where the server's client runs, which decides what points it at the tap and reads the driver's
// clock (driver_clock.h): linked into tidemark and tidemark-server for a client in their own
// process, preloaded into a program's.
enum class ClientAt { ThisProcess, OwnProcess };

// A server that ended its side while its client still talked to it.
struct ServerEnd {
  std::string program;  // its command's program: "virgl_test_server"
  std::string command;  // its whole command line
  int pid = 0;
  std::string how;                 // "exited with status 70", "killed by signal 9 (SIGKILL)", or that it still runs
  std::optional<int> wait_status;  // what `how` says, when it ended
  std::string last_command;        // "VCMD_RESOURCE_CREATE2 (command 963 of the connection)", or "none"
  // "the renderer server COMMAND (pid P) ended mid-run: HOW; the last wire command the tap saw: LAST"
  std::string note() const;
  // The same naming the server by its program alone, without what changes from run to run (its
  // socket's path, its pid): for a verdict, which a ledger and a comparison of runs read.
  std::string verdict_note() const;
};

class TappedServer {
 public:
  // Starts the server as RendererServer::start does and, when `spec.wire` names a protocol, the
  // tap at `folder`/tap.sock. `on_server_end` hears of the server's end mid-run (on the tap's
  // thread, before the client is shown the end); `on_event` hears each wire event as the tap
  // decodes it (on the tap's thread, under its lock: it must not call back into the tap). Errors:
  // the server's, a protocol no decoder has (BadInput), the tap's socket (Environment).
  static Result<std::unique_ptr<TappedServer>> start(const ServerSpec& spec, const std::filesystem::path& folder,
                                                     const std::filesystem::path& layer_dir,
                                                     const std::string& layer_settings,
                                                     std::function<void(const ServerEnd&)> on_server_end = {},
                                                     std::function<void(const tap::WireEvent&)> on_event = {});
  // The same with `decoder` reading the wire, whatever `spec.wire` names (a test's decoder).
  static Result<std::unique_ptr<TappedServer>> start_decoded_by(
      tap::DecoderFactory decoder, const ServerSpec& spec, const std::filesystem::path& folder,
      const std::filesystem::path& layer_dir, const std::string& layer_settings,
      std::function<void(const ServerEnd&)> on_server_end = {},
      std::function<void(const tap::WireEvent&)> on_event = {});
  ~TappedServer();  // the tap stopped, then the server's group killed and reaped
  TappedServer(const TappedServer&) = delete;
  TappedServer& operator=(const TappedServer&) = delete;

  RendererServer& server() { return *server_; }
  const RendererServer& server() const { return *server_; }
  bool tapped() const { return tap_.has_value(); }

  // What the client's environment needs to reach the server through the tap and, for a client in
  // a process of its own, to read the driver's clock: the clock's library (from `layer_dir`, beside
  // the layer) preloaded before the socket's redirect and LD_PRELOAD's own. For a client in this
  // process, no LD_PRELOAD: both are linked in.
  std::vector<std::pair<std::string, std::string>> client_settings(const std::filesystem::path& layer_dir,
                                                                   ClientAt at) const;

  // Returns once the server has settled: every byte its client wrote so far read by it, and its
  // process waiting for more (RendererServer::waits_for_input); what it does then depends only on
  // what the client writes next. A session steps its kernel model only then, so that the server's
  // questions on the kernel channel and the session's own steps reach the model in one order on
  // every run. Without a tap only the server's process is looked at. Error (Environment): not
  // settled within `within`, naming the server's last call.
  Status settle(std::chrono::milliseconds within) const;
  // The tap's gauges by the catalogue's names (tap::named); empty without a tap.
  NamedGauges wire() const;
  std::optional<Error> wire_error() const;
  // The server's end mid-run, once the tap has seen one.
  std::optional<ServerEnd> server_end() const;
  // Stops the tap (its connections closed: the server sees its client gone). Idempotent; its
  // gauges stay readable.
  void stop_tap();
  // Once the client's process has ended: waits up to `within` for each connection to end both
  // ways (the client's last bytes forwarded, the server's end seen), so that a stop never cuts
  // off what the client sent; then stops the tap.
  void finish_tap(std::chrono::milliseconds within);

 private:
  TappedServer() = default;
  void saw(const tap::WireEvent& event);
  void server_ended();

  std::optional<RendererServer> server_;
  std::optional<tap::SocketTap> tap_;  // after the server: it goes first
  std::string program_;                // the server's command's program
  std::function<void(const ServerEnd&)> on_server_end_;
  std::function<void(const tap::WireEvent&)> on_event_;
  mutable std::mutex mutex_;
  std::string last_command_;
  uint64_t last_sequence_ = 0;
  std::optional<ServerEnd> end_;
};

}  // namespace tidemark::renderer
