#include "lanes/channels.h"

#include <unistd.h>

#include <fmt/format.h>

#include <random>
#include <utility>
#include <vector>

#include "drivers/driver_builds.h"
#include "layer/tidemark_layer.h"
#include "session/session.h"
#include "wire/server.h"

namespace tidemark::lanes {

namespace {

std::string random_token() {
  std::random_device random;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", random(), random(), random(), random());
}

// What a server child keeps of our environment: the loader's and sanitizers' settings, and the
// temporary folder (where a driver's renderer server gets its own). Knobs are deliberately
// absent: they travel in the handshake.
const std::vector<std::string> kServerEnvironment = {
    "PATH",          "HOME",          "TMPDIR",           "LD_LIBRARY_PATH", "LD_PRELOAD",    "ASAN_OPTIONS",
    "UBSAN_OPTIONS", "LSAN_OPTIONS",  "VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_LAYER_PATH", "VK_ADD_LAYER_PATH",
    "XDG_DATA_DIRS", "LP_NUM_THREADS"};

Result<ChildProcess> spawn_server(const LaneOptions& options, std::vector<std::string> args, int pass_fd,
                                  std::vector<std::pair<std::string, std::string>> set_env) {
  ChildProcess::Options child;
  child.program = options.server_program.empty() ? default_server_program() : options.server_program;
  child.args = std::move(args);
  child.keep_env = kServerEnvironment;
  // Where an isolated run's bounds read the layer's calls in the server (layer/tidemark_layer.h).
  child.keep_env.push_back(TIDEMARK_LAYER_ACTIVITY_VARIABLE);
  // A run on a driver build: the server is the same build, and checks the driver against it too.
  for (const auto& name : drivers::driver_variables()) child.keep_env.push_back(name);
  if (auto build = drivers::active_build(); build && *build)
    for (const auto& [name, value] : (*build)->environment) child.keep_env.push_back(name);
  child.set_env = std::move(set_env);
  child.pass_fd = pass_fd;
  child.capture_stdout = pass_fd < 0;
  child.stderr_path = options.server_log;
  child.keep_last = kLogKept;
  if (::access(child.program.c_str(), X_OK) != 0)
    return fail(ErrorKind::Environment, fmt::format("no server program at {} (build tidemark-server)", child.program));
  return ChildProcess::spawn(child);
}

// The server session of an in-process lane: the config's backend from the lane's registry.
wire::ServerOptions in_process_server(const LaneOptions& options, Log log) {
  wire::ServerOptions server{.token = "", .log = std::move(log)};
  if (options.backends) server.open_session = session::session_factory(*options.backends);
  return server;
}

}  // namespace

Result<OpenedChannel> open_channel(const LaneOptions& options, Log log) {
  OpenedChannel opened;
  switch (options.lane) {
    case Lane::Monolith:
      opened.channel = wire::direct_channel(in_process_server(options, std::move(log)));
      return opened;
    case Lane::Split:
      opened.channel = wire::in_process_channel(in_process_server(options, std::move(log)));
      return opened;
    case Lane::Spawn: {
      TIDEMARK_TRY(pair, wire::socket_pair());
      TIDEMARK_TRY(server, spawn_server(options, {"--fd", "3"}, pair.second.get(), {}));
      pair.second.reset();  // the child holds its end: EOF on ours now means the child is gone
      opened.server = std::make_unique<ChildProcess>(std::move(server));
      opened.channel = wire::socket_channel("spawn", std::move(pair.first), opened.server.get(), options.reply_timeout,
                                            options.server_log);
      return opened;
    }
    case Lane::Tcp:
      break;
  }
  if (!options.connect.empty()) {
    TIDEMARK_TRY(endpoint, wire::parse_endpoint(options.connect));
    TIDEMARK_TRY(fd, wire::tcp_connect(endpoint.first, endpoint.second));
    opened.channel = wire::socket_channel("tcp", std::move(fd), nullptr, options.reply_timeout);
    opened.token = options.token;
    return opened;
  }
  // A private server on a port the kernel picks: parallel tests never clash.
  opened.token = random_token();
  TIDEMARK_TRY(server, spawn_server(options, {"--listen", "127.0.0.1:0", "--sessions", "1"}, -1,
                                    {{"TIDEMARK_TOKEN", opened.token}}));
  opened.server = std::make_unique<ChildProcess>(std::move(server));
  auto line = opened.server->read_line(wire::Clock::now() + options.handshake_timeout);
  if (!line)
    return fail(ErrorKind::Fatal,
                fmt::format("the tcp server (pid {}) did not report its port within {} ms: {}", opened.server->pid(),
                            options.handshake_timeout.count(), line.error().message));
  auto at = line->rfind(' ');
  TIDEMARK_TRY(endpoint, wire::parse_endpoint(line->substr(at == std::string::npos ? 0 : at + 1)));
  TIDEMARK_TRY(fd, wire::tcp_connect(endpoint.first, endpoint.second));
  opened.channel =
      wire::socket_channel("tcp", std::move(fd), opened.server.get(), options.reply_timeout, options.server_log);
  return opened;
}

}  // namespace tidemark::lanes
