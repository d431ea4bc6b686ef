#include "renderer/kernel_channel_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "core/testing/scratch.h"
#include "layer/kernel_channel.h"

namespace tidemark::renderer {
namespace {

using test_support::ScratchDir;

// A host of the test's own behind the sink: it answers as a kernel whose fence 10 has retired and
// notes each question in the order it came.
struct Kernel {
  std::vector<std::string> asked;
  uint64_t fences = 0;
};
Kernel& kernel_of(void* context) { return *static_cast<Kernel*>(context); }

TidemarkLayerSink sink_of(Kernel& kernel) {
  TidemarkLayerSink sink{};
  sink.context = &kernel;
  sink.queue_submitted = [](void* context) {
    kernel_of(context).asked.push_back("submitted");
    return kernel_of(context).fences += 10;
  };
  sink.retired = [](void* context, uint64_t fence) -> uint32_t {
    kernel_of(context).asked.push_back("retired " + std::to_string(fence));
    return fence <= 10;
  };
  sink.wait_retired = [](void* context, uint64_t fence, uint64_t budget) {
    kernel_of(context).asked.push_back("wait " + std::to_string(fence) + " " + std::to_string(budget));
  };
  sink.kick = [](void* context) -> uint32_t {
    kernel_of(context).asked.push_back("kick");
    return 1;
  };
  return sink;
}

// Check that each of the layer's kernel questions reaches the host in the order asked and its
// answer comes back, and that once the session's end has gone the layer answers itself.
TEST(KernelChannel, CarriesEachQuestionToTheHostAndItsAnswerBack) {
  ScratchDir dir("kernel-channel");
  Kernel kernel;
  auto server = KernelChannelServer::start(dir.path() / kKernelChannelName, sink_of(kernel));
  ASSERT_TRUE(server) << server.error().message;
  auto client = layer::KernelChannelClient::connect((dir.path() / kKernelChannelName).c_str());
  ASSERT_TRUE(client);
  const TidemarkLayerSink& sink = *client->sink();
  EXPECT_EQ(sink.memory_changed, nullptr);  // memory travels in the server's records
  EXPECT_EQ(sink.queue_submitted(sink.context), 10u);
  EXPECT_EQ(sink.queue_submitted(sink.context), 20u);
  EXPECT_EQ(sink.retired(sink.context, 10), 1u);
  EXPECT_EQ(sink.retired(sink.context, 20), 0u);
  sink.wait_retired(sink.context, 20, 1000);
  EXPECT_EQ(sink.kick(sink.context), 1u);
  EXPECT_EQ(kernel.asked,
            (std::vector<std::string>{"submitted", "submitted", "retired 10", "retired 20", "wait 20 1000", "kick"}));
  EXPECT_EQ((*server)->questions(), 6u);

  server->reset();                                    // the run is over: its end of the channel has gone
  EXPECT_EQ(sink.queue_submitted(sink.context), 3u);  // the layer's own count of its submits
  EXPECT_EQ(sink.retired(sink.context, 20), 1u);
  EXPECT_EQ(sink.kick(sink.context), 0u);
  EXPECT_EQ(kernel.asked.size(), 6u);
}

// A socket of the test's own connected to the channel at `path` (invalid when it cannot be).
UniqueFd connected_to(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  UniqueFd raw(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (::connect(raw.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) return UniqueFd();
  return raw;
}

// Check that a request that is no question of the channel's closes its connection unanswered,
// and that the channel goes on answering others.
TEST(KernelChannel, ARequestThatIsNoQuestionClosesItsConnection) {
  ScratchDir dir("kernel-channel-bad");
  Kernel kernel;
  const auto path = dir.path() / kKernelChannelName;
  auto server = KernelChannelServer::start(path, sink_of(kernel));
  ASSERT_TRUE(server) << server.error().message;
  UniqueFd raw = connected_to(path);
  ASSERT_TRUE(raw);
  const layer::ChannelRequest request{.question = 99};
  ASSERT_EQ(::send(raw.get(), &request, sizeof request, 0), static_cast<ssize_t>(sizeof request));
  char answer[8];
  EXPECT_EQ(::recv(raw.get(), answer, sizeof answer, 0), 0);  // closed, nothing answered
  EXPECT_TRUE(kernel.asked.empty());
  auto client = layer::KernelChannelClient::connect(path.c_str());
  ASSERT_TRUE(client);
  const TidemarkLayerSink& sink = *client->sink();
  EXPECT_EQ(sink.queue_submitted(sink.context), 10u);
}

// Check that a request trickled a byte at a time is cut at one deadline for the whole request,
// however often its bytes come: its connection closed unanswered, the channel's thread free.
TEST(KernelChannel, ARequestTrickledAByteAtATimeIsCutAtOneDeadlineForTheWhole) {
  ScratchDir dir("kernel-channel-trickle");
  Kernel kernel;
  const auto path = dir.path() / kKernelChannelName;
  constexpr auto kWithin = std::chrono::milliseconds(400), kEvery = std::chrono::milliseconds(100);
  auto server = KernelChannelServer::start(path, sink_of(kernel), kWithin);
  ASSERT_TRUE(server) << server.error().message;
  UniqueFd trickler = connected_to(path);
  ASSERT_TRUE(trickler);
  const layer::ChannelRequest request{.question = static_cast<uint32_t>(layer::ChannelQuestion::Kick)};
  const auto* bytes = reinterpret_cast<const char*>(&request);
  const auto began = std::chrono::steady_clock::now();
  size_t sent = 0;
  bool closed = false;
  while (sent < sizeof request && !closed) {
    if (::send(trickler.get(), bytes + sent, 1, MSG_NOSIGNAL) != 1) break;
    ++sent;
    // The next byte after kEvery, unless the channel closes the connection first.
    pollfd hung_up{trickler.get(), POLLIN, 0};
    closed = ::poll(&hung_up, 1, static_cast<int>(kEvery.count())) > 0;
  }
  char answer[8];
  EXPECT_EQ(::recv(trickler.get(), answer, sizeof answer, 0), 0);  // closed, nothing answered
  const auto took = std::chrono::steady_clock::now() - began;
  EXPECT_LT(sent, sizeof request) << "the whole request arrived: it was never cut";
  EXPECT_GE(took, kWithin);
  EXPECT_LT(took, kWithin + 10 * kEvery);  // one after the other, the 24 bytes would take 24
  EXPECT_TRUE(kernel.asked.empty());
  // The channel answers others at once.
  auto client = layer::KernelChannelClient::connect(path.c_str());
  ASSERT_TRUE(client);
  const TidemarkLayerSink& sink = *client->sink();
  EXPECT_EQ(sink.kick(sink.context), 1u);
}

// Check that a socket path too long for a socket is bad input, and one in use an error that
// leaves the socket in use alone.
TEST(KernelChannel, APathThatCannotBeASocketIsAnError) {
  Kernel kernel;
  auto long_path = KernelChannelServer::start(std::string(200, 'x'), sink_of(kernel));
  ASSERT_FALSE(long_path);
  EXPECT_EQ(long_path.error().kind, ErrorKind::BadInput);
  ScratchDir dir("kernel-channel-twice");
  auto first = KernelChannelServer::start(dir.path() / kKernelChannelName, sink_of(kernel));
  ASSERT_TRUE(first);
  auto second = KernelChannelServer::start(dir.path() / kKernelChannelName, sink_of(kernel));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::Environment);
  // The refused second took nothing of the first's: its socket is there, and answers.
  auto client = layer::KernelChannelClient::connect((dir.path() / kKernelChannelName).c_str());
  ASSERT_TRUE(client);
  const TidemarkLayerSink& sink = *client->sink();
  EXPECT_EQ(sink.queue_submitted(sink.context), 10u);
}

}  // namespace
}  // namespace tidemark::renderer
