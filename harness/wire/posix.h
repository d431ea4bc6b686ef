// File descriptors, child processes and sockets for the lanes, as RAII values.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"

namespace tidemark::wire {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

using Clock = std::chrono::steady_clock;

// Why a read came back short: the peer closed, the deadline passed, an I/O error, or (for
// frames) bytes that are not a frame.
enum class ReadFailure { Closed, Timeout, Io, Malformed };
struct ReadError {
  ReadFailure failure;
  std::string message;
};

// Writes every byte, or fails: Io for an OS error, Fatal when the deadline passed first (a
// peer that stopped reading).
Status write_all(int fd, std::span<const uint8_t> bytes, std::optional<Clock::time_point> deadline = std::nullopt);
// Reads at least one byte and at most bytes.size(); without a deadline it waits as long as
// it takes.
std::expected<size_t, ReadError> read_some(int fd, std::span<uint8_t> bytes, std::optional<Clock::time_point> deadline);

Result<std::pair<UniqueFd, UniqueFd>> socket_pair();

// Loopback only: anything else is refused.
Result<UniqueFd> tcp_listen(const std::string& host, uint16_t port);
Result<uint16_t> local_port(int fd);
Result<UniqueFd> tcp_accept(int listen_fd);
Result<UniqueFd> tcp_connect(const std::string& host, uint16_t port);
// "127.0.0.1:4000" -> host, port.
Result<std::pair<std::string, uint16_t>> parse_endpoint(const std::string& text);
// A tcp session token: the first line of `token_file`, else TIDEMARK_TOKEN — never a command
// line argument. `needed_by` names the option in the error ("--connect", "--listen").
Result<std::string> read_session_token(const std::string& token_file, std::string_view needed_by);

// "exited with status 3", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

class ChildProcess {
 public:
  struct Options {
    std::string program;
    std::vector<std::string> args;
    // The child's environment is scrubbed to these names (when set in ours) plus `set`.
    std::vector<std::string> keep_env;
    std::vector<std::pair<std::string, std::string>> set_env;
    int pass_fd = -1;  // becomes fd 3 in the child
    bool capture_stdout = false;
    std::string stderr_path;  // append the child's stderr here; empty: inherit ours
    bool stdout_too = false;  // with stderr_path and no capture: its stdout goes there as well
  };

  static Result<ChildProcess> spawn(const Options& options);
  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  int stdout_fd() const { return stdout_.get(); }
  // Reads one line from the child's stdout, within the deadline.
  Result<std::string> read_line(Clock::time_point deadline);
  // The wait status once the child has ended, waiting at most `timeout`.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  // The child's peak resident set in KiB (its ru_maxrss), once wait_for saw it end.
  std::optional<uint64_t> peak_rss_kib() const { return peak_rss_kib_; }
  void kill(int signal) const;

 private:
  void reap();

  pid_t pid_ = -1;
  std::optional<int> status_;
  std::optional<uint64_t> peak_rss_kib_;
  UniqueFd stdout_;
  UniqueFd pidfd_;
  std::string pending_;  // stdout bytes read past the last line
};

}  // namespace tidemark::wire
