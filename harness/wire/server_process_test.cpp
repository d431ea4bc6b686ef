// tidemark-server as a real process on loopback, facing hostile clients.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include <fstream>

#include "wire/frame_io.h"
#include "core/testing/scratch.h"
#include "wire/posix.h"
#include "wire/codec.h"
#include "wire/messages.h"

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
    options.stderr_path = (scratch_ / "server.log").string();
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
  static std::optional<Frame> answer(int fd) {
    FdSource source(fd);
    auto frame = read_frame(source, {.deadline = Clock::now() + std::chrono::seconds(20)});
    if (!frame) return std::nullopt;
    return std::move(*frame);
  }

  static Frame hello(const std::string& token) {
    return make_frame(1,
                      Hello{.token = token, .config = {.width = 8, .height = 8, .knobs = {{"wire_deferred_mb", 8}}}});
  }

  // A greeted session: its socket and the pid of the process serving it.
  std::pair<UniqueFd, int64_t> open_session() {
    UniqueFd fd = connect();
    EXPECT_TRUE(write_all(fd.get(), encode(hello(kToken))));
    auto welcome = answer(fd.get());
    if (!welcome || welcome->op != Opcode::Welcome) {
      ADD_FAILURE() << "no welcome";
      return {std::move(fd), 0};
    }
    auto decoded = decode<Welcome>(*welcome);
    EXPECT_TRUE(decoded);
    return {std::move(fd), decoded ? decoded->server_pid : 0};
  }

  // A good session still works: the server survived whatever came before.
  void expect_a_good_session() {
    UniqueFd fd = connect();
    ASSERT_TRUE(write_all(fd.get(), encode(hello(kToken))));
    auto welcome = answer(fd.get());
    ASSERT_TRUE(welcome);
    ASSERT_EQ(welcome->op, Opcode::Welcome);
    auto decoded = decode<Welcome>(*welcome);
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded->knobs.at("wire_deferred_mb"), 8);
    EXPECT_NE(decoded->server_pid, server_.pid());  // each session has a process of its own
    EXPECT_NE(decoded->server_pid, ::getpid());
    ASSERT_TRUE(write_all(fd.get(), encode(make_frame(2, Goodbye{}))));
    auto bye = answer(fd.get());
    ASSERT_TRUE(bye);
    EXPECT_EQ(bye->op, Opcode::Ok);
  }

  const test_support::ScratchDir scratch_{"hostile"};
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
    header[11] = 0x10;  // a 256 MiB payload, before any hello
    ASSERT_TRUE(write_all(fd.get(), header));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->op, Opcode::ProtocolError);
    EXPECT_EQ(decode<ProtocolError>(*reply).value().message,
              "protocol: hello payload of 268435456 bytes, at most 4096");
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
    auto frame = encode(hello(kToken));
    frame.resize(frame.size() - 3);  // then hang up mid-frame
    ASSERT_TRUE(write_all(fd.get(), frame));
  }
  expect_a_good_session();
}

// Check that a wrong token is refused and the next good session is served.
TEST_F(TcpServer, AWrongTokenIsRefusedAndTheNextSessionServed) {
  {
    UniqueFd fd = connect();
    ASSERT_TRUE(write_all(fd.get(), encode(hello("not-the-token"))));
    auto reply = answer(fd.get());
    ASSERT_TRUE(reply);
    ASSERT_EQ(reply->op, Opcode::ProtocolError);
    EXPECT_EQ(decode<ProtocolError>(*reply).value().message, "session token refused");
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

int64_t resident_kib(int64_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmRSS:")) return std::stoll(line.substr(6));
  return -1;
}

bool has_input_or_hangup(int fd) {
  pollfd waiting{fd, POLLIN, 0};
  return ::poll(&waiting, 1, 0) > 0;
}

// Check that a greeted client that claims a 256 MiB payload and stalls after 1 MiB holds
// only its own session: a second session is greeted while the first is still waiting, no
// later than a session on an idle server plus 1 s, and the stalled session's memory grows
// with the bytes that came, not the length claimed.
TEST_F(TcpServer, AStalledClientDelaysNoOtherSession) {
  auto idle_started = Clock::now();
  auto [idle_fd, idle_pid] = open_session();
  auto idle_handshake = Clock::now() - idle_started;
  ASSERT_GT(idle_pid, 0);

  auto [stalled_fd, stalled_pid] = open_session();
  ASSERT_GT(stalled_pid, 0);
  int64_t before_kib = resident_kib(stalled_pid);
  auto claim = encode(Frame{Opcode::BufferData, 2, std::vector<uint8_t>(1 << 20, 0x11)});
  claim[8] = claim[9] = claim[10] = 0;
  claim[11] = 0x10;  // the header now claims 256 MiB; 1 MiB of it follows
  ASSERT_TRUE(write_all(stalled_fd.get(), claim));

  auto started = Clock::now();
  auto [second_fd, second_pid] = open_session();
  auto handshake = Clock::now() - started;
  ASSERT_GT(second_pid, 0);
  EXPECT_NE(second_pid, stalled_pid);
  EXPECT_FALSE(has_input_or_hangup(stalled_fd.get())) << "the stalled session ended before the second was greeted";
  EXPECT_LT(handshake, idle_handshake + std::chrono::seconds(1));

  int64_t after_kib = resident_kib(stalled_pid);
  ASSERT_GT(before_kib, 0);
  EXPECT_LT(after_kib - before_kib, 32 * 1024) << "RSS " << before_kib << " KiB -> " << after_kib << " KiB";
}

// Check that a session whose process dies ends only itself: the server and the other
// sessions go on.
TEST_F(TcpServer, ACrashedSessionEndsOnlyItself) {
  auto [survivor_fd, survivor_pid] = open_session();
  auto [doomed_fd, doomed_pid] = open_session();
  ASSERT_GT(doomed_pid, 0);
  ASSERT_EQ(::kill(static_cast<pid_t>(doomed_pid), SIGKILL), 0);
  EXPECT_FALSE(answer(doomed_fd.get()));  // the connection just closes

  ASSERT_TRUE(write_all(survivor_fd.get(), encode(make_frame(2, ReadGauges{}))));
  auto gauges = answer(survivor_fd.get());
  ASSERT_TRUE(gauges);
  EXPECT_EQ(gauges->op, Opcode::GaugeValues);
  expect_a_good_session();
}

}  // namespace
}  // namespace tidemark::wire
