#include "renderer/renderer_session.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/testing/sockets.h"
#include "host/model_host.h"
#include "layer/kernel_channel.h"

namespace tidemark::renderer {
namespace {

namespace fs = std::filesystem;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A renderer of Python's: one client; to each line it answers whether the kernel channel its
// environment names is a socket that exists ("1\n"), else "0\n".
ServerSpec channel_reporting_server() {
  return {{.command = {"python3", "-c",
                       "import os, socket, stat, sys\n"
                       "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen()\n"
                       "c, _ = s.accept()\n"
                       "channel = os.environ.get('TIDEMARK_KERNEL_CHANNEL', '')\n"
                       "ok = bool(channel) and os.path.exists(channel) and stat.S_ISSOCK(os.stat(channel).st_mode)\n"
                       "for line in c.makefile('rb'):\n"
                       "    c.sendall(b'1\\n' if ok else b'0\\n')\n",
                       "{socket}"},
           .client_variable = "VTEST_SOCKET_NAME"}};
}

// Check that a renderer session starts its server with the kernel channel's address in the
// server's environment, points this process's client at the server, and, when it goes, unsets
// what it set, stops the server, removes its folder and logs how the server ended.
TEST(RendererSession, PointsTheClientAtItsServerAndUndoesAllOfItWhenItGoes) {
  ASSERT_EQ(std::getenv("VTEST_SOCKET_NAME"), nullptr);
  host::ModelHost host(api::ModelConfig{}, MutantId::None);
  std::vector<std::string> logged;
  fs::path client_socket;
  {
    auto session = RendererSession::start(channel_reporting_server(), TidemarkLayerSettings{}, host,
                                          [&](const std::string& line) { logged.push_back(line); });
    ASSERT_TRUE(session) << session.error().message;
    const char* pointed = std::getenv("VTEST_SOCKET_NAME");
    ASSERT_NE(pointed, nullptr);
    client_socket = pointed;
    EXPECT_EQ(client_socket, (*session)->server().socket());
    const UniqueFd client = test_support::connect_to(client_socket);
    test_support::write_all(client.get(), "CHANNEL?\n");
    EXPECT_EQ(test_support::read_exactly(client.get(), 2), "1\n");  // the server can reach the session's model
    EXPECT_THAT((*session)->described(),
                HasSubstr(fmt::format("(pid {})", static_cast<int>((*session)->server().pid()))));
  }
  EXPECT_EQ(std::getenv("VTEST_SOCKET_NAME"), nullptr);
  EXPECT_FALSE(fs::exists(client_socket.parent_path()));
  EXPECT_THAT(logged, Contains(StartsWith("server: python3 ")));
  EXPECT_THAT(logged, Contains("server: the kernel channel answered 0 questions"));
  EXPECT_THAT(logged, Contains(HasSubstr("listening on " + client_socket.string())));
}

}  // namespace
}  // namespace tidemark::renderer
