// The one way a file inside a report folder is opened, header-only so that the layer (which links
// nothing of Tidemark's) opens its records the same way. A report folder is the user's: a name in
// it may be a symbolic link to a file elsewhere, or a FIFO that would block an open for ever.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace tidemark {

// open(2) of `path` with `flags` that never follows a link at the name (ELOOP), never waits for a
// FIFO's other end, and gives only a regular file (ENXIO for anything else); the descriptor is
// blocking and close-on-exec. -1 with errno set, as open(2).
inline int open_regular_file(const char* path, int flags, mode_t mode = 0644) {
  const int fd = ::open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
  if (fd < 0) return -1;
  struct stat opened {};
  if (::fstat(fd, &opened) != 0 || !S_ISREG(opened.st_mode)) {
    ::close(fd);
    errno = ENXIO;
    return -1;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace tidemark
