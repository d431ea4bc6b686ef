// Writing and reading a run of bytes whole on a file descriptor, over EINTR and short counts: the
// one loop of each. Header only, with no Tidemark library beneath it: the layer, which links
// nothing of Tidemark's, writes its records and asks its kernel channel with them too.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace tidemark {

using WholeDeadline = std::optional<std::chrono::steady_clock::time_point>;

namespace whole_detail {
// Milliseconds left before `deadline` for a poll: -1 without one, 0 once it has passed.
inline int poll_ms(const WholeDeadline& deadline) {
  if (!deadline) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30));
}
// Waits until `fd` is ready for `events` or `deadline` passes (errno ETIMEDOUT then).
inline bool wait_ready(int fd, short events, const WholeDeadline& deadline) {
  for (;;) {
    pollfd ready{fd, events, 0};
    const int polled = ::poll(&ready, 1, poll_ms(deadline));
    if (polled > 0) return true;
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) errno = ETIMEDOUT;
    return false;
  }
}
}  // namespace whole_detail

// Writes all `size` bytes (a socket's peer that has gone is an error, not a SIGPIPE); with a
// deadline, gives up when it passes. False with errno set (ETIMEDOUT: the deadline; ENOSPC: a
// write that took nothing).
inline bool write_whole(int fd, const void* data, size_t size, const WholeDeadline& deadline = std::nullopt) {
  const auto* at = static_cast<const std::byte*>(data);
  bool socket = true;
  while (size > 0) {
    if (deadline && !whole_detail::wait_ready(fd, POLLOUT, deadline)) return false;
    ssize_t put = socket ? ::send(fd, at, size, MSG_NOSIGNAL | (deadline ? MSG_DONTWAIT : 0)) : -1;
    if (put < 0 && socket && errno == ENOTSOCK) socket = false;
    if (!socket) put = ::write(fd, at, size);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && (deadline || whole_detail::wait_ready(fd, POLLOUT, {})))
      continue;
    if (put == 0) errno = ENOSPC;
    if (put <= 0) return false;
    at += put;
    size -= static_cast<size_t>(put);
  }
  return true;
}

// How a whole read ended.
enum class ReadWhole { Done, Closed, Late, Failed };

// Reads exactly `size` bytes; with a deadline, one for the whole, however its bytes trickle in.
// Closed: the peer went first (or in the middle); Failed: an error (errno says).
inline ReadWhole read_whole(int fd, void* data, size_t size, const WholeDeadline& deadline = std::nullopt) {
  auto* at = static_cast<std::byte*>(data);
  while (size > 0) {
    if (deadline && !whole_detail::wait_ready(fd, POLLIN, deadline))
      return errno == ETIMEDOUT ? ReadWhole::Late : ReadWhole::Failed;
    const ssize_t got = ::read(fd, at, size);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && (deadline || whole_detail::wait_ready(fd, POLLIN, {})))
      continue;
    if (got == 0 || (got < 0 && errno == ECONNRESET)) return ReadWhole::Closed;
    if (got < 0) return ReadWhole::Failed;
    at += got;
    size -= static_cast<size_t>(got);
  }
  return ReadWhole::Done;
}

}  // namespace tidemark
