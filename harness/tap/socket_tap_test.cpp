#include "tap/socket_tap.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/process.h"
#include "core/testing/scratch.h"
#include "core/testing/sockets.h"
#include "tap/vtest_decoder.h"

namespace tidemark::tap {
namespace {

namespace fs = std::filesystem;
using test_support::address_of;
using test_support::connect_to;
using test_support::kPatienceMs;
using test_support::patient;
using test_support::read_exactly;
using test_support::ScratchDir;
using test_support::write_all;
using ::testing::HasSubstr;

// The test's own server: a listening socket it accepts from itself.
class Listener {
 public:
  explicit Listener(const fs::path& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const sockaddr_un address = address_of(path);
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(fd_.get(), 16), 0);
  }
  UniqueFd accept() const {
    pollfd waiting{fd_.get(), POLLIN, 0};
    if (::poll(&waiting, 1, kPatienceMs) != 1) return UniqueFd();
    UniqueFd peer(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    patient(peer.get());
    return peer;
  }

 private:
  UniqueFd fd_;
};

// A memfd holding `text`.
UniqueFd memfd_holding(std::string_view text) {
  UniqueFd fd(::memfd_create("tap-test", MFD_CLOEXEC));
  EXPECT_EQ(::write(fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  return fd;
}

std::string contents(int fd) {
  std::string text(256, '\0');
  const ssize_t got = ::pread(fd, text.data(), text.size(), 0);
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return text;
}

// One byte with a descriptor beside it, as vtest's server sends one.
void send_with_fd(int socket, char byte, int fd) {
  iovec part{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(header), &fd, sizeof fd);
  ASSERT_EQ(::sendmsg(socket, &message, MSG_NOSIGNAL), 1) << std::strerror(errno);
}

// Reads one byte with recvmsg (as vtest's client receives a descriptor): the byte and the fd.
std::pair<std::string, UniqueFd> receive_with_fd(int socket) {
  char byte = 0;
  iovec part{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  if (::recvmsg(socket, &message, MSG_CMSG_CLOEXEC) != 1) return {"", UniqueFd()};
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  if (header == nullptr || header->cmsg_type != SCM_RIGHTS) return {std::string(1, byte), UniqueFd()};
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(header), sizeof fd);
  return {std::string(1, byte), UniqueFd(fd)};
}

// A decoder that keeps what it was fed, for the test to compare with what was sent.
struct Seen {
  std::mutex mutex;
  std::string bytes[2];
  size_t fds[2] = {0, 0};
  bool finished = false;
};

class RecordingDecoder final : public WireDecoder {
 public:
  explicit RecordingDecoder(std::shared_ptr<Seen> seen) : seen_(std::move(seen)) {}
  Status feed(Direction direction, std::span<const std::byte> bytes, size_t fds) override {
    std::lock_guard lock(seen_->mutex);
    seen_->bytes[static_cast<int>(direction)].append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    seen_->fds[static_cast<int>(direction)] += fds;
    ++gauges_.wire_commands;  // a chunk a "command": something to see summed
    return {};
  }
  Status finish() override {
    std::lock_guard lock(seen_->mutex);
    seen_->finished = true;
    return {};
  }
  const WireGauges& gauges() const override { return gauges_; }
  std::vector<WireEvent> take_events() override { return {}; }

 private:
  std::shared_ptr<Seen> seen_;
  WireGauges gauges_;
};

std::unique_ptr<WireDecoder> vtest() { return std::make_unique<VtestDecoder>(); }

// A tap between a client and the test's own server, the client connected and accepted.
struct Wired {
  explicit Wired(const std::string& name, const DecoderFactory& factory = vtest)
      : dir(name), server(dir.path() / "server.sock") {
    auto started = SocketTap::start(dir.path() / "tap.sock", dir.path() / "server.sock", factory);
    EXPECT_TRUE(started) << started.error().message;
    if (!started) return;
    tap.emplace(std::move(*started));
    client = connect_to(dir.path() / "tap.sock");
    peer = server.accept();
    EXPECT_TRUE(peer);
  }
  ScratchDir dir;
  Listener server;
  std::optional<SocketTap> tap;
  UniqueFd client, peer;
};

std::string pattern(size_t size) {
  std::string text(size, '\0');
  for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>((i * 131 + i / 7) & 0xff);
  return text;
}

TEST(SocketTap, ForwardsBytesAndDescriptorsBothWaysUnchanged) {
  auto seen = std::make_shared<Seen>();
  Wired wired("tap-forward", [seen] { return std::make_unique<RecordingDecoder>(seen); });
  ASSERT_TRUE(wired.peer);
  UniqueFd& client = wired.client;
  UniqueFd& peer = wired.peer;
  auto& tap = wired.tap;

  // Client -> server: bytes read with read(), then a byte with a memfd read with recvmsg.
  write_all(client.get(), "hello");
  UniqueFd outbound = memfd_holding("from the client");
  send_with_fd(client.get(), '!', outbound.get());
  EXPECT_EQ(read_exactly(peer.get(), 5), "hello");
  auto [byte, passed] = receive_with_fd(peer.get());
  EXPECT_EQ(byte, "!");
  ASSERT_TRUE(passed);
  EXPECT_EQ(contents(passed.get()), "from the client");

  // Server -> client: a header, the byte with a memfd, then 3 MiB while the client reads.
  write_all(peer.get(), "reply-header");
  UniqueFd inbound = memfd_holding("from the server");
  send_with_fd(peer.get(), '\0', inbound.get());
  EXPECT_EQ(read_exactly(client.get(), 12), "reply-header");
  auto [zero, returned] = receive_with_fd(client.get());
  EXPECT_EQ(zero, std::string(1, '\0'));
  ASSERT_TRUE(returned);
  EXPECT_EQ(contents(returned.get()), "from the server");
  const std::string bulk = pattern(3 << 20);
  std::thread writer([&] { write_all(peer.get(), bulk); });
  const std::string got = read_exactly(client.get(), bulk.size());
  writer.join();
  EXPECT_TRUE(got == bulk) << "3 MiB through the tap differ";

  // Half-close: the client's end reaches the server, which still answers, then ends.
  ASSERT_EQ(::shutdown(client.get(), SHUT_WR), 0);
  EXPECT_EQ(read_exactly(peer.get(), 1), "");
  write_all(peer.get(), "bye");
  peer.reset();
  EXPECT_EQ(read_exactly(client.get(), 4), "bye");
  client.reset();

  ASSERT_TRUE(tap->wait_closed(1, std::chrono::milliseconds(kPatienceMs)));
  EXPECT_FALSE(tap->error());
  const WireGauges gauges = tap->gauges();
  EXPECT_EQ(gauges.wire_bytes_to_server, 6u);
  EXPECT_EQ(gauges.wire_bytes_to_client, 12u + 1u + bulk.size() + 3u);
  EXPECT_EQ(gauges.wire_fds_to_server, 1u);
  EXPECT_EQ(gauges.wire_fds_to_client, 1u);
  EXPECT_GT(gauges.wire_commands, 0u);
  std::lock_guard lock(seen->mutex);
  EXPECT_EQ(seen->bytes[0], "hello!");
  EXPECT_TRUE(seen->bytes[1] == "reply-header" + std::string(1, '\0') + bulk + "bye");
  EXPECT_EQ(seen->fds[0], 1u);
  EXPECT_EQ(seen->fds[1], 1u);
  EXPECT_TRUE(seen->finished);
}

// Several clients at once, each its own connection to the server and its own decoder.
// Check that the tap says the client's bytes are delivered only once the server has read every
// one: not while they wait at the server's socket, and again once it has read them.
TEST(SocketTap, SaysTheClientsBytesAreDeliveredOnlyOnceTheServerHasReadThemAll) {
  auto seen = std::make_shared<Seen>();
  Wired wired("tap-delivered", [seen] { return std::make_unique<RecordingDecoder>(seen); });
  ASSERT_TRUE(wired.peer);
  EXPECT_TRUE(wired.tap->delivered_to_server());  // nothing written yet
  write_all(wired.client.get(), "twelve bytes");
  // The tap forwards them on its own thread: seen waiting at the server's socket within the patience.
  pollfd arrived{wired.peer.get(), POLLIN, 0};
  ASSERT_EQ(::poll(&arrived, 1, kPatienceMs), 1);
  EXPECT_FALSE(wired.tap->delivered_to_server());
  EXPECT_EQ(read_exactly(wired.peer.get(), 5), "twelv");
  EXPECT_FALSE(wired.tap->delivered_to_server());  // 7 still unread
  EXPECT_EQ(read_exactly(wired.peer.get(), 7), "e bytes");
  // The tap notes a chunk gone just after its write, which the server may read first: looked at
  // until it holds, within the patience.
  bool delivered = false;
  for (int looks = 0; looks < kPatienceMs && !delivered; ++looks) {
    delivered = wired.tap->delivered_to_server();
    if (!delivered) ::usleep(1000);
  }
  EXPECT_TRUE(delivered);
}

TEST(SocketTap, ForwardsConnectionsConcurrently) {
  ScratchDir dir("tap-many");
  Listener server(dir.path() / "server.sock");
  auto tap = SocketTap::start(dir.path() / "tap.sock", dir.path() / "server.sock", vtest);
  ASSERT_TRUE(tap) << tap.error().message;
  constexpr int kClients = 3;
  std::vector<UniqueFd> clients, peers;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(connect_to(dir.path() / "tap.sock"));
    peers.push_back(server.accept());
    ASSERT_TRUE(peers.back());
  }
  // Each sends vtest's opening and a ping; each server side answers the ping.
  std::string opening(8 + 4 + 8, '\0');
  const uint32_t words[] = {4, kVcmdCreateRenderer, 0x00706174, 0, kVcmdPingProtocolVersion};
  std::memcpy(opening.data(), words, sizeof words);
  for (int i = 0; i < kClients; ++i) write_all(clients[i].get(), opening);
  const std::string pong(reinterpret_cast<const char*>(&words[3]), 8);
  for (int i = kClients - 1; i >= 0; --i) {
    EXPECT_EQ(read_exactly(peers[i].get(), opening.size()), opening);
    write_all(peers[i].get(), pong);
    EXPECT_EQ(read_exactly(clients[i].get(), 8), pong);
  }
  clients.clear();
  peers.clear();
  ASSERT_TRUE(tap->wait_closed(kClients, std::chrono::milliseconds(kPatienceMs)));
  EXPECT_FALSE(tap->error()) << tap->error()->message;
  const auto connections = tap->connections();
  ASSERT_EQ(connections.size(), size_t{kClients});
  for (const ConnectionReport& report : connections) {
    EXPECT_FALSE(report.open);
    EXPECT_EQ(report.gauges.wire_commands, 2u);
    EXPECT_EQ(report.gauges.wire_replies, 1u);
  }
  EXPECT_EQ(tap->gauges().wire_commands_by_kind.at("VCMD_PING_PROTOCOL_VERSION"), 3u);
  EXPECT_EQ(tap->events().size(), 3u * 3u);
}

// The tap's error once a client sent `bytes` and left; the bytes reach the server unchanged.
std::optional<Error> error_after(const std::string& name, const std::string& bytes) {
  Wired wired(name);
  EXPECT_TRUE(wired.peer);
  write_all(wired.client.get(), bytes);
  wired.client.reset();
  EXPECT_EQ(read_exactly(wired.peer.get(), bytes.size() + 1), bytes);
  wired.peer.reset();
  EXPECT_TRUE(wired.tap->wait_closed(1, std::chrono::milliseconds(kPatienceMs)));
  EXPECT_EQ(wired.tap->gauges().wire_bytes_to_server, bytes.size());
  return wired.tap->error();
}

// A stream the decoder cannot follow is its error; the bytes still reach the server unchanged,
// and the connection's end does not replace the error.
TEST(SocketTap, ADecodeErrorStopsDecodingNotForwarding) {
  const auto error = error_after("tap-bad", "not vtest at all, and then some more bytes");
  ASSERT_TRUE(error);
  EXPECT_THAT(error->message, HasSubstr("vtest: bad order: client command 1"));
}

// A client that leaves inside a command: the connection's stream is truncated.
TEST(SocketTap, AClientGoneInsideACommandIsTruncated) {
  const auto error = error_after("tap-cut", std::string("\x04\0\0\0\x08\0", 6));
  ASSERT_TRUE(error);
  EXPECT_THAT(error->message, HasSubstr("vtest: truncated: client stream at byte 0"));
}

// No server: the client is closed on and the tap says why.
TEST(SocketTap, AnUnreachableServerIsAnError) {
  ScratchDir dir("tap-none");
  auto tap = SocketTap::start(dir.path() / "tap.sock", dir.path() / "nobody.sock", vtest);
  ASSERT_TRUE(tap) << tap.error().message;
  UniqueFd client = connect_to(dir.path() / "tap.sock");
  EXPECT_EQ(read_exactly(client.get(), 1), "");
  ASSERT_TRUE(tap->wait_closed(1, std::chrono::milliseconds(kPatienceMs)));
  ASSERT_TRUE(tap->error());
  EXPECT_EQ(tap->error()->kind, ErrorKind::Environment);
  EXPECT_THAT(tap->error()->message, HasSubstr("tap: connection 0: cannot connect to the server at"));
}

// stop() ends the thread at once with a connection open and idle, and closes it; the socket goes.
TEST(SocketTap, StopEndsPromptlyWithAConnectionOpen) {
  Wired wired("tap-stop");
  ASSERT_TRUE(wired.peer);
  UniqueFd& client = wired.client;
  UniqueFd& peer = wired.peer;
  auto& tap = wired.tap;
  write_all(client.get(), std::string("\x04\0\0\0", 4));  // half a header: cut, not judged
  EXPECT_EQ(read_exactly(peer.get(), 4).size(), 4u);
  tap->stop();
  EXPECT_EQ(read_exactly(client.get(), 1), "");
  EXPECT_EQ(read_exactly(peer.get(), 1), "");
  EXPECT_FALSE(fs::exists(wired.dir.path() / "tap.sock"));
  EXPECT_FALSE(tap->error());
  ASSERT_EQ(tap->connections().size(), 1u);
  EXPECT_FALSE(tap->connections()[0].open);
  tap->stop();  // again: nothing
}

// A server that listens and never accepts: its backlog (of one) fills at once.
class NeverAccepting {
 public:
  explicit NeverAccepting(const fs::path& path) : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    const sockaddr_un address = address_of(path);
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(fd_.get(), 0), 0);
  }

 private:
  UniqueFd fd_;
};

constexpr size_t kWaitingClients = 40;
constexpr auto kConnectWithin = std::chrono::milliseconds(300);

// Check that clients of a server that never accepts each wait for room on a deadline of their
// own, none behind another's: every one past the backlog is closed on about one deadline after
// it came (one after the other, the last would wait forty), and the error says why.
TEST(SocketTap, ClientsOfAServerThatNeverAcceptsEachWaitOnTheirOwnDeadline) {
  ScratchDir dir("tap-never-accepts");
  NeverAccepting server(dir.path() / "server.sock");
  auto tap =
      SocketTap::start(dir.path() / "tap.sock", dir.path() / "server.sock", vtest, {.connect_within = kConnectWithin});
  ASSERT_TRUE(tap) << tap.error().message;
  std::vector<UniqueFd> clients;
  for (size_t i = 0; i < kWaitingClients; ++i) clients.push_back(connect_to(dir.path() / "tap.sock"));
  const auto began = std::chrono::steady_clock::now();
  const size_t past_the_backlog = kWaitingClients - 2;  // the backlog holds one or two
  EXPECT_TRUE(tap->wait_closed(past_the_backlog, 4 * kConnectWithin));
  EXPECT_LT(std::chrono::steady_clock::now() - began, 4 * kConnectWithin);
  ASSERT_TRUE(tap->error());
  EXPECT_THAT(tap->error()->message, HasSubstr("accepted no connection within 300 ms"));
}

// Check that stop() ends at once while clients wait for a server that never accepts.
TEST(SocketTap, StopEndsPromptlyWhileClientsWaitForAServerThatNeverAccepts) {
  ScratchDir dir("tap-never-accepts-stop");
  NeverAccepting server(dir.path() / "server.sock");
  auto tap =
      SocketTap::start(dir.path() / "tap.sock", dir.path() / "server.sock", vtest, {.connect_within = kConnectWithin});
  ASSERT_TRUE(tap) << tap.error().message;
  std::vector<UniqueFd> clients;
  for (size_t i = 0; i < kWaitingClients; ++i) clients.push_back(connect_to(dir.path() / "tap.sock"));
  // Past the backlog: the tap now waits for the server on some client's behalf.
  const auto patience = std::chrono::steady_clock::now() + std::chrono::milliseconds(kPatienceMs);
  while (tap->connections().size() < 3 && std::chrono::steady_clock::now() < patience) std::this_thread::yield();
  ASSERT_GE(tap->connections().size(), 3u);
  const auto began = std::chrono::steady_clock::now();
  tap->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - began, kConnectWithin);
  for (const UniqueFd& client : clients) EXPECT_EQ(read_exactly(client.get(), 1), "");
}

TEST(SocketTap, BadPathsAreErrors) {
  ScratchDir dir("tap-paths");
  auto long_path = SocketTap::start(dir.path() / std::string(120, 'x'), dir.path() / "server.sock", nullptr);
  ASSERT_FALSE(long_path);
  EXPECT_EQ(long_path.error().kind, ErrorKind::BadInput);
  Listener taken(dir.path() / "taken.sock");
  auto in_use = SocketTap::start(dir.path() / "taken.sock", dir.path() / "server.sock", nullptr);
  ASSERT_FALSE(in_use);
  EXPECT_EQ(in_use.error().kind, ErrorKind::Environment);
  EXPECT_THAT(in_use.error().message, HasSubstr("tap: cannot listen at"));
}

}  // namespace
}  // namespace tidemark::tap
