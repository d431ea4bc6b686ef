#include "renderer/renderer_server.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <set>
#include <sstream>

#include "core/files.h"
#include "renderer/tapped_server.h"

namespace tidemark::renderer {

namespace fs = std::filesystem;

namespace {

// The last lines of a log, for a message: what the server said before it ended.
std::string tail_of(const fs::path& log) {
  std::string out;
  for (const auto& line : last_lines(log, 3)) out += (out.empty() ? "" : " | ") + line;
  return out.empty() ? "nothing" : "'" + out + "'";
}

}  // namespace

Result<ServerSpec> server_of(const drivers::DriverBuilds& builds, const drivers::DriverBuild& build,
                             const std::vector<std::string>& current) {
  if (!build.server) return fail(ErrorKind::BadInput, fmt::format("driver build '{}' names no server", build.name));
  ServerSpec spec{*build.server};
  const drivers::DriverServer& server = spec;
  // The client's build left, and the host build entered (the system's driver when it names none).
  const ProcessEnvironment kept = drivers::environment_without(build, current);
  const drivers::DriverBuild* host = server.build.empty() ? nullptr : builds.find(server.build);
  if (!server.build.empty() && !host)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected the server's build among {}'s builds, found '{}'",
                            format_location(server.build_where), builds.file.string(), server.build));
  spec.beneath = host ? drivers::environment_for(builds, *host, kept) : kept;
  return spec;
}

ProcessEnvironment environment_of(const ServerSpec& spec) {
  return with_settings(spec.beneath ? *spec.beneath : this_environment(), spec.environment);
}

Result<std::optional<ServerSpec>> active_server() {
  TIDEMARK_TRY(active, drivers::active_build());
  if (!active || !active->server) return std::optional<ServerSpec>();
  TIDEMARK_TRY(builds, drivers::load_driver_builds(active->where.file));
  TIDEMARK_TRY(spec, server_of(builds, *active, this_environment()));
  return std::optional(std::move(spec));
}

Result<observe::Observation> observe(observe::Options options) {
  TIDEMARK_TRY(spec, active_server());
  return observe(std::move(options), spec);
}

Result<observe::Observation> observe(observe::Options options, const std::optional<ServerSpec>& spec,
                                     const fs::path& server_folder) {
  if (!spec) return observe::observe(options);
  // The report's server folder is this command's own: a report observed into before had one.
  const fs::path folder = server_folder.empty() ? options.report / "server" : server_folder;
  std::error_code ec;
  fs::remove_all(folder, ec);
  // The program's client reaches the server through the tap, when the entry names its wire, and
  // reads the driver's clock, as a session's client does.
  TIDEMARK_TRY(served, TappedServer::start(*spec, folder, options.layer_dir, options.settings));
  for (auto& setting : served->client_settings(options.layer_dir, ClientAt::OwnProcess))
    options.environment.push_back(std::move(setting));
  options.watched_beside = folder / "layer";  // a hang beneath the server's driver stops its calls
  options.beside = [&served](bool cut_short) {
    // The program has ended: its connections end, and its server by itself; unless it was killed
    // at a bound, which holds whatever they do (a server that never reads, nor ends).
    if (cut_short) {
      served->stop_tap();
      return served->server().stop(std::chrono::milliseconds(1000));
    }
    served->finish_tap(std::chrono::milliseconds(10000));
    return served->server().stop();
  };
  TIDEMARK_TRY(observation, observe::observe(options));
  if (served->tapped()) observation.wire = served->wire();
  if (auto end = served->server_end()) observation.server_ended = end->verdict_note();
  return observation;
}

bool listening(const fs::path& path) {
  // Columns: Num RefCount Protocol Flags Type St Inode [Path]; a listening socket's flags hold
  // __SO_ACCEPTCON (0x10000).
  std::ifstream table("/proc/net/unix");
  std::string line;
  std::getline(table, line);  // the heading
  const std::string wanted = path.string();
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string num, refs, protocol, flags, type, state, inode, named;
    if (!(fields >> num >> refs >> protocol >> flags >> type >> state >> inode)) continue;
    std::getline(fields >> std::ws, named);  // the rest of the line: a path may hold spaces
    if (named == wanted && (std::stoul(flags, nullptr, 16) & 0x10000u) != 0) return true;
  }
  return false;
}

Result<RendererServer> RendererServer::start(const ServerSpec& spec, const fs::path& folder, const fs::path& layer_dir,
                                             const std::string& layer_settings) {
  if (spec.command.empty()) return fail(ErrorKind::BadInput, "server: expected a command, found none");
  RendererServer server;
  server.folder_ = fs::absolute(folder).lexically_normal();
  server.socket_ = server.folder_ / kSocketName;
  server.log_ = server.folder_ / "server.log";
  server.layer_folder_ = server.folder_ / "layer";
  server.client_variable_ = spec.client_variable;
  server.client_socket_ = spec.client_socket;
  if (spec.client_variable.empty() == spec.client_socket.empty())
    return fail(ErrorKind::BadInput, "server: expected one of a client variable or a client socket path");
  if (server.socket_.string().size() >= sizeof(sockaddr_un::sun_path))
    return fail(ErrorKind::BadInput,
                fmt::format("server: expected a socket path under {} bytes, found {} ({})",
                            sizeof(sockaddr_un::sun_path), server.socket_.string().size(), server.socket_.string()));
  TIDEMARK_CHECK(make_directories(server.layer_folder_));
  std::error_code ec;
  if (fs::exists(server.socket_, ec))
    return fail(ErrorKind::BadInput,
                fmt::format("server: {} is there already: a folder holds one server", server.socket_.string()));
  std::vector<std::string> arguments;
  for (std::string argument : std::vector<std::string>(spec.command.begin() + 1, spec.command.end())) {
    for (size_t at = argument.find("{socket}"); at != std::string::npos; at = argument.find("{socket}", at))
      argument.replace(at, 8, server.socket_.string());
    arguments.push_back(std::move(argument));
  }
  // The layer goes beneath the layers the server's own environment names.
  const ProcessEnvironment beneath = environment_of(spec);
  const ProcessEnvironment environment =
      with_settings(beneath, observe::layer_environment(layer_dir, server.layer_folder_, layer_settings, "", beneath));
  TIDEMARK_TRY(process, ChildProcess::spawn({.program = spec.command.front(),
                                             .args = arguments,
                                             .inherit_env = false,
                                             .keep_env = {},
                                             .set_env = settings_of(environment),
                                             .stderr_path = server.log_.string(),
                                             .stdout_too = true,
                                             .truncate = true,
                                             .own_group = true,
                                             .dies_with_parent = true,
                                             .keep_last = kLogKept}));
  server.process_ = std::move(process);
  server.command_text_ = spec.command.front();
  for (const auto& argument : arguments) server.command_text_ += " " + argument;
  // Ready when it listens: looked at each time the server's own end is waited for, briefly, so
  // that a server that ends is seen at once and one that never listens within the bound.
  const auto deadline = std::chrono::steady_clock::now() + spec.ready_within;
  while (!listening(server.socket_)) {
    if (auto ended = server.process_.wait_for(std::chrono::milliseconds(10)))
      return fail(ErrorKind::Environment,
                  fmt::format("server '{}' {} before it listened on {}; it said {}", spec.command.front(),
                              describe_wait_status(*ended), server.socket_.string(), tail_of(server.log_)));
    if (std::chrono::steady_clock::now() >= deadline)
      return fail(ErrorKind::Environment,
                  fmt::format("server '{}' did not listen on {} within {} ms; it said {}", spec.command.front(),
                              server.socket_.string(), spec.ready_within.count(), tail_of(server.log_)));
  }
  return server;
}

std::vector<std::pair<std::string, std::string>> RendererServer::client_settings(const fs::path& layer_dir,
                                                                                 const fs::path& via) const {
  const std::string socket = via.empty() ? socket_.string() : via.string();
  if (!client_variable_.empty()) return {{client_variable_, socket}};
  std::string preload = (layer_dir / kSocketRedirect).string();
  if (const char* theirs = std::getenv("LD_PRELOAD"); theirs && *theirs) preload.append(":").append(theirs);
  return {{"LD_PRELOAD", preload}, {"TIDEMARK_SOCKET_FROM", client_socket_}, {"TIDEMARK_SOCKET_TO", socket}};
}

int RendererServer::end_connections_here() const {
  int ended = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/self/fd", ec)) {
    const int fd = std::atoi(entry.path().filename().c_str());
    sockaddr_un peer{};
    socklen_t length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0 || peer.sun_family != AF_UNIX) continue;
    const size_t path_length = ::strnlen(peer.sun_path, length - offsetof(sockaddr_un, sun_path));
    if (std::string_view(peer.sun_path, path_length) != socket_.string()) continue;
    if (::shutdown(fd, SHUT_RDWR) == 0) ++ended;
  }
  return ended;
}

namespace {

// The calls a server's loop blocks in while it waits for its clients (/proc/PID/syscall names the
// call a blocked task is in; "running" when it runs).
bool waits_in_a_poll(long call) {
  static const std::set<long> polls = {
#ifdef SYS_select
      SYS_select,
#endif
#ifdef SYS_poll
      SYS_poll,
#endif
#ifdef SYS_epoll_wait
      SYS_epoll_wait,
#endif
      SYS_pselect6,   SYS_ppoll, SYS_epoll_pwait,
  };
  return polls.contains(call);
}

}  // namespace

bool RendererServer::waits_for_input() const {
  // Ended (gone, or a zombie not yet reaped, whose syscall file reads -1): it does nothing more.
  std::ifstream stat(fmt::format("/proc/{}/stat", process_.pid()));
  std::string line;
  if (!std::getline(stat, line)) return true;
  if (const size_t end = line.rfind(')'); end != std::string::npos && end + 2 < line.size() && line[end + 2] == 'Z')
    return true;
  std::ifstream file(fmt::format("/proc/{}/syscall", process_.pid()));
  std::string first;
  if (!(file >> first)) return true;
  if (first == "running") return false;
  char* end = nullptr;
  const long call = std::strtol(first.c_str(), &end, 10);
  return end != first.c_str() && waits_in_a_poll(call);
}

std::optional<int> RendererServer::ended() { return process_.wait_for(std::chrono::milliseconds(0)); }

Result<observe::Gathered> RendererServer::stop(std::chrono::milliseconds grace) {
  // A server of one client ends by itself once its client has gone, its records written whole
  // (virgl_test_server --no-loop-or-fork): it is given the grace to, then SIGTERM, then SIGKILL.
  std::optional<int> ended = process_.wait_for(grace);
  if (!ended) {
    process_.kill(SIGTERM);
    ended = process_.wait_for(grace);
  }
  if (!ended) {
    process_.kill(SIGKILL);
    ended = process_.wait();
  }
  wait_status_ = *ended;
  // What of its group outlived it (a renderer that ignored SIGTERM) goes, its end seen before its
  // records are read.
  if (!process_.end_group(grace))
    return fail(ErrorKind::Environment, fmt::format("server group {}: a process of it still runs {} ms after SIGKILL",
                                                    process_.pid(), grace.count()));
  return observe::gather(layer_folder_, static_cast<uint32_t>(process_.pid()));
}

}  // namespace tidemark::renderer
