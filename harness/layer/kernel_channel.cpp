#include "layer/kernel_channel.h"

#include "core/whole_bytes.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tidemark::layer {

namespace {

KernelChannelClient& client_of(void* context) { return *static_cast<KernelChannelClient*>(context); }

}  // namespace

std::unique_ptr<KernelChannelClient> KernelChannelClient::connect(const char* path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (std::strlen(path) >= sizeof address.sun_path) {
    std::fprintf(stderr, TIDEMARK_LAYER_NAME ": the kernel channel's path is too long for a socket: %s\n", path);
    return nullptr;
  }
  std::strcpy(address.sun_path, path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    std::fprintf(stderr, TIDEMARK_LAYER_NAME ": cannot reach the kernel channel at %s: %s\n", path,
                 std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  return std::unique_ptr<KernelChannelClient>(new KernelChannelClient(fd));
}

KernelChannelClient::~KernelChannelClient() {
  if (fd_ >= 0) ::close(fd_);
}

uint64_t KernelChannelClient::ask(ChannelQuestion question, uint64_t fence, uint64_t budget_ns, uint64_t otherwise) {
  if (fd_ >= 0) {
    const ChannelRequest request{.question = static_cast<uint32_t>(question), .fence = fence, .budget_ns = budget_ns};
    ChannelAnswer answer;
    if (write_whole(fd_, &request, sizeof request) && read_whole(fd_, &answer, sizeof answer) == ReadWhole::Done)
      return answer.value;
    std::fputs(TIDEMARK_LAYER_NAME ": the kernel channel has gone; the layer answers its kernel questions itself\n",
               stderr);
    ::close(fd_);
    fd_ = -1;
  }
  return otherwise;
}

KernelChannelClient::KernelChannelClient(int fd) : fd_(fd) {
  TidemarkLayerSink& sink = sink_;
  sink.context = this;
  sink.queue_submitted = [](void* context) {
    KernelChannelClient& client = client_of(context);
    ++client.submits_;
    return client.ask(ChannelQuestion::QueueSubmitted, 0, 0, client.submits_);
  };
  sink.retired = [](void* context, uint64_t fence) -> uint32_t {
    return client_of(context).ask(ChannelQuestion::Retired, fence, 0, 1) != 0;
  };
  sink.wait_retired = [](void* context, uint64_t fence, uint64_t budget_ns) {
    client_of(context).ask(ChannelQuestion::WaitRetired, fence, budget_ns, 0);
  };
  sink.kick = [](void* context) -> uint32_t { return client_of(context).ask(ChannelQuestion::Kick, 0, 0, 0) != 0; };
}

}  // namespace tidemark::layer
