#include "renderer/tapped_server.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/process.h"
#include "core/testing/scratch.h"
#include "core/testing/sockets.h"

namespace tidemark::renderer {
namespace {

namespace fs = std::filesystem;
using test_support::ScratchDir;
using ::testing::HasSubstr;

// A driver protocol of lines: the client's each a command named by its upper-case letters, the
// server's each a reply. A line of anything else is a stream it cannot follow.
class LineDecoder final : public tap::WireDecoder {
 public:
  Status feed(tap::Direction direction, std::span<const std::byte> bytes, size_t fds) override {
    std::string& line = partial_[static_cast<int>(direction)];
    for (const std::byte byte : bytes) {
      const char c = static_cast<char>(byte);
      if (c != '\n') {
        line += c;
        continue;
      }
      if (line.empty() || !std::all_of(line.begin(), line.end(), [](char l) { return std::isupper(l); }))
        return fail(ErrorKind::BadInput,
                    "expected an upper-case command, found a line of " + std::to_string(line.size()) + " other bytes");
      events_.push_back({.sequence = sequence_++, .direction = direction, .kind = line, .fds = uint32_t(fds)});
      if (direction == tap::Direction::ToServer) {
        ++gauges_.wire_commands;
        ++gauges_.wire_commands_by_kind[line];
      } else {
        ++gauges_.wire_replies;
      }
      line.clear();
    }
    return {};
  }
  Status finish() override { return {}; }
  const tap::WireGauges& gauges() const override { return gauges_; }
  std::vector<tap::WireEvent> take_events() override { return std::exchange(events_, {}); }

 private:
  std::string partial_[2];
  uint64_t sequence_ = 0;
  tap::WireGauges gauges_;
  std::vector<tap::WireEvent> events_;
};

// A renderer of Python's for the line protocol: one client, an OK for each line, and on DIE an
// exit with status 70 before any answer.
ServerSpec line_server() {
  return {{.command = {"python3", "-c",
                       "import os, socket, sys\n"
                       "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()\n"
                       "c, _ = s.accept()\n"
                       "for line in c.makefile('rb'):\n"
                       "    if line == b'DIE\\n': os._exit(70)\n"
                       "    c.sendall(b'OK\\n')\n",
                       "{socket}"},
           .client_variable = "VTEST_SOCKET_NAME"}};
}

fs::path layer_dir() {
  const char* dir = std::getenv("TIDEMARK_LAYER_DIR");
  return dir ? dir : "";
}

// The client, connected where the tapped server's settings point it.
UniqueFd client_of(const TappedServer& server) {
  for (const auto& [name, value] : server.client_settings(layer_dir(), ClientAt::ThisProcess))
    if (name == "VTEST_SOCKET_NAME") return test_support::connect_to(value);
  ADD_FAILURE() << "the client is not pointed at the tap";
  return UniqueFd();
}

// Writes `line` and reads what comes back until `expected` bytes arrived or the stream ended.
std::string ask(int fd, std::string_view line, size_t expected) {
  test_support::write_all(fd, line);
  return test_support::read_exactly(fd, expected);
}

// A gauge of `wire` by name; -1 when it has none.
int64_t gauge(const NamedGauges& wire, std::string_view name) {
  auto found = std::find_if(wire.begin(), wire.end(), [&](const auto& named) { return named.first == name; });
  return found == wire.end() ? -1 : found->second;
}

struct Heard {
  std::mutex mutex;
  std::vector<std::string> events;  // "client->server CREATE #0"
  std::vector<ServerEnd> ends;
};

Result<std::unique_ptr<TappedServer>> start_line_server(const fs::path& folder, Heard& heard) {
  return TappedServer::start_decoded_by(
      [] { return std::make_unique<LineDecoder>(); }, line_server(), folder, layer_dir(), "",
      [&](const ServerEnd& end) {
        std::lock_guard lock(heard.mutex);
        heard.ends.push_back(end);
      },
      [&](const tap::WireEvent& event) {
        std::lock_guard lock(heard.mutex);
        heard.events.push_back(
            fmt::format("{} {} #{}", tap::direction_name(event.direction), event.kind, event.sequence));
      });
}

// Check that the tapped server records each command and reply that crossed its wire, counts
// them as wire gauges, and, when the renderer dies mid-run, names its end and the last command
// the tap saw before the client sees the connection end.
TEST(TappedServer, RecordsWhatCrossedAndNamesTheLastCommandWhenTheRendererDies) {
  const ScratchDir dir("tapped");
  Heard heard;
  auto server = start_line_server(dir / "server", heard);
  ASSERT_TRUE(server) << server.error().message;
  ASSERT_TRUE((*server)->tapped());
  const UniqueFd client = client_of(**server);
  EXPECT_EQ(ask(client.get(), "CREATE\n", 3), "OK\n");
  EXPECT_EQ(ask(client.get(), "SUBMIT\n", 3), "OK\n");
  EXPECT_EQ(ask(client.get(), "DIE\n", 1), "");  // the renderer's end reaches the client last
  {
    std::lock_guard lock(heard.mutex);
    EXPECT_EQ(heard.events,
              (std::vector<std::string>{"client->server CREATE #0", "server->client OK #1", "client->server SUBMIT #2",
                                        "server->client OK #3", "client->server DIE #4"}));
    ASSERT_EQ(heard.ends.size(), 1u);
    EXPECT_EQ(heard.ends[0].verdict_note(),
              "the renderer server python3 ended mid-run: exited with status 70; the last wire command the tap "
              "saw: DIE (command 4 of the connection)");
  }
  const std::optional<ServerEnd> end = (*server)->server_end();
  ASSERT_TRUE(end);
  EXPECT_EQ(end->pid, static_cast<int>((*server)->server().pid()));
  EXPECT_THAT(end->note(), HasSubstr(fmt::format("(pid {}) ended mid-run", end->pid)));
  const NamedGauges wire = (*server)->wire();
  EXPECT_EQ(gauge(wire, "wirecmds"), 3);
  EXPECT_EQ(gauge(wire, "wirecmd_create"), 1);
  EXPECT_EQ(gauge(wire, "wirecmd_die"), 1);
  EXPECT_EQ(gauge(wire, "wirebytesout"), 18);  // every byte of the three commands
  EXPECT_EQ(gauge(wire, "wirebytesin"), 6);
  EXPECT_FALSE((*server)->wire_error());
}

// Check that a stream its decoder cannot follow stops the decoding, not the wire: what the
// client sends next still reaches the renderer and is answered, and the error is named.
TEST(TappedServer, SurvivesGarbageItsDecoderCannotFollow) {
  const ScratchDir dir("tapped");
  Heard heard;
  auto server = start_line_server(dir / "server", heard);
  ASSERT_TRUE(server) << server.error().message;
  const UniqueFd client = client_of(**server);
  EXPECT_EQ(ask(client.get(), std::string("\x01\xff junk\n", 8), 3), "OK\n");
  EXPECT_EQ(ask(client.get(), "CREATE\n", 3), "OK\n");
  const std::optional<Error> error = (*server)->wire_error();
  ASSERT_TRUE(error);
  EXPECT_THAT(error->message, HasSubstr("expected an upper-case command, found a line of 7 other bytes"));
  EXPECT_FALSE((*server)->server_end().has_value());        // the renderer runs on
  EXPECT_EQ(gauge((*server)->wire(), "wirebytesout"), 15);  // forwarded past the error too
  EXPECT_EQ(gauge((*server)->wire(), "wirecmds"), 0);
  std::lock_guard lock(heard.mutex);
  EXPECT_TRUE(heard.events.empty());
  EXPECT_TRUE(heard.ends.empty());
}

}  // namespace
}  // namespace tidemark::renderer
