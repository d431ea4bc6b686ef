#include "reduce/judge_worker.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "core/process.h"

namespace tidemark::reduce {
namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads exactly `size` bytes; with a deadline, gives up when it passes (`late` says so).
bool read_exact(int fd, char* out, size_t size, std::optional<Clock::time_point> deadline, bool& late) {
  while (size > 0) {
    if (deadline) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      pollfd ready{fd, POLLIN, 0};
      const int polled = left > 0 ? ::poll(&ready, 1, static_cast<int>(left)) : 0;
      if (polled < 0 && errno == EINTR) continue;
      if (polled == 0) {
        late = true;
        return false;
      }
      if (polled < 0) return false;
    }
    ssize_t n = ::read(fd, out, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A message down a pipe: its length (8 bytes, this machine's order: both ends are one
// program), then its bytes.
bool send_message(int fd, std::string_view bytes) {
  uint64_t size = bytes.size();
  return write_all(fd, std::string_view(reinterpret_cast<const char*>(&size), sizeof size)) && write_all(fd, bytes);
}
std::optional<std::string> receive_message(int fd, std::optional<Clock::time_point> deadline, bool& late) {
  uint64_t size = 0;
  if (!read_exact(fd, reinterpret_cast<char*>(&size), sizeof size, deadline, late)) return std::nullopt;
  std::string bytes(size, '\0');
  if (!read_exact(fd, bytes.data(), bytes.size(), deadline, late)) return std::nullopt;
  return bytes;
}

}  // namespace

std::unique_ptr<JudgeWorker> JudgeWorker::start(const Judge& judge) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0) return nullptr;
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return nullptr;
  }
  std::fflush(nullptr);
  pid_t pid = fork_child();
  if (pid == 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    bool late = false;  // the copy waits for its next text as long as the reducer lives
    while (auto text = receive_message(to_child[0], std::nullopt, late))
      if (!send_message(from_child[1], judge(*text))) break;
    ::_exit(0);  // no atexit handlers, no driver teardown: a copy's only output is its verdicts
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (pid < 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    return nullptr;
  }
  return std::unique_ptr<JudgeWorker>(new JudgeWorker(pid, to_child[1], from_child[0]));
}

JudgeWorker::~JudgeWorker() {
  ::close(to_);
  ::close(from_);
  if (reaped_) return;
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  child_reaped(pid_);
}

bool JudgeWorker::send(const std::string& text) { return !reaped_ && send_message(to_, text); }

std::optional<std::string> JudgeWorker::receive(std::chrono::milliseconds deadline, std::string& why) {
  bool late = false;
  if (!reaped_)
    if (auto reply = receive_message(from_, Clock::now() + deadline, late)) return reply;
  if (late) {
    ::kill(pid_, SIGKILL);
    reap();
    why = fmt::format("the candidate's judge gave no verdict within {} ms and was killed", deadline.count());
  } else {
    why = reap();
  }
  return std::nullopt;
}

std::string JudgeWorker::reap() {
  int status = 0;
  if (!reaped_)
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  if (!reaped_) child_reaped(pid_);
  reaped_ = true;
  return WIFSIGNALED(status) ? fmt::format("the candidate's run was killed by signal {}", WTERMSIG(status))
                             : fmt::format("the candidate's judge exited {}", WEXITSTATUS(status));
}

}  // namespace tidemark::reduce
