// The forwarding is written by hand on recvmsg/sendmsg: no library of Debian 12's proxies a Unix
// stream in-process with its SCM_RIGHTS descriptors (socat forwards bytes only, in a process of
// its own), and the decoder must see each chunk before the peer does.
#include "tap/socket_tap.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <poll.h>
#include <linux/sockios.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>

#include "core/process.h"

namespace tidemark::tap {
namespace {

namespace fs = std::filesystem;

constexpr size_t kChunk = 64 * 1024;  // one read's worth: all a direction ever holds
constexpr size_t kMaxFds = 253;       // SCM_MAX_FD: the most one message carries

std::string errno_text(int error) { return std::strerror(error); }

Result<sockaddr_un> address_of(const fs::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string text = path.string();
  if (text.empty() || text.size() >= sizeof address.sun_path)
    return fail(ErrorKind::BadInput, fmt::format("tap: a socket path has 1 to {} bytes, found {} ('{}')",
                                                 sizeof address.sun_path - 1, text.size(), text));
  std::memcpy(address.sun_path, text.c_str(), text.size() + 1);
  return address;
}

// One direction of a connection: what was read and not yet written on, and the descriptors that
// came with it (they go with its last byte; see send_pending).
struct Flow {
  Direction direction;
  std::vector<std::byte> pending;
  size_t sent = 0;
  std::vector<UniqueFd> fds;
  bool eof = false;        // the source ended
  bool sink_gone = false;  // the destination refused a write: what comes now is read and dropped
  bool write_shut = false;
  bool done() const { return eof && pending.empty() && write_shut; }
};

using Clock = std::chrono::steady_clock;

// How often a client waiting for room in the server's backlog tries again: a Unix socket's
// connect says nothing when room comes.
constexpr auto kConnectRetry = std::chrono::milliseconds(10);

struct Link {
  uint32_t id = 0;
  UniqueFd client, server;
  Flow up{Direction::ToServer}, down{Direction::ToClient};
  // While the server has not taken its connection (its backlog full): when to give up.
  std::optional<Clock::time_point> connect_by;
};

}  // namespace

struct SocketTap::Shared {
  fs::path listen_path;
  sockaddr_un server_address{};
  DecoderFactory factory;
  TapOptions options;
  UniqueFd listener, wake;
  bool removed = false;

  // Read by any thread; written by the tap's under the lock.
  struct State {
    std::unique_ptr<WireDecoder> decoder;
    bool open = true;
    uint64_t bytes[2] = {0, 0}, fds[2] = {0, 0};  // by Direction: every one forwarded
    // What delivered_to_server() looks at: the link's sockets (while open) and whether a chunk
    // read from the client waits to be written to the server.
    int client_fd = -1, server_fd = -1;
    bool holding_up = false;
    std::optional<Error> error;
  };
  mutable std::mutex mutex;
  mutable std::condition_variable closed_changed;
  std::vector<State> states;  // by connection id
  std::vector<WireEvent> events;
  uint64_t dropped = 0;
  int64_t alive_sum = 0, peak_sum = 0;
  size_t closed = 0;
  std::optional<Error> first_error;

  std::vector<std::byte> buffer = std::vector<std::byte>(kChunk);

  // A connection's gauges: its decoder's, with the bytes and descriptors the tap forwarded.
  static WireGauges gauges_of(const State& state) {
    WireGauges gauges = state.decoder ? state.decoder->gauges() : WireGauges{};
    gauges.wire_bytes_to_server = state.bytes[static_cast<int>(Direction::ToServer)];
    gauges.wire_bytes_to_client = state.bytes[static_cast<int>(Direction::ToClient)];
    gauges.wire_fds_to_server = state.fds[static_cast<int>(Direction::ToServer)];
    gauges.wire_fds_to_client = state.fds[static_cast<int>(Direction::ToClient)];
    return gauges;
  }

  void run();
  void accept_clients(std::vector<std::unique_ptr<Link>>& links);
  bool connect_onward(Link& link);
  void refuse(const Link& link, const std::string& why);
  int poll_timeout_ms(const std::vector<std::unique_ptr<Link>>& links) const;
  void pump(Link& link, Flow& flow, int from, int to);
  bool receive(Link& link, Flow& flow, int from);
  bool send_pending(uint32_t id, Flow& flow, int to);
  void decode(uint32_t id, Direction direction, std::span<const std::byte> bytes, size_t fds);
  void record_error(State& state, Error error);
  void close_link(const Link& link, bool judged);
};

void SocketTap::Shared::record_error(State& state, Error error) {
  if (!first_error) first_error = error;
  if (!state.error) state.error = std::move(error);
}

// Decoded before it is forwarded: whatever a peer has received, the gauges already count.
void SocketTap::Shared::decode(uint32_t id, Direction direction, std::span<const std::byte> bytes, size_t fds) {
  std::lock_guard lock(mutex);
  State& state = states[id];
  state.bytes[static_cast<int>(direction)] += bytes.size();
  state.fds[static_cast<int>(direction)] += fds;
  if (direction == Direction::ToServer) state.holding_up = true;
  if (!state.decoder || state.error) return;  // an error ends decoding, never forwarding
  const int64_t before = state.decoder->gauges().wire_resources;
  Status fed = state.decoder->feed(direction, bytes, fds);
  alive_sum += state.decoder->gauges().wire_resources - before;
  peak_sum = std::max(peak_sum, alive_sum);
  for (WireEvent& event : state.decoder->take_events()) {
    event.connection = id;
    if (options.on_event) options.on_event(event);
    if (events.size() < options.max_events)
      events.push_back(std::move(event));
    else
      ++dropped;
  }
  if (!fed) record_error(state, std::move(fed.error()));
}

void SocketTap::Shared::close_link(const Link& link, bool judged) {
  std::lock_guard lock(mutex);
  State& state = states[link.id];
  if (!state.open) return;
  state.open = false;
  if (judged && state.decoder && !state.error) {
    Status finished = state.decoder->finish();
    if (!finished) record_error(state, std::move(finished.error()));
  }
  if (state.decoder) alive_sum -= state.decoder->gauges().wire_resources;  // the server frees them
  ++closed;
  closed_changed.notify_all();
}

void SocketTap::Shared::accept_clients(std::vector<std::unique_ptr<Link>>& links) {
  while (true) {
    UniqueFd client(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client) return;  // EAGAIN: none waiting (or an aborted one)
    auto link = std::make_unique<Link>();
    link->client = std::move(client);
    link->server = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    link->connect_by = Clock::now() + options.connect_within;
    {
      std::lock_guard lock(mutex);
      link->id = static_cast<uint32_t>(states.size());
      states.push_back(
          {.decoder = factory ? factory() : nullptr, .client_fd = link->client.get(), .server_fd = link->server.get()});
    }
    if (!link->server)
      refuse(*link, fmt::format("cannot make a socket: {}", errno_text(errno)));
    else if (connect_onward(*link))
      links.push_back(std::move(link));
  }
}

void SocketTap::Shared::refuse(const Link& link, const std::string& why) {
  {
    std::lock_guard lock(mutex);
    record_error(states[link.id],
                 Error{ErrorKind::Environment, fmt::format("tap: connection {}: cannot connect to the server at {}: {}",
                                                           link.id, server_address.sun_path, why)});
  }
  close_link(link, false);
}

// Connects the link to the server without waiting: a Unix socket's connect completes at once
// while the server's backlog has room, else says EAGAIN and is tried again (run()) until the
// link's own deadline, so no client waits behind another, nor stop() behind any. False: refused
// (the link closed, its error said).
bool SocketTap::Shared::connect_onward(Link& link) {
  const int connected =
      ::connect(link.server.get(), reinterpret_cast<const sockaddr*>(&server_address), sizeof server_address);
  const int error = connected == 0 ? 0 : errno;
  if (error == EAGAIN && Clock::now() < *link.connect_by) return true;  // no room yet: tried again
  if (error == EAGAIN) {
    refuse(link,
           fmt::format("it accepted no connection within {} ms (its backlog is full)", options.connect_within.count()));
    return false;
  }
  if (error != 0 && error != EISCONN) {
    refuse(link, errno_text(error));
    return false;
  }
  link.connect_by.reset();
  return true;
}

// Until the next try of a link waiting to connect; none waiting: for ever.
int SocketTap::Shared::poll_timeout_ms(const std::vector<std::unique_ptr<Link>>& links) const {
  const bool waiting = std::ranges::any_of(links, [](const auto& link) { return link->connect_by.has_value(); });
  return waiting ? static_cast<int>(kConnectRetry.count()) : -1;
}

// Reads one chunk from `from`: true when something happened (data, the end), false when none was
// waiting.
bool SocketTap::Shared::receive(Link& link, Flow& flow, int from) {
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
  iovec part{buffer.data(), buffer.size()};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t got = ::recvmsg(from, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (got < 0) {
    if (errno == EINTR) return true;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    flow.eof = true;  // reset by the peer: its end
    return true;
  }
  std::vector<UniqueFd> fds;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
      fds.emplace_back(fd);
    }
  }
  if ((message.msg_flags & MSG_CTRUNC) != 0) {
    std::lock_guard lock(mutex);
    record_error(states[link.id],
                 Error{ErrorKind::Fatal, fmt::format("tap: connection {}: {} file descriptors past "
                                                     "the {} one message carries were lost",
                                                     link.id, direction_name(flow.direction), kMaxFds)});
  }
  if (got == 0) {
    flow.eof = true;
    return true;
  }
  if (flow.sink_gone) return true;  // the destination has gone: dropped, neither counted nor decoded
  const auto bytes = std::span<const std::byte>(buffer.data(), static_cast<size_t>(got));
  decode(link.id, flow.direction, bytes, fds.size());
  flow.pending.assign(bytes.begin(), bytes.end());
  flow.sent = 0;
  flow.fds = std::move(fds);
  return true;
}

// Writes what is pending: true when all of it went (or the destination has gone), false when the
// destination would block. Descriptors go with the chunk's last byte alone, the bytes before it
// first without them: the kernel ends a read at the message that carried descriptors, so they
// came with its end, and a peer reading the bytes before them with a plain read() would have
// them closed unseen (vtest sends each with one byte of its own, which the client reads with
// recvmsg after reading a reply's header with read()).
bool SocketTap::Shared::send_pending(uint32_t id, Flow& flow, int to) {
  while (flow.sent < flow.pending.size()) {
    size_t end = flow.pending.size();
    const bool with_fds = !flow.fds.empty() && flow.sent == end - 1;
    if (!flow.fds.empty() && !with_fds) --end;
    iovec part{flow.pending.data() + flow.sent, end - flow.sent};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    if (with_fds) {
      message.msg_control = control;
      message.msg_controllen = CMSG_SPACE(sizeof(int) * flow.fds.size());
      cmsghdr* header = CMSG_FIRSTHDR(&message);
      header->cmsg_level = SOL_SOCKET;
      header->cmsg_type = SCM_RIGHTS;
      header->cmsg_len = CMSG_LEN(sizeof(int) * flow.fds.size());
      for (size_t i = 0; i < flow.fds.size(); ++i) {
        const int fd = flow.fds[i].get();
        std::memcpy(CMSG_DATA(header) + i * sizeof(int), &fd, sizeof fd);
      }
    }
    const ssize_t put = ::sendmsg(to, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (put < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      flow.sink_gone = true;  // the peer has gone: nothing more reaches it
      break;
    }
    flow.sent += static_cast<size_t>(put);
    if (with_fds) flow.fds.clear();  // ours closed: the peer holds its own now
  }
  flow.pending.clear();
  flow.fds.clear();
  flow.sent = 0;
  if (flow.direction == Direction::ToServer) {
    std::lock_guard lock(mutex);
    states[id].holding_up = false;
  }
  return true;
}

void SocketTap::Shared::pump(Link& link, Flow& flow, int from, int to) {
  // A few chunks a turn, so that one busy direction does not hold up the others.
  for (int turn = 0; turn < 8; ++turn) {
    if (!flow.pending.empty() && !send_pending(link.id, flow, to)) return;
    if (flow.eof) {
      if (!flow.write_shut && flow.direction == Direction::ToClient && !link.up.eof && options.on_server_end)
        options.on_server_end(link.id);
      if (!flow.write_shut) ::shutdown(to, SHUT_WR);  // half-close: the other direction goes on
      flow.write_shut = true;
      return;
    }
    if (!receive(link, flow, from)) return;
  }
}

void SocketTap::Shared::run() {
  std::vector<std::unique_ptr<Link>> links;
  std::vector<pollfd> watched;
  while (true) {
    watched.clear();
    watched.push_back({wake.get(), POLLIN, 0});
    watched.push_back({listener.get(), POLLIN, 0});
    for (const auto& link : links) {
      // Read a source only once what came from it has gone on: a direction holds one chunk; and
      // neither before the server has taken the connection.
      short client_events = 0, server_events = 0;
      if (link->connect_by) {
        watched.push_back({-1, 0, 0});
        watched.push_back({-1, 0, 0});
        continue;
      }
      if (!link->up.pending.empty())
        server_events |= POLLOUT;
      else if (!link->up.eof)
        client_events |= POLLIN;
      if (!link->down.pending.empty())
        client_events |= POLLOUT;
      else if (!link->down.eof)
        server_events |= POLLIN;
      // An fd with no events is left out (-1): poll would report its hang-up every turn.
      watched.push_back({client_events ? link->client.get() : -1, client_events, 0});
      watched.push_back({server_events ? link->server.get() : -1, server_events, 0});
    }
    if (::poll(watched.data(), watched.size(), poll_timeout_ms(links)) < 0 && errno != EINTR) break;
    if (watched[0].revents != 0) break;
    if (watched[1].revents != 0) accept_clients(links);
    for (size_t i = 0; i < links.size(); ++i) {
      if (watched.size() <= 2 + 2 * i) break;  // accepted this turn: served next turn
      if (watched[2 + 2 * i].revents == 0 && watched[3 + 2 * i].revents == 0) continue;
      Link& link = *links[i];
      pump(link, link.up, link.client.get(), link.server.get());
      pump(link, link.down, link.server.get(), link.client.get());
    }
    std::erase_if(links, [this](const std::unique_ptr<Link>& link) {
      if (link->connect_by) return !connect_onward(*link);  // still waiting for the server: tried again
      if (!link->up.done() || !link->down.done()) return false;
      close_link(*link, true);
      return true;
    });
  }
  for (const auto& link : links) close_link(*link, false);
}

Result<SocketTap> SocketTap::start(const fs::path& listen_path, const fs::path& server_path,
                                   DecoderFactory decoder_factory, TapOptions options) {
  TIDEMARK_TRY(listen_address, address_of(listen_path));
  TIDEMARK_TRY(server_address, address_of(server_path));
  auto shared = std::make_unique<Shared>();
  shared->listen_path = listen_path;
  shared->server_address = server_address;
  shared->factory = std::move(decoder_factory);
  shared->options = std::move(options);
  shared->listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  shared->wake = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!shared->listener || !shared->wake)
    return fail(ErrorKind::Environment, fmt::format("tap: cannot make a socket: {}", errno_text(errno)));
  if (::bind(shared->listener.get(), reinterpret_cast<const sockaddr*>(&listen_address), sizeof listen_address) != 0)
    return fail(ErrorKind::Environment,
                fmt::format("tap: cannot listen at {}: {}", listen_path.string(), errno_text(errno)));
  if (::listen(shared->listener.get(), 64) != 0) {
    const int error = errno;
    ::unlink(listen_path.c_str());
    return fail(ErrorKind::Environment,
                fmt::format("tap: cannot listen at {}: {}", listen_path.string(), errno_text(error)));
  }
  SocketTap tap;
  tap.shared_ = std::move(shared);
  tap.thread_ = std::thread([state = tap.shared_.get()] { state->run(); });
  return tap;
}

SocketTap::SocketTap(SocketTap&&) noexcept = default;

SocketTap& SocketTap::operator=(SocketTap&& other) noexcept {
  if (this != &other) {
    stop();
    shared_ = std::move(other.shared_);
    thread_ = std::move(other.thread_);
  }
  return *this;
}

SocketTap::~SocketTap() { stop(); }

void SocketTap::stop() {
  if (!shared_) return;
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t written = ::write(shared_->wake.get(), &one, sizeof one);
    thread_.join();
  }
  if (!shared_->removed) {
    shared_->listener.reset();
    ::unlink(shared_->listen_path.c_str());
    shared_->removed = true;
  }
}

const fs::path& SocketTap::listen_path() const {
  static const fs::path none;
  return shared_ ? shared_->listen_path : none;
}

WireGauges SocketTap::gauges() const {
  WireGauges total;
  if (!shared_) return total;
  std::lock_guard lock(shared_->mutex);
  for (const Shared::State& state : shared_->states) {
    WireGauges one = Shared::gauges_of(state);
    if (!state.open) one.wire_resources = 0;
    total.add(one);
  }
  total.wire_resources_peak = std::max(total.wire_resources_peak, shared_->peak_sum);
  return total;
}

std::vector<WireEvent> SocketTap::events() const {
  if (!shared_) return {};
  std::lock_guard lock(shared_->mutex);
  return shared_->events;
}

uint64_t SocketTap::events_dropped() const {
  if (!shared_) return 0;
  std::lock_guard lock(shared_->mutex);
  return shared_->dropped;
}

std::optional<Error> SocketTap::error() const {
  if (!shared_) return std::nullopt;
  std::lock_guard lock(shared_->mutex);
  return shared_->first_error;
}

std::vector<ConnectionReport> SocketTap::connections() const {
  std::vector<ConnectionReport> reports;
  if (!shared_) return reports;
  std::lock_guard lock(shared_->mutex);
  for (size_t id = 0; id < shared_->states.size(); ++id) {
    const Shared::State& state = shared_->states[id];
    reports.push_back({.connection = static_cast<uint32_t>(id),
                       .open = state.open,
                       .gauges = Shared::gauges_of(state),
                       .error = state.error});
  }
  return reports;
}

bool SocketTap::delivered_to_server() const {
  if (!shared_) return true;
  std::lock_guard lock(shared_->mutex);  // held: an open link's sockets stay open meanwhile
  for (const Shared::State& state : shared_->states) {
    if (!state.open || state.client_fd < 0) continue;
    int unread = 0, unconsumed = 0;
    if (state.holding_up || ::ioctl(state.client_fd, FIONREAD, &unread) != 0 || unread > 0 ||
        ::ioctl(state.server_fd, SIOCOUTQ, &unconsumed) != 0 || unconsumed > 0)
      return false;
  }
  return true;
}

bool SocketTap::wait_closed(size_t count, std::chrono::milliseconds within) const {
  if (!shared_) return false;
  std::unique_lock lock(shared_->mutex);
  return shared_->closed_changed.wait_for(lock, within, [&] { return shared_->closed >= count; });
}

}  // namespace tidemark::tap
