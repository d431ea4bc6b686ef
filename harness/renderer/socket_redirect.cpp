// libtidemark_socket_redirect.so, preloaded into a driver's client whose server socket is a fixed
// path (Debian 12's Mesa 22.3.6 virpipe client always connects to /tmp/.virgl_test): a connect()
// to TIDEMARK_SOCKET_FROM goes to TIDEMARK_SOCKET_TO, the run's own server, so two runs never
// share one. Written by hand: no library redirects one socket path for one process, and a mount
// namespace (a bind mount over the fixed path) needs privileges a test run may not have. It
// links nothing of Tidemark's and is built without the sanitizers, as it goes into any program.
#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" __attribute__((visibility("default"))) int connect(int fd, const sockaddr* address, socklen_t length) {
  using Connect = int (*)(int, const sockaddr*, socklen_t);
  static const Connect next = reinterpret_cast<Connect>(::dlsym(RTLD_NEXT, "connect"));
  const char* from = std::getenv("TIDEMARK_SOCKET_FROM");
  const char* to = std::getenv("TIDEMARK_SOCKET_TO");
  constexpr size_t kPathAt = offsetof(sockaddr_un, sun_path);
  if (address != nullptr && from != nullptr && to != nullptr && address->sa_family == AF_UNIX && length > kPathAt) {
    const auto* named = reinterpret_cast<const sockaddr_un*>(address);
    const size_t room = std::min(static_cast<size_t>(length) - kPathAt, sizeof named->sun_path);
    const size_t path_length = ::strnlen(named->sun_path, room);
    const size_t to_length = std::strlen(to);
    if (path_length == std::strlen(from) && std::memcmp(named->sun_path, from, path_length) == 0 &&
        to_length < sizeof named->sun_path) {
      sockaddr_un redirected{};
      redirected.sun_family = AF_UNIX;
      std::memcpy(redirected.sun_path, to, to_length + 1);
      return next(fd, reinterpret_cast<const sockaddr*>(&redirected), static_cast<socklen_t>(kPathAt + to_length + 1));
    }
  }
  return next(fd, address, length);
}
