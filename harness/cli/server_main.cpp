// tidemark-server: the server side of the spawn and tcp lanes.
//   tidemark-server --fd 3                      one session on an inherited socket (spawn)
//   tidemark-server --listen 127.0.0.1:0        sessions on loopback (tcp), each in its own
//                                               process; prints "listening on 127.0.0.1:<port>"
// The tcp token comes from --token-file or TIDEMARK_TOKEN, never the command line.
// Exit codes: 0 done, 2 bad arguments, 4 I/O error.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "core/process.h"
#include "core/process_memory.h"
#include "layer/link.h"
#include "session/builtin_backends.h"
#include "session/session.h"
#include "wire/posix.h"
#include "wire/server.h"
#include "wire/version_text.h"

namespace {

using namespace tidemark;

void log_line(const std::string& line) { fmt::print(stderr, "tidemark-server[{}]: {}\n", ::getpid(), line); }

int listen_and_serve(const std::string& endpoint_text, const std::string& token_file, int sessions,
                     uint64_t stop_after_frames) {
  auto token = wire::read_session_token(token_file, "--listen");
  if (!token) {
    log_line(token.error().message);
    return 2;
  }
  auto endpoint = wire::parse_endpoint(endpoint_text);
  if (!endpoint) {
    log_line("--listen: " + endpoint.error().message);
    return 2;
  }
  auto listener = wire::tcp_listen(endpoint->first, endpoint->second);
  if (!listener) {
    log_line(listener.error().message);
    return listener.error().kind == ErrorKind::BadInput ? 2 : 4;
  }
  auto port = wire::local_port(listener->get());
  if (!port) {
    log_line(port.error().message);
    return 4;
  }
  fmt::print("listening on {}:{}\n", endpoint->first, *port);
  std::fflush(stdout);
  wire::ServerOptions options{.token = *token,
                              .log = log_line,
                              .open_session = session::session_factory(session::builtin_backends()),
                              .stop_after_frames = stop_after_frames};
  auto served = wire::serve_tcp_sessions(listener->get(), options, sessions);
  if (!served) {
    log_line(served.error().message);
    return 4;
  }
  // A server for a number of sessions (a run's own) whose session crashed dies as that session did:
  // its client names the signal of the server it started (a crash, not a server that finished).
  if (sessions > 0 && *served) die_by_signal(WTERMSIG(**served));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tidemark::fix_heap_thresholds();       // before the first allocation that could move them
  tidemark::adopt_orphans();             // what a renderer server leaves running is ended, not left to init
  tidemark::layer::make_discoverable();  // before any thread: a session may put the layer beneath its device
  CLI::App app{"tidemark-server: the server side of Tidemark's spawn and tcp lanes", "tidemark-server"};
  app.set_version_flag("--version", tidemark::wire::version_text("tidemark-server"));
  int fd = -1;
  std::string listen;
  std::string token_file;
  int sessions = 0;
  auto* fd_option = app.add_option("--fd", fd, "serve one session on this inherited socket");
  auto* listen_option = app.add_option("--listen", listen, "serve sessions on HOST:PORT (loopback only)");
  fd_option->excludes(listen_option);
  app.add_option("--token-file", token_file, "tcp: file whose first line is the session token");
  app.add_option("--sessions", sessions, "tcp: exit after this many sessions (0: serve for ever)");
  uint64_t stop_after_frames = 0;
  app.add_option("--stop-after-frames", stop_after_frames,
                 "fault injection: a session stops itself (SIGSTOP) after this many frames");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return app.exit(error) == 0 ? 0 : 2;
  }
  // A session that exhausts memory or meets a library's exception ends with a line and exit
  // 4, never an abort: the client then reports how its server ended.
  try {
    if (fd >= 0) {
      UniqueFd connection(fd);
      log_line(wire::serve_connection(
          connection.get(), wire::ServerOptions{.log = log_line,
                                                .open_session = session::session_factory(session::builtin_backends()),
                                                .stop_after_frames = stop_after_frames}));
      return 0;
    }
    if (!listen.empty()) return listen_and_serve(listen, token_file, sessions, stop_after_frames);
  } catch (const std::bad_alloc&) {
    log_line("out of memory");
    return 4;
  } catch (const std::exception& exception) {
    log_line(std::string("internal error: ") + exception.what());
    return 4;
  }
  log_line("expected --fd N or --listen HOST:PORT");
  return 2;
}
