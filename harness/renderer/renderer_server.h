// A driver's renderer server (virgl_test_server behind Mesa's virpipe, or a team's own), started for
// one run with the Tidemark layer beneath its Vulkan device, in a folder of its own (socket, log,
// records). Ready once its socket listens in /proc/net/unix: a probe connection would be taken for
// a client. It leads a process group and dies with the thread that started it.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/process.h"
#include "core/temporaries.h"  // TemporaryFolder: a server's folder, short and removed on every exit
#include "drivers/driver_builds.h"
#include "observe/observe.h"

namespace tidemark::renderer {

// A server to start: its drivers-file entry (drivers::DriverServer, the one spelling of a server
// entry) and the environment it starts in beneath the entry's own: its host build's, the client's
// left, as server_of resolves it; none: Tidemark's own (a test's server).
struct ServerSpec : drivers::DriverServer {
  std::optional<ProcessEnvironment> beneath;
};

// The folder's socket file name: short, as a Unix socket's path is at most 107 bytes.
inline constexpr std::string_view kSocketName = "server.sock";
// The library, beside the layer, that redirects a client's connect() from its fixed path
// (drivers::DriverServer::client_socket).
inline constexpr std::string_view kSocketRedirect = "libtidemark_socket_redirect.so";

class RendererServer {
 public:
  // Starts the server in `folder` (made; it must not hold a socket already) with the layer of
  // `layer_dir` beneath it under `layer_settings`, and waits until it listens. Errors: the
  // command cannot start (Environment), it ended or did not listen within the bound
  // (Environment, with the end of its log), the socket path is too long (BadInput).
  static Result<RendererServer> start(const ServerSpec& spec, const std::filesystem::path& folder,
                                      const std::filesystem::path& layer_dir, const std::string& layer_settings);

  RendererServer(RendererServer&&) noexcept = default;
  RendererServer& operator=(RendererServer&&) noexcept = default;
  ~RendererServer() = default;  // the process value kills and reaps the group

  const std::filesystem::path& socket() const { return socket_; }
  const std::filesystem::path& layer_folder() const { return layer_folder_; }  // the layer's process folders
  pid_t pid() const { return process_.pid(); }
  // What the client's environment needs to reach this server (or `via`, a tap in front of it):
  // its variable naming the socket, or the redirect (from the layer's folder `layer_dir`)
  // preloaded, before LD_PRELOAD's own.
  std::vector<std::pair<std::string, std::string>> client_settings(const std::filesystem::path& layer_dir,
                                                                   const std::filesystem::path& via = {}) const;

  // Shuts down this process's connections to the server, found by their peer's address: a client
  // in this process that keeps its socket once its display is gone (Mesa's virgl winsys closes
  // it only at exit) would keep a server of one client waiting. Returns how many.
  int end_connections_here() const;

  // Stops the server (its own end awaited for `grace`, as a server of one client ends when its
  // client has gone; then SIGTERM to its group; SIGKILL after another `grace`), reaps it and every
  // process of its group, and gathers the layer's records of them. Its wait status is kept. The
  // grace is long: a server SIGTERMed mid-teardown on a loaded machine left no records (a replay's
  // end state read 1 512 VkBuffers instead of 0), and one that ends by itself ends in milliseconds.
  Result<observe::Gathered> stop(std::chrono::milliseconds grace = std::chrono::milliseconds(10000));
  int wait_status() const { return wait_status_; }
  // Its processes' gauges and Vulkan driver now, from the layer's status files (a moment's
  // reading: take it after a round trip with the server, when it waits for its client).
  observe::StatusNow status() const { return observe::read_status(layer_folder_); }
  // Whether its process is blocked waiting for input (in select, poll or the like), or has ended:
  // with nothing unread on its sockets it then does nothing until a client writes. Read from
  // /proc/PID/syscall, which names the call a blocked process is in.
  bool waits_for_input() const;
  // Its wait status if it has ended (looked at without waiting), reaped then; the run it served
  // is then judged with the server's end named.
  std::optional<int> ended();
  // The same, waiting up to `within` for it to end.
  std::optional<int> ended_within(std::chrono::milliseconds within) { return process_.wait_for(within); }
  std::string command_text() const { return command_text_; }
  const std::filesystem::path& log() const { return log_; }

 private:
  RendererServer() = default;
  ChildProcess process_;
  std::filesystem::path folder_, socket_, log_, layer_folder_;
  std::string client_variable_, client_socket_, command_text_;
  int wait_status_ = 0;
};

// The server of driver build `build` (of `builds`), run from a process whose environment is
// `current`: beneath its own environment, every driver variable the client's build owns cleared,
// then the host build's settings (its `build:`, of the same file) or none (the system's driver).
// A host build the file lacks is bad input at the server's place.
Result<ServerSpec> server_of(const drivers::DriverBuilds& builds, const drivers::DriverBuild& build,
                             const std::vector<std::string>& current);

// The environment `spec` starts in, beneath the layer: its entry's over what it starts beneath.
ProcessEnvironment environment_of(const ServerSpec& spec);

// The server of the build this process runs under (drivers::active_build), if it names one.
Result<std::optional<ServerSpec>> active_server();

// observe() of a program whose driver talks to a server: on a build with a server, the server
// started in `options.report`/server with the layer beneath it (the observation's settings),
// the program pointed at its socket through the tap when the entry names its wire (the
// observation's wire gauges and the note of the server's end mid-run: tapped_server.h), its
// driver's clock Tidemark's (driver_clock.h), and the server's processes (stopped once the
// program ended) observed beside the program's; on any other, observe::observe.
Result<observe::Observation> observe(observe::Options options);
// The same with the server `spec` (none: observe::observe), for a program on a build other than
// the one this process runs under (a capture's replay on a column's build), started in
// `server_folder` when one is given (a short path: a report folder may be too deep for a socket's).
Result<observe::Observation> observe(observe::Options options, const std::optional<ServerSpec>& spec,
                                     const std::filesystem::path& server_folder = {});

// Whether a Unix socket is listening at `path` now (/proc/net/unix).
bool listening(const std::filesystem::path& path);

}  // namespace tidemark::renderer
