#include "renderer/renderer_server.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/testing/scratch.h"

namespace tidemark::renderer {
namespace {

namespace fs = std::filesystem;

// A server of Python's: listens on the socket it is given (after `delay` seconds), then writes
// its own pid and, with `fork`, a child's that sleeps, beside the socket; then sleeps.
ServerSpec python_server(bool fork, double delay = 0) {
  const std::string script = fmt::format(
      "import os, socket, sys, time\n"
      "time.sleep({})\n"
      "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()\n"
      "pids = [os.getpid()]\n"
      "if {}:\n"
      "    child = os.fork()\n"
      "    if child == 0:\n"
      "        time.sleep(600); os._exit(0)\n"
      "    pids.append(child)\n"
      "open(sys.argv[1] + '.part', 'w').write(' '.join(map(str, pids)))\n"
      "os.rename(sys.argv[1] + '.part', sys.argv[1] + '.pids')\n"
      "time.sleep(600)\n",
      delay, fork ? "True" : "False");
  return {{.command = {"python3", "-c", script, "{socket}"},
           .environment = {},
           .client_variable = "VTEST_SOCKET_NAME",
           .ready_within = std::chrono::milliseconds(20000)}};
}

class Server : public ::testing::Test {
 protected:
  static fs::path layer_dir() {
    const char* dir = std::getenv("TIDEMARK_LAYER_DIR");
    return dir ? dir : "";
  }
  std::vector<pid_t> pids_beside(const fs::path& socket) {
    // Written (whole, by a rename) after listen(): the server's readiness does not wait for it.
    for (int tries = 0; tries < 2000 && !fs::exists(socket.string() + ".pids"); ++tries) ::usleep(1000);
    std::ifstream in(socket.string() + ".pids");
    std::vector<pid_t> pids;
    for (pid_t pid; in >> pid;) pids.push_back(pid);
    return pids;
  }
  // Running: there, and not a zombie waiting for whoever reaps orphans.
  static bool alive(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return false;
    const size_t end = line.rfind(')');
    return end != std::string::npos && end + 2 < line.size() && line[end + 2] != 'Z';
  }
  const test_support::ScratchDir scratch_{"servers"};
  const fs::path dir_ = scratch_.path();
};

// Check that a server is ready once it listens (a second late), that the client is pointed at
// its socket, and that stopping it ends it and the renderer it forked, both reaped.
TEST_F(Server, IsReadyWhenItListensAndStopsWithEveryProcessItStarted) {
  auto server = RendererServer::start(python_server(true, 1.0), dir_ / "one", layer_dir(), "");
  ASSERT_TRUE(server) << server.error().message;
  EXPECT_TRUE(listening(server->socket()));
  using Settings = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(server->client_settings(layer_dir()),
            (Settings{{"VTEST_SOCKET_NAME", (dir_ / "one/server.sock").string()}}));
  const auto pids = pids_beside(server->socket());
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_EQ(pids[0], server->pid());
  auto gathered = server->stop(std::chrono::milliseconds(2000));
  ASSERT_TRUE(gathered) << gathered.error().message;
  EXPECT_TRUE(gathered->processes.empty());  // Python makes no Vulkan device: the layer never loads
  EXPECT_TRUE(WIFSIGNALED(server->wait_status()));
  EXPECT_FALSE(alive(pids[1]));  // the forked renderer went with its group
}

// A server of Python's that listens, then does `then` (Python statements, `s` the listening socket).
ServerSpec python_server_that(const std::string& then) {
  return {{.command = {"python3", "-c",
                       "import select, socket, sys\n"
                       "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()\n" +
                           then + "\n",
                       "{socket}"},
           .client_variable = "VTEST_SOCKET_NAME"}};
}

// Check that a server blocked in select() for its clients waits for input, and that one that
// computes does not (a session's model steps wait for the first, never for the second).
TEST_F(Server, WaitsForInputOnlyWhileBlockedWaitingForItsClients) {
  auto waiting =
      RendererServer::start(python_server_that("select.select([s], [], [])"), dir_ / "waiting", layer_dir(), "");
  ASSERT_TRUE(waiting) << waiting.error().message;
  // It listens before it calls select(): looked at until it is there, within a patience.
  bool waits = false;
  for (int looks = 0; looks < 10000 && !waits; ++looks) {
    waits = waiting->waits_for_input();
    if (!waits) ::usleep(1000);
  }
  EXPECT_TRUE(waits);
  auto busy = RendererServer::start(python_server_that("while True: pass"), dir_ / "busy", layer_dir(), "");
  ASSERT_TRUE(busy) << busy.error().message;
  for (int looks = 0; looks < 100; ++looks) EXPECT_FALSE(busy->waits_for_input());
  // One that has ended, not yet reaped, does nothing more.
  auto ended =
      RendererServer::start(python_server_that("import os; s.accept(); os._exit(0)"), dir_ / "ended", layer_dir(), "");
  ASSERT_TRUE(ended) << ended.error().message;
  UniqueFd client(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));  // its one client: it ends once accepted
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, ended->socket().c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::connect(client.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  bool gone = false;
  for (int looks = 0; looks < 10000 && !gone; ++looks) {
    std::ifstream stat("/proc/" + std::to_string(ended->pid()) + "/stat");
    std::string line;
    gone = !std::getline(stat, line) || line.find(") Z") != std::string::npos;
    if (!gone) ::usleep(1000);
  }
  ASSERT_TRUE(gone);
  EXPECT_TRUE(ended->waits_for_input());
}

// Check that a socket path holding spaces (a report folder a user named so) is seen listening.
TEST_F(Server, AFolderWithSpacesInItsPathIsSeenListening) {
  auto server = RendererServer::start(python_server(false), dir_ / "a report folder", layer_dir(), "");
  ASSERT_TRUE(server) << server.error().message;
  EXPECT_TRUE(listening(dir_ / "a report folder" / kSocketName));
  EXPECT_FALSE(listening(dir_ / "a report folder" / "other.sock"));
}

// Check that a server value that goes without stop() takes its whole group with it: a run that
// fails never leaves a server behind.
TEST_F(Server, AServerLeftBehindIsKilledWithItsGroup) {
  std::vector<pid_t> pids;
  {
    auto server = RendererServer::start(python_server(true), dir_ / "left", layer_dir(), "");
    ASSERT_TRUE(server) << server.error().message;
    pids = pids_beside(server->socket());
  }
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_FALSE(alive(pids[0]));
  EXPECT_FALSE(alive(pids[1]));  // killed with its group (not ours to reap: whoever reaps orphans does)
}

// Check the ways a server fails to start: it ends first (its exit and its last words named), it
// never listens within the bound, its command is not there, its socket path is too long.
TEST_F(Server, AServerThatDoesNotListenIsAnErrorNamingWhy) {
  ServerSpec ends{
      {.command = {"sh", "-c", "echo 'no EGL device' >&2; exit 3"}, .environment = {}, .client_variable = "X"}};
  auto ended = RendererServer::start(ends, dir_ / "ends", layer_dir(), "");
  ASSERT_FALSE(ended);
  EXPECT_EQ(ended.error().kind, ErrorKind::Environment);
  EXPECT_NE(ended.error().message.find("server 'sh' exited with status 3 before it listened on"), std::string::npos)
      << ended.error().message;
  EXPECT_NE(ended.error().message.find("it said 'no EGL device'"), std::string::npos) << ended.error().message;

  ServerSpec silent{{.command = {"sleep", "600"},
                     .environment = {},
                     .client_variable = "X",
                     .ready_within = std::chrono::milliseconds(300)}};
  auto never = RendererServer::start(silent, dir_ / "never", layer_dir(), "");
  ASSERT_FALSE(never);
  EXPECT_NE(never.error().message.find("did not listen on " + (dir_ / "never/server.sock").string() + " within 300 ms"),
            std::string::npos)
      << never.error().message;

  ServerSpec missing{{.command = {"no-such-renderer-server"}, .environment = {}, .client_variable = "X"}};
  auto absent = RendererServer::start(missing, dir_ / "absent", layer_dir(), "");
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().message.find("cannot start 'no-such-renderer-server'"), std::string::npos);

  auto long_path = RendererServer::start(python_server(false), dir_ / std::string(120, 'x'), layer_dir(), "");
  ASSERT_FALSE(long_path);
  EXPECT_EQ(long_path.error().kind, ErrorKind::BadInput);
}

// Check the environment a build's server runs in: the client's driver variables cleared (its
// virpipe, its libraries), its host build's set, then the server's own; a host build the file
// lacks is bad input at load, at the place naming it.
TEST_F(Server, ABuildsServerRunsOnItsHostBuildNotOnTheClients) {
  fs::create_directories(dir_ / "client/lib");
  fs::create_directories(dir_ / "host/lib");
  std::ofstream(dir_ / "drivers.yaml")
      << "- name: host\n  library_path: [host/lib]\n  identity: {gl_renderer: '^zink'}\n"
         "- name: client\n  library_path: [client/lib]\n  environment: {GALLIUM_DRIVER: virpipe}\n"
         "  server:\n    command: [virgl_test_server, '--socket-path={socket}']\n"
         "    environment: {GALLIUM_DRIVER: zink}\n    build: host\n    client_variable: VTEST_SOCKET_NAME\n"
         "  identity: {gl_renderer: '^virgl'}\n";
  auto builds = drivers::load_driver_builds(dir_ / "drivers.yaml");
  ASSERT_TRUE(builds) << builds.error().message;
  const std::vector<std::string> current = {"HOME=/root", "GALLIUM_DRIVER=virpipe",
                                            "LD_LIBRARY_PATH=" + (dir_ / "client/lib").string()};
  auto spec = server_of(*builds, *builds->find("client"), current);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_TRUE(spec->beneath);
  using Setting = std::pair<std::string, std::string>;
  const auto environment = settings_of(environment_of(*spec));
  auto has = [&](const Setting& setting) {
    return std::find(environment.begin(), environment.end(), setting) != environment.end();
  };
  EXPECT_TRUE(has({"HOME", "/root"}));
  EXPECT_TRUE(has({"LD_LIBRARY_PATH", (dir_ / "host/lib").string()}));
  EXPECT_FALSE(has({"LD_LIBRARY_PATH", (dir_ / "client/lib").string()}));
  EXPECT_FALSE(has({"GALLIUM_DRIVER", "virpipe"}));
  EXPECT_EQ(environment.back(), Setting("GALLIUM_DRIVER", "zink"));
  EXPECT_EQ(spec->client_variable, "VTEST_SOCKET_NAME");

  std::ofstream(dir_ / "lacking.yaml")
      << "- name: client\n  server:\n    command: ['{socket}']\n    build: gone\n    client_variable: V\n"
         "  identity: {gl_renderer: x}\n";
  auto refused = drivers::load_driver_builds(dir_ / "lacking.yaml");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
  EXPECT_NE(refused.error().message.find("lacking.yaml:4:12: expected the build the server renders with"),
            std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace tidemark::renderer
