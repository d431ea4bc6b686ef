// The tap between Mesa's virpipe client (25.0.7's, which names its socket, and Debian 12's 22.3.6,
// redirected by the socket-redirect library) and virgl_test_server on Zink, the layer beneath it.
// Each client runs straight to the server and through the tap: the tap must change nothing
// (VkBuffer counts, the pixels' hash) and its gauges must agree with the server's own record.
// Needs the variables harness/tap/CMakeLists.txt sets; TIDEMARK_TAP_ROUNDS overrides the rounds.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "core/process.h"
#include "core/testing/scratch.h"
#include "drivers/driver_builds.h"
#include "renderer/renderer_server.h"
#include "tap/socket_tap.h"
#include "tap/vtest_decoder.h"

namespace tidemark::tap {
namespace {

namespace fs = std::filesystem;

std::string variable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string rounds() {
  const std::string set = variable("TIDEMARK_TAP_ROUNDS");
  return set.empty() ? "200" : set;
}

// A client build of a drivers file (its server named there) and the file.
struct Stack {
  std::string build;
  fs::path drivers_file;
};

std::vector<std::string> current_environment() {
  std::vector<std::string> current;
  for (char** entry = environ; *entry != nullptr; ++entry) current.emplace_back(*entry);
  return current;
}

std::vector<std::pair<std::string, std::string>> as_pairs(const std::vector<std::string>& entries) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const std::string& entry : entries)
    if (const size_t equals = entry.find('='); equals != std::string::npos)
      pairs.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
  return pairs;
}

struct Run {
  std::string printed;  // gl-respecify's line: the renderer and the hash of its pixels
  int64_t vkbufspk = 0, vkbufsmade = 0;
  std::optional<WireGauges> wire;  // through the tap
  const VtestDecoder* decoder = nullptr;
  uint32_t version = 0;  // the protocol version the server answered
  fs::path saved;
};

// One run of gl-respecify on `stack` (both sides as its drivers file composes them, Tidemark's
// own recipe) against a fresh server in `dir`, through a tap or not. The server saves every byte
// it reads from its client (VTEST_SAVE: virglrenderer's vtest_block_read appends each read).
void run_stack(const Stack& stack, const fs::path& dir, bool tapped, Run& run) {
  fs::remove_all(dir);
  run.saved = dir.parent_path() / (dir.filename().string() + ".client-stream");
  fs::remove(run.saved);
  auto builds = drivers::load_driver_builds(stack.drivers_file);
  ASSERT_TRUE(builds) << builds.error().message;
  const drivers::DriverBuild* build = builds->find(stack.build);
  ASSERT_NE(build, nullptr) << stack.build << " in " << stack.drivers_file;
  auto spec = renderer::server_of(*builds, *build, current_environment());
  ASSERT_TRUE(spec) << spec.error().message;
  spec->environment.emplace_back("VTEST_SAVE", run.saved.string());
  const std::string layer_dir = variable("TIDEMARK_LAYER_DIR");
  auto server = renderer::RendererServer::start(*spec, dir, layer_dir, "");
  ASSERT_TRUE(server) << server.error().message;
  std::optional<SocketTap> tap;
  if (tapped) {
    auto started = SocketTap::start(dir / "tap.sock", server->socket(), [&decoder = run.decoder] {
      auto made = std::make_unique<VtestDecoder>();
      decoder = made.get();  // read once its connection has closed: the tap is done with it
      return made;
    });
    ASSERT_TRUE(started) << started.error().message;
    tap.emplace(std::move(*started));
  }
  // The client as the build runs it, pointed at the server's socket or, tapped, at the tap's.
  ChildProcess::Options client{.program = variable("TIDEMARK_GL_RESPECIFY"),
                               .args = {"--rounds", rounds(), "--size", "256"},
                               .set_env = as_pairs(drivers::environment_for(*builds, *build, current_environment())),
                               .stderr_path = (dir / "client.log").string(),
                               .stdout_too = true,
                               .truncate = true};
  // Without a shader cache of the client's: a cold one and a warm one send the server different
  // streams (Mesa 25.0.7's first run on a machine made 2 VkBuffers more beneath the server).
  client.set_env.emplace_back("MESA_SHADER_CACHE_DISABLE", "true");
  for (auto [name, value] : server->client_settings(layer_dir))
    client.set_env.emplace_back(name, tap && value == server->socket().string() ? tap->listen_path().string() : value);
  auto child = ChildProcess::spawn(client);
  ASSERT_TRUE(child) << child.error().message;
  const int status = child->wait();
  std::ifstream printed(dir / "client.log");
  run.printed.assign(std::istreambuf_iterator<char>(printed), {});
  ASSERT_EQ(exit_code_of(status), 0) << run.printed;
  auto gathered = server->stop();
  ASSERT_TRUE(gathered) << gathered.error().message;
  for (const auto& process : gathered->processes) {
    run.vkbufspk = std::max(run.vkbufspk, process.observed.vkbufspk);
    run.vkbufsmade += process.observed.vkbufsmade;
  }
  if (tap) {
    // The server has ended, having read its client's end: the tap, which forwards nothing before
    // decoding it, has seen every byte; the connection's close is awaited for its finish().
    ASSERT_TRUE(tap->wait_closed(1, std::chrono::milliseconds(10000)));
    ASSERT_FALSE(tap->error()) << tap->error()->message;
    EXPECT_EQ(tap->connections().size(), 1u);
    run.wire = tap->gauges();
    run.version = run.decoder->protocol_version();
  }
}

// The server's own record of its client's stream, walked by the server's rules for how much each
// command reads (vtest_renderer.c), which this count shares nothing with the tap's decoder for:
// CREATE_RENDERER's length counts bytes, TRANSFER_PUT reads 11 dwords and its data's bytes,
// TRANSFER_PUT2 10 dwords whatever its length says, any other command its length's dwords. A
// create (VCMD_RESOURCE_CREATE 2, CREATE2 12, CREATE_BLOB 18) makes a resource and an UNREF (3)
// ends one; the client waits for each create's reply before it names the resource, so the
// stream's order is the order of lives.
struct Walked {
  uint64_t bytes = 0;
  std::map<uint32_t, uint64_t> by_id;
  int64_t alive = 0, peak = 0;
  uint64_t created = 0, destroyed = 0;
};

Walked walk(const fs::path& saved) {
  std::ifstream file(saved, std::ios::binary);
  const std::string stream((std::istreambuf_iterator<char>(file)), {});
  Walked walked{.bytes = stream.size()};
  auto dword = [&](size_t at) {
    uint32_t value = 0;
    if (at + 4 <= stream.size()) std::memcpy(&value, stream.data() + at, 4);
    return value;
  };
  for (size_t at = 0; at + 8 <= stream.size();) {
    const uint32_t length = dword(at), id = dword(at + 4);
    at += 8;
    ++walked.by_id[id];
    if (id == 8)
      at += length;
    else if (id == 5)
      at += 44 + dword(at + 40);
    else if (id == 14)
      at += 40;
    else
      at += size_t{length} * 4;
    if (id == 2 || id == 12 || id == 18) {
      ++walked.created;
      walked.peak = std::max(walked.peak, ++walked.alive);
    } else if (id == 3) {
      ++walked.destroyed;
      --walked.alive;
    }
  }
  return walked;
}

void print(const std::string& client, const WireGauges& wire) {
  std::printf(
      "%s through the tap, %s rounds: resources %lld at the peak across the wire (%llu created, %llu "
      "destroyed); %llu bytes to the server, %llu to the client; %llu fds to the client, %llu to the server; "
      "%llu commands, %llu replies\n",
      client.c_str(), rounds().c_str(), static_cast<long long>(wire.wire_resources_peak),
      static_cast<unsigned long long>(wire.wire_resources_created),
      static_cast<unsigned long long>(wire.wire_resources_destroyed),
      static_cast<unsigned long long>(wire.wire_bytes_to_server),
      static_cast<unsigned long long>(wire.wire_bytes_to_client),
      static_cast<unsigned long long>(wire.wire_fds_to_client),
      static_cast<unsigned long long>(wire.wire_fds_to_server), static_cast<unsigned long long>(wire.wire_commands),
      static_cast<unsigned long long>(wire.wire_replies));
  for (const auto& [kind, count] : wire.wire_commands_by_kind)
    std::printf("  %-28s %llu\n", kind.c_str(), static_cast<unsigned long long>(count));
}

void tap_changes_nothing_and_counts_the_wire(const std::string& name, const Stack& stack) {
  ASSERT_FALSE(variable("TIDEMARK_GL_RESPECIFY").empty() || variable("TIDEMARK_LAYER_DIR").empty())
      << "harness/tap/CMakeLists.txt sets TIDEMARK_GL_RESPECIFY and TIDEMARK_LAYER_DIR";
  const test_support::ScratchDir scratch("tap-" + name);
  const fs::path root = scratch.path();
  Run straight, tapped;
  ASSERT_NO_FATAL_FAILURE(run_stack(stack, root / "straight", false, straight));
  ASSERT_NO_FATAL_FAILURE(run_stack(stack, root / "tapped", true, tapped));

  // Nothing changed: the same pixels, the same VkBuffers beneath the server.
  EXPECT_EQ(tapped.printed, straight.printed);
  EXPECT_EQ(tapped.vkbufspk, straight.vkbufspk);
  EXPECT_EQ(tapped.vkbufsmade, straight.vkbufsmade);
  EXPECT_GT(straight.vkbufspk, 0);

  // The tap's figures are the server's own record's.
  const WireGauges& wire = *tapped.wire;
  const Walked walked = walk(tapped.saved);
  EXPECT_EQ(wire.wire_bytes_to_server, walked.bytes);
  EXPECT_EQ(wire.wire_resources_created, walked.created);
  EXPECT_EQ(wire.wire_resources_destroyed, walked.destroyed);
  EXPECT_EQ(wire.wire_resources_peak, walked.peak);
  EXPECT_GT(walked.created, 0u);
  std::map<std::string, uint64_t, std::less<>> by_kind;
  for (const auto& [id, count] : walked.by_id) by_kind[vtest_command_name(id)] = count;
  EXPECT_EQ(wire.wire_commands_by_kind, by_kind);
  EXPECT_GT(wire.wire_fds_to_client, 0u);  // the shared memory of each resource's storage
  EXPECT_EQ(wire.wire_fds_to_server, 0u);
  // Debian's virgl_test_server 0.10.4 answers version 2 (built without virglrenderer's unstable
  // APIs, which version 3 needs): the client names its resources, and a create with storage is
  // answered by the storage's fd alone, with no header.
  EXPECT_EQ(tapped.version, 2u);
  print(name, wire);
  std::printf("protocol version %u\n", tapped.version);
  std::printf("the server's renderer: VkBuffers %lld at the peak, %lld made through the tap; %lld and %lld without\n",
              static_cast<long long>(tapped.vkbufspk), static_cast<long long>(tapped.vkbufsmade),
              static_cast<long long>(straight.vkbufspk), static_cast<long long>(straight.vkbufsmade));
}

// Mesa 25.0.7's client names its socket (VTEST_SOCKET_NAME): scripts/driver-prefix's build.
TEST(VirglTap, Mesa25ThroughTheTapChangesNothingAndCountsTheWire) {
  ASSERT_FALSE(variable("TIDEMARK_MESA_PREFIX").empty()) << "harness/tap/CMakeLists.txt sets TIDEMARK_MESA_PREFIX";
  tap_changes_nothing_and_counts_the_wire(
      "mesa-25.0.7", {"virgl-zink-25.0.7", fs::path(variable("TIDEMARK_MESA_PREFIX")) / "driver.yaml"});
}

// Debian 12's 22.3.6 client connects to /tmp/.virgl_test, redirected to the run's socket.
TEST(VirglTap, Debian22ThroughTheTapChangesNothingAndCountsTheWire) {
  ASSERT_FALSE(variable("TIDEMARK_DRIVERS_YAML").empty()) << "harness/tap/CMakeLists.txt sets TIDEMARK_DRIVERS_YAML";
  tap_changes_nothing_and_counts_the_wire("mesa-22.3.6", {"virgl-zink-22.3.6", variable("TIDEMARK_DRIVERS_YAML")});
}

}  // namespace
}  // namespace tidemark::tap
