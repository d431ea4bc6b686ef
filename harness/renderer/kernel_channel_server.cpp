#include "renderer/kernel_channel_server.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "core/whole_bytes.h"
#include "layer/kernel_channel.h"

namespace tidemark::renderer {

namespace fs = std::filesystem;

Result<std::unique_ptr<KernelChannelServer>> KernelChannelServer::start(const fs::path& path, TidemarkLayerSink sink,
                                                                        std::chrono::milliseconds request_within) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.size() >= sizeof address.sun_path)
    return fail(ErrorKind::BadInput,
                fmt::format("the kernel channel's socket path has at most {} bytes, found {} ('{}')",
                            sizeof address.sun_path - 1, text.size(), text));
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  auto made = std::unique_ptr<KernelChannelServer>(new KernelChannelServer());
  made->sink_ = sink;
  made->request_within_ = request_within;
  made->listener_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  made->wake_ = UniqueFd(::eventfd(0, EFD_CLOEXEC));
  auto cannot = [&] {
    return fail(ErrorKind::Environment,
                fmt::format("the kernel channel cannot listen at {}: {}", text, std::strerror(errno)));
  };
  if (!made->listener_ || !made->wake_ ||
      ::bind(made->listener_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0)
    return cannot();   // a file already there is someone else's: left as it is
  made->path_ = path;  // ours from here: removed when the value goes
  if (::listen(made->listener_.get(), 8) != 0) return cannot();
  made->thread_ = std::thread([channel = made.get()] { channel->run(); });
  return made;
}

KernelChannelServer::~KernelChannelServer() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t woke = ::write(wake_.get(), &one, sizeof one);
    thread_.join();
  }
  std::error_code ignored;
  if (!path_.empty()) fs::remove(path_, ignored);
}

// One question, answered by the host: the layer waits for it before its call goes on.
bool KernelChannelServer::answer(int connection) {
  layer::ChannelRequest request;
  if (read_whole(connection, &request, sizeof request, std::chrono::steady_clock::now() + request_within_) !=
      ReadWhole::Done)
    return false;
  layer::ChannelAnswer answer;
  const TidemarkLayerSink& s = sink_;
  switch (static_cast<layer::ChannelQuestion>(request.question)) {
    case layer::ChannelQuestion::QueueSubmitted:
      answer.value = s.queue_submitted ? s.queue_submitted(s.context) : 0;
      break;
    case layer::ChannelQuestion::Retired:
      answer.value = s.retired ? s.retired(s.context, request.fence) : 1;
      break;
    case layer::ChannelQuestion::WaitRetired:
      if (s.wait_retired) s.wait_retired(s.context, request.fence, request.budget_ns);
      break;
    case layer::ChannelQuestion::Kick:
      answer.value = s.kick ? s.kick(s.context) : 0;
      break;
    default:
      return false;  // not a question of this channel: the connection is closed, the layer answers itself
  }
  questions_.fetch_add(1, std::memory_order_relaxed);
  return write_whole(connection, &answer, sizeof answer);
}

void KernelChannelServer::run() {
  std::vector<UniqueFd> connections;
  std::vector<pollfd> watched;
  while (true) {
    watched.assign({{wake_.get(), POLLIN, 0}, {listener_.get(), POLLIN, 0}});
    for (const UniqueFd& connection : connections) watched.push_back({connection.get(), POLLIN, 0});
    if (::poll(watched.data(), watched.size(), -1) < 0 && errno != EINTR) return;
    if (watched[0].revents != 0) return;
    for (size_t i = connections.size(); i-- > 0;)
      if (watched[2 + i].revents != 0 && !answer(connections[i].get())) connections.erase(connections.begin() + i);
    if (watched[1].revents != 0)
      if (int accepted = ::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC); accepted >= 0)
        connections.emplace_back(accepted);
  }
}

}  // namespace tidemark::renderer
