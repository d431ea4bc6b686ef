#include "wire/posix.h"

#include "core/files.h"
#include "core/whole_bytes.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tidemark::wire {

namespace {

std::unexpected<Error> os_error(std::string_view what) {
  return fail(ErrorKind::Io, fmt::format("{}: {}", what, std::strerror(errno)));
}

int remaining_ms(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left, 1 << 30));
}

}  // namespace

Status write_all(int fd, std::span<const uint8_t> bytes, std::optional<Clock::time_point> deadline) {
  if (write_whole(fd, bytes.data(), bytes.size(), deadline)) return {};
  if (errno == ETIMEDOUT) return fail(ErrorKind::Fatal, "timed out");
  return os_error("write");
}

std::expected<size_t, ReadError> read_some(int fd, std::span<uint8_t> bytes,
                                           std::optional<Clock::time_point> deadline) {
  for (;;) {
    pollfd waiting{fd, POLLIN, 0};
    int ready = ::poll(&waiting, 1, remaining_ms(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return std::unexpected(ReadError{ReadFailure::Io, fmt::format("poll: {}", std::strerror(errno))});
    }
    if (ready == 0) return std::unexpected(ReadError{ReadFailure::Timeout, "timed out"});
    ssize_t got = ::read(fd, bytes.data(), bytes.size());
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      if (errno == ECONNRESET) return std::unexpected(ReadError{ReadFailure::Closed, "connection reset"});
      return std::unexpected(ReadError{ReadFailure::Io, fmt::format("read: {}", std::strerror(errno))});
    }
    if (got == 0) return std::unexpected(ReadError{ReadFailure::Closed, "connection closed"});
    return static_cast<size_t>(got);
  }
}

Result<std::pair<UniqueFd, UniqueFd>> socket_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return os_error("socketpair");
  return std::pair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

Result<std::pair<std::string, uint16_t>> parse_endpoint(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return fail(ErrorKind::BadInput, fmt::format("expected HOST:PORT, found '{}'", text));
  std::string port_text = text.substr(colon + 1);
  char* end = nullptr;
  long port = std::strtol(port_text.c_str(), &end, 10);
  if (port_text.empty() || *end != '\0' || port < 0 || port > 65535)
    return fail(ErrorKind::BadInput, fmt::format("expected a port 0..65535, found '{}'", port_text));
  return std::pair{text.substr(0, colon), static_cast<uint16_t>(port)};
}

namespace {

Result<sockaddr_in> loopback_address(const std::string& host, uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1)
    return fail(ErrorKind::BadInput, fmt::format("expected an IPv4 address, found '{}'", host));
  if ((ntohl(address.sin_addr.s_addr) >> 24) != 127)
    return fail(ErrorKind::BadInput, fmt::format("expected a loopback address (127.x.x.x), found '{}'", host));
  return address;
}

}  // namespace

Result<std::string> read_session_token(const std::string& token_file, std::string_view needed_by) {
  if (token_file.empty()) {
    const char* token = std::getenv("TIDEMARK_TOKEN");
    if (!token || !*token)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: expected a session token in TIDEMARK_TOKEN or --token-file, found none", needed_by));
    return std::string(token);
  }
  TIDEMARK_TRY(text, read_given_file(token_file, "token"));
  std::istringstream in(std::move(text));
  std::string token;
  if (!std::getline(in, token) || token.empty())
    return fail(ErrorKind::BadInput, fmt::format("--token-file: expected a token on the first line of {}", token_file));
  return token;
}

Result<UniqueFd> tcp_listen(const std::string& host, uint16_t port) {
  auto address = loopback_address(host, port);
  if (!address) return std::unexpected(address.error());
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return os_error("socket");
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&*address), sizeof *address) != 0)
    return os_error(fmt::format("bind {}:{}", host, port));
  if (::listen(fd.get(), 16) != 0) return os_error("listen");
  return fd;
}

Result<uint16_t> local_port(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return os_error("getsockname");
  return ntohs(address.sin_port);
}

Result<UniqueFd> tcp_accept(int listen_fd) {
  for (;;) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return UniqueFd(fd);
    }
    if (errno != EINTR && errno != ECONNABORTED) return os_error("accept");
  }
}

Result<UniqueFd> tcp_connect(const std::string& host, uint16_t port) {
  auto address = loopback_address(host, port);
  if (!address) return std::unexpected(address.error());
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return os_error("socket");
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&*address), sizeof *address) != 0)
    return fail(ErrorKind::Environment, fmt::format("connect {}:{}: {}", host, port, std::strerror(errno)));
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace tidemark::wire
