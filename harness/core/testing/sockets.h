// A test's end of a Unix socket: connected, written and read with a patience, so that a failing
// test fails within it rather than hangs.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/process.h"

namespace tidemark::test_support {

inline constexpr int kPatienceMs = 10000;

inline sockaddr_un address_of(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  return address;
}

// Reads and writes on `fd` give up after kPatienceMs.
inline void patient(int fd) {
  timeval limit{.tv_sec = kPatienceMs / 1000, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
}

inline UniqueFd connect_to(const std::filesystem::path& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const sockaddr_un address = address_of(path);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address), 0) << path;
  patient(fd.get());
  return fd;
}

inline void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t put = ::write(fd, text.data(), text.size());
    ASSERT_GT(put, 0) << std::strerror(errno);
    text.remove_prefix(static_cast<size_t>(put));
  }
}

// Reads exactly `size` bytes with plain read()s (as the vtest client reads a reply's header),
// or fewer if the stream ends.
inline std::string read_exactly(int fd, size_t size) {
  std::string text(size, '\0');
  size_t have = 0;
  while (have < size) {
    const ssize_t got = ::read(fd, text.data() + have, size - have);
    if (got <= 0) break;
    have += static_cast<size_t>(got);
  }
  text.resize(have);
  return text;
}

}  // namespace tidemark::test_support
