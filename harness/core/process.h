// Child processes and the file descriptors they are handed, as RAII values: the one way
// Tidemark starts a program (a lane's server, a driver build's batch child, observe's program,
// a capture's tool, the bench's floor program). A child still running when its value goes is
// killed and reaped, so no path leaves one behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/die_by_signal.h"  // die_by_signal, beside the processes it ends
#include "core/error.h"

namespace tidemark {

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

// "exited with status 3", "killed by signal 9 (SIGKILL, Killed)".
std::string describe_wait_status(int status);
// A wait status as a shell's exit code: the status, or 128 + N for signal N.
int exit_code_of(int status);

// A process's environment, NAME=VALUE each; a later entry of a name replaces an earlier one.
using ProcessEnvironment = std::vector<std::string>;
// This process's.
ProcessEnvironment this_environment();
// The value `environment` gives `name` (its last entry of that name), if any.
std::optional<std::string> value_in(const ProcessEnvironment& environment, std::string_view name);
// `environment` as a child's settings (ChildProcess::Options::set_env; given whole, inherit_env off).
std::vector<std::pair<std::string, std::string>> settings_of(const ProcessEnvironment& environment);
// `environment` with each of `settings` set, in order: replacing the entry of its name, else added.
ProcessEnvironment with_settings(ProcessEnvironment environment,
                                 const std::vector<std::pair<std::string, std::string>>& settings);

// A child that died under the process talking to it (a lane's server): its pid, its wait status
// and its last words (its log's last lines), or "".
struct ProcessDeath {
  int64_t pid = 0;
  int wait_status = 0;
  std::string said;
};

class ChildProcess {
 public:
  struct Options {
    // A path, or a name found on this process's PATH.
    std::string program;
    std::vector<std::string> args;  // after argv[0], which is `program`
    // The child's environment: all of ours (inherit_env), else only the names in keep_env that
    // are set in ours; then `set_env`, each replacing a variable of the same name.
    bool inherit_env = false;
    std::vector<std::string> keep_env;
    std::vector<std::pair<std::string, std::string>> set_env;
    int pass_fd = -1;  // becomes fd 3 in the child
    bool capture_stdout = false;
    std::string stderr_path;  // the child's stderr goes here (appended); empty: ours
    bool stdout_too = false;  // with stderr_path and no capture: its stdout goes there as well
    bool truncate = false;    // stderr_path is emptied first rather than appended to
    // A process group of its own (the child leads it): kill() and the end of the value reach
    // every process it started, a server that forks a renderer per client included.
    bool own_group = false;
    // The child is killed (SIGKILL) when the thread that spawned it ends, tidemark killed
    // included: a server never outlives the run that started it.
    bool dies_with_parent = false;
  };

  // Starts the child. A program that is not found or cannot be executed is an Environment
  // error naming it (the exec's own errno, passed back over a close-on-exec pipe).
  static Result<ChildProcess> spawn(const Options& options);
  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  int stdout_fd() const { return stdout_.get(); }
  // Reads one line from the child's stdout, within the deadline.
  Result<std::string> read_line(std::chrono::steady_clock::time_point deadline);
  // The wait status once the child has ended, waiting at most `timeout`.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  // Waits as long as the child runs: its wait status.
  int wait();
  // The child's peak resident set in KiB (its ru_maxrss), once wait_for saw it end.
  std::optional<uint64_t> peak_rss_kib() const { return peak_rss_kib_; }
  void kill(int signal) const;
  // A child with a group of its own: SIGKILL to the group, the leader reaped, and every other
  // process of it seen to end (through a pidfd each: they are not ours to reap) within `within`.
  // False if one still runs then; true at once for a child without a group.
  bool end_group(std::chrono::milliseconds within);

 private:
  void reap();

  pid_t pid_ = -1;
  bool own_group_ = false;
  std::optional<int> status_;
  std::optional<uint64_t> peak_rss_kib_;
  UniqueFd stdout_;
  UniqueFd pidfd_;
  std::string pending_;  // stdout bytes read past the last line
};

// Kills `root` and every process descended from it, whatever group or session each made for
// itself (a lane's server, a renderer server and the renderer it forked per client): the tree is
// read from /proc and stopped (SIGSTOP) until reading it again finds no new process, so none forks
// away while it is killed, then each is SIGKILLed and seen to end (a pidfd each) within `within`.
// `root` is left for its parent to reap. False if one still runs then.
bool kill_tree(pid_t root, std::chrono::milliseconds within);
// How long a killed tree may take to end: a process with a large address space (a sanitized
// server, a driver's) can take seconds to unmap it on a loaded machine; seen at 2 s and more.
inline constexpr std::chrono::seconds kKilledTreeEndsWithin{10};

// Runs `command` (its first word found on PATH) with `environment` added to this process's,
// its stdout and stderr into `log`, to its end: its exit code (128 + N for signal N). An
// Environment error when it cannot be started, `hint` appended (what to install).
Result<int> run_to_file(const std::vector<std::string>& command,
                        const std::vector<std::pair<std::string, std::string>>& environment,
                        const std::filesystem::path& log, std::string_view hint = {});

}  // namespace tidemark
