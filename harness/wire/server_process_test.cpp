// tidemark-server as a real process on loopback, facing hostile clients.
#include <gtest/gtest.h>

#include "wire/posix.h"
#include "wire/protocol.h"

namespace tidemark::wire {
namespace {

constexpr const char* kToken = "hostile-client-test-token";

class TcpServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ChildProcess::Options options;
    options.program = TIDEMARK_SERVER_PROGRAM;
    options.args = {"--listen", "127.0.0.1:0"};
    options.keep_env = {"PATH", "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "VK_ICD_FILENAMES"};
    options.set_env = {{"TIDEMARK_TOKEN", kToken}};
    options.capture_stdout = true;
    options.stderr_path = ::testing::TempDir() + "/tidemark-server-hostile.log";
    auto child = ChildProcess::spawn(options);
    ASSERT_TRUE(child) << child.error().message;
    server_ = std::move(*child);
    auto line = server_.read_line(Clock::now() + std::chrono::seconds(20));
    ASSERT_TRUE(line) << line.error().message;
    auto endpoint = parse_endpoint(line->substr(line->rfind(' ') + 1));
    ASSERT_TRUE(endpoint) << *line;
    port_ = endpoint->second;
  }

  UniqueFd connect() {
    auto fd = tcp_connect("127.0.0.1", port_);
    EXPECT_TRUE(fd) << fd.error().message;
    return fd ? std::move(*fd) : UniqueFd();
  }

  // The server's answer to what was sent: a frame, or nullopt when it just hung up.
  std::optional<Frame> answer(int fd) {
    std::array<uint8_t, kHeaderBytes> header_bytes;
    if (!read_exact(fd, header_bytes, Clock::now() + std::chrono::seconds(20))) return std::nullopt;
    auto header = decode_header(header_bytes);
    if (!header) return std::nullopt;
    Frame frame{header->op, header->sequence, std::vector<uint8_t>(header->length)};
    if (!read_exact(fd, frame.payload, Clock::now() + std::chrono::seconds(20))) return std::nullopt;
    return frame;
  }

  // A good session still works: the server survived whatever came before.
  void expect_a_good_session() {
    UniqueFd fd = connect();
    Frame hello{Opcode::Hello, 1, encode_hello(Hello{kToken, {{"wire_deferred_mb", 8}}, "", 8, 8, false})};
    ASSERT_TRUE(write_all(fd.get(), encode(hello)));
    auto welcome = answer(fd.get());
    ASSERT_TRUE(welcome);
    ASSERT_EQ(welcome->op, Opcode::Welcome);
    auto decoded = decode_welcome(welcome->payload);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->knobs.at("wire_deferred_mb"), 8);
    EXPECT_EQ(decoded->server_pid, server_.pid());
    ASSERT_TRUE(write_all(fd.get(), encode(Frame{Opcode::Goodbye, 2, {}})));
    auto bye = answer(fd.get());
    ASSERT_TRUE(bye);
    EXPECT_EQ(bye->op, Opcode::Ok);
  }

  ChildProcess server_;
  uint16_t port_ = 0;
};

// Check that garbage instead of a header is refused with a protocol error, and the
// server goes on serving.
TEST_F(TcpServer, GarbageIsRefusedAndTheServerGoesOn) {
  {
    UniqueFd fd = connect();
    std::vector<uint8_t> garbage(64, 0xab);
    ASSERT_TRUE(write_all(fd.get(), garbage));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->op, Opcode::ProtocolError);
  }
  expect_a_good_session();
}

// Check that an oversized length, an unknown opcode and a truncated frame each end only
// their own session.
TEST_F(TcpServer, OversizedUnknownAndTruncatedFramesEndOnlyTheirSession) {
  {
    UniqueFd fd = connect();
    auto header = encode(Frame{Opcode::Hello, 1, {}});
    header[11] = 0x7f;  // a ~2 GiB payload
    ASSERT_TRUE(write_all(fd.get(), header));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->op, Opcode::ProtocolError);
  }
  {
    UniqueFd fd = connect();
    auto header = encode(Frame{Opcode::Hello, 1, {}});
    header[6] = 0x99;
    ASSERT_TRUE(write_all(fd.get(), header));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->op, Opcode::ProtocolError);
  }
  {
    UniqueFd fd = connect();
    auto frame = encode(Frame{Opcode::Hello, 1, encode_hello(Hello{kToken, {}, "", 8, 8, false})});
    frame.resize(frame.size() - 3);  // then hang up mid-frame
    ASSERT_TRUE(write_all(fd.get(), frame));
  }
  expect_a_good_session();
}

// Check that a wrong token is refused and the next good session is served.
TEST_F(TcpServer, AWrongTokenIsRefusedAndTheNextSessionServed) {
  {
    UniqueFd fd = connect();
    Frame hello{Opcode::Hello, 1, encode_hello(Hello{"not-the-token", {}, "", 8, 8, false})};
    ASSERT_TRUE(write_all(fd.get(), encode(hello)));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->op, Opcode::ProtocolError);
    Reader reader(reply->payload);
    EXPECT_EQ(reader.string().value(), "session token refused");
  }
  expect_a_good_session();
}

// Check that a request before the hello is refused, with a well-formed frame.
TEST_F(TcpServer, WorkBeforeTheHelloIsRefused) {
  {
    UniqueFd fd = connect();
    ASSERT_TRUE(write_all(fd.get(), encode(Frame{Opcode::Draw, 1, std::vector<uint8_t>(24)})));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->op, Opcode::ProtocolError);
  }
  expect_a_good_session();
}

}  // namespace
}  // namespace tidemark::wire
