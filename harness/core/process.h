// Child processes and the file descriptors they are handed, as RAII values: the one way
// Tidemark starts a program (a lane's server, a driver build's batch child, observe's program,
// a capture's tool, the bench's floor program). A child still running when its value goes is
// killed and reaped, so no path leaves one behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <cstdint>
#include <filesystem>
#include <memory>
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

// A process that a child of this one started and left running when it ended (a daemon that
// forked twice and made a session of its own), found re-parented to this process.
struct LeftRunning {
  pid_t pid = 0;
  std::string command;  // its command line, cut short
};

// Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): whatever any child of it leaves
// running is re-parented here, not to init, so that end_left_running() finds it; and ends what
// is left at exit. tidemark and tidemark-server call it first; ChildProcess::fork makes its child one.
void adopt_orphans();
// Ends (kill_tree) and reaps every process re-parented to this one, with what it started, and
// says each on stderr. Called at each child's end (ChildProcess), where it waits while another
// child of this process still runs (a sibling's daemon may be its to use), and at exit.
std::vector<LeftRunning> end_left_running();

class OutputKeeper;

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
    // With stderr_path: the file keeps only about the child's last `keep_last` bytes (a pipe
    // between, drained by a thread of ours), so a child that writes without end fills neither the
    // disk nor our memory. 0: the child writes the file itself, whole.
    size_t keep_last = 0;
  };

  // Starts the child. A program that is not found or cannot be executed is an Environment
  // error naming it (the exec's own errno, passed back over a close-on-exec pipe).
  static Result<ChildProcess> spawn(const Options& options);
  // A copy of this process that runs `body`, then ends (_exit(0)); it dies with this process
  // (PR_SET_PDEATHSIG). What was printed is flushed and the status line's ticker held still for
  // the fork: the copy inherits no lock the ticker holds.
  static Result<ChildProcess> fork(const std::function<void()>& body);
  ChildProcess();  // out of line: OutputKeeper is complete only there
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
  // What was ended at its end, left running (end_left_running), once it has ended.
  const std::vector<LeftRunning>& left_running() const { return left_running_; }
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
  std::unique_ptr<OutputKeeper> output_;
  std::vector<LeftRunning> left_running_;
};

// Kills `root` and every process descended from it, whatever group or session each made for
// itself (a lane's server, a renderer server and the renderer it forked per client): the tree is
// read from /proc and stopped (SIGSTOP) until reading it again finds no new process, so none forks
// away while it is killed, then each is SIGKILLed and seen to end (a pidfd each) within `within`.
// `root` is left for its parent to reap. False if one still runs then.
bool kill_tree(pid_t root, std::chrono::milliseconds within);

// Whether `pid` runs now: a zombie has ended (only its parent's wait is left).
bool process_runs(pid_t pid);
// Kills every process this one started and what they started (kill_tree each), the children
// themselves left to be reaped: a Tidemark that is told to end leaves no build, server or subject
// running. False if one still runs after `within`.
bool kill_child_trees(std::chrono::milliseconds within);
// How long a killed tree may take to end: a process with a large address space (a sanitized
// server, a driver's) can take seconds to unmap it on a loaded machine; seen at 2 s and more.
inline constexpr std::chrono::seconds kKilledTreeEndsWithin{10};

// Runs `command` (its first word found on PATH) with `environment` added to this process's,
// its stdout and stderr into `log`, to its end: its exit code (128 + N for signal N). An
// Environment error when it cannot be started, `hint` appended (what to install).
// With `keep_last`, `log` keeps only about that many last bytes (Options::keep_last).
Result<int> run_to_file(const std::vector<std::string>& command,
                        const std::vector<std::pair<std::string, std::string>>& environment,
                        const std::filesystem::path& log, std::string_view hint = {}, size_t keep_last = 0);

// What a log of a child's keeps (Options::keep_last): enough for what it said last.
inline constexpr size_t kLogKept = 1024 * 1024;
// What a message quotes of a child's log: its last `count` lines that are not empty, read from
// its last bytes only, each cut to a bounded length (the cut said) and control bytes shown as
// '?': bounded whatever the child wrote. None if it cannot be read as a file.
std::vector<std::string> last_lines(const std::filesystem::path& log, size_t count);
// The last line of `log` that begins with `prefix`, quoted so: the whole log is read, in pieces
// (a log a child keeps is bounded, Options::keep_last).
std::optional<std::string> last_line_starting(const std::filesystem::path& log, std::string_view prefix);

}  // namespace tidemark
