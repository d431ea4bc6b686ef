#include "core/process.h"

#include "core/ending.h"
#include "core/files.h"
#include "core/progress.h"
#include "core/regular_file.h"
#include "core/whole_bytes.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

extern char** environ;

namespace tidemark {

namespace fs = std::filesystem;

ProcessEnvironment this_environment() {
  ProcessEnvironment out;
  for (char** entry = environ; *entry; ++entry) out.emplace_back(*entry);
  return out;
}

std::optional<std::string> value_in(const ProcessEnvironment& environment, std::string_view name) {
  std::optional<std::string> value;
  for (const auto& entry : environment)
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=')
      value = entry.substr(name.size() + 1);
  return value;
}

std::vector<std::pair<std::string, std::string>> settings_of(const ProcessEnvironment& environment) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : environment)
    if (const size_t equals = entry.find('='); equals != std::string::npos)
      out.emplace_back(entry.substr(0, equals), entry.substr(equals + 1));
  return out;
}

ProcessEnvironment with_settings(ProcessEnvironment environment,
                                 const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [name, value] : settings) {
    std::string entry = name + "=" + value;
    auto same = std::find_if(environment.begin(), environment.end(), [&](const std::string& each) {
      return each.size() > name.size() && each.starts_with(name) && each[name.size()] == '=';
    });
    if (same != environment.end())
      *same = std::move(entry);
    else
      environment.push_back(std::move(entry));
  }
  return environment;
}

namespace {

// A log the output keeper cuts in place to its last bytes: read as well as written (the cut preads
// it), and not O_APPEND (Linux sends a pwrite on such a file to its end). Refused as every log is.
Result<UniqueFd> open_log_to_cut(const std::string& path, bool truncate) {
  UniqueFd fd(open_regular_file(path.c_str(), O_RDWR | O_CREAT | (truncate ? O_TRUNC : 0)));
  if (fd) return fd;
  return open_file_to_write(path, truncate ? WriteMode::Replace : WriteMode::Append);  // its error, in one wording
}

std::unexpected<Error> os_error(std::string_view what) {
  return fail(ErrorKind::Io, fmt::format("{}: {}", what, std::strerror(errno)));
}

// The file exec will run: a path as given, a bare name looked up on our PATH here, before the
// fork (the child may not allocate between fork and exec).
std::optional<std::string> find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / program;
    std::error_code ec;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, ec)) return candidate.string();
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

// A descriptor the child dups from is moved above fd 3, which pass_fd may take.
Result<UniqueFd> above_three(UniqueFd fd) {
  if (!fd || fd.get() > 3) return fd;
  UniqueFd moved(::fcntl(fd.get(), F_DUPFD_CLOEXEC, 10));
  if (!moved) return os_error("fcntl");
  return moved;
}

std::vector<std::string> child_environment(const ChildProcess::Options& options) {
  auto replaced = [&](std::string_view name) {
    for (const auto& [set, value] : options.set_env)
      if (set == name) return true;
    return false;
  };
  std::vector<std::string> out;
  const std::string temporaries = temporaries_for_children();
  auto ours = [&](std::string_view name) {
    return !temporaries.empty() && temporaries.starts_with(std::string(name) + "=");
  };
  if (options.inherit_env) {
    for (char** entry = environ; *entry; ++entry) {
      const std::string_view variable(*entry);
      const std::string_view name = variable.substr(0, variable.find('='));
      if (!replaced(name) && !ours(name)) out.emplace_back(variable);
    }
  } else {
    for (const auto& name : options.keep_env)
      if (const char* value = std::getenv(name.c_str()); value && !replaced(name) && !ours(name))
        out.push_back(name + "=" + value);
  }
  for (const auto& [name, value] : options.set_env) out.push_back(name + "=" + value);
  if (!temporaries.empty()) out.push_back(temporaries);
  return out;
}

// Each process there is (zombies too), with its state, parent and group, from /proc.
struct Running {
  pid_t pid = 0, parent = 0, group = 0;
  bool zombie = false;
};
std::vector<Running> every_process() {
  std::vector<Running> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t end = line.rfind(')');
    if (end == std::string::npos) continue;
    std::istringstream rest(line.substr(end + 2));
    char state = 0;
    Running process{.pid = std::stoi(name)};
    if (!(rest >> state >> process.parent >> process.group)) continue;
    process.zombie = state == 'Z';
    out.push_back(process);
  }
  return out;
}

// Each process that runs (zombies have ended).
std::vector<Running> running_processes() {
  std::vector<Running> out = every_process();
  std::erase_if(out, [](const Running& process) { return process.zombie; });
  return out;
}

// The processes of group `group` that have not ended.
std::vector<pid_t> running_in_group(pid_t group) {
  std::vector<pid_t> members;
  for (const Running& process : running_processes())
    if (process.group == group) members.push_back(process.pid);
  return members;
}

// `root` and its descendants that run now.
std::vector<pid_t> tree_of(pid_t root) {
  const auto processes = running_processes();
  std::vector<pid_t> tree{root};
  for (size_t i = 0; i < tree.size(); ++i)
    for (const Running& process : processes)
      if (process.parent == tree[i] && std::find(tree.begin(), tree.end(), process.pid) == tree.end())
        tree.push_back(process.pid);
  return tree;
}

// Waits until the process behind `pidfd` has ended (it is readable then, ours or not), at most
// until `deadline`.
bool ended_by(int pidfd, std::chrono::steady_clock::time_point deadline) {
  pollfd ended{pidfd, POLLIN, 0};
  int ready = 0;
  do {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    ready = ::poll(&ended, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

// Waits until every process of `group` has ended, at most until `deadline`: false if one still
// runs then.
bool wait_group_ended(pid_t group, std::chrono::steady_clock::time_point deadline) {
  for (const pid_t pid : running_in_group(group)) {
    const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (pidfd && !ended_by(pidfd.get(), deadline)) return false;  // no pidfd: it ended since the scan
  }
  return true;
}

// The children this process started (spawn, fork_child) and has not reaped: any other child
// it has was re-parented to it, left running by one of them. Forks take the lock, so a sweep
// never sees a child before it is known. Never destroyed: the sweep at exit uses it.
struct OwnChildren {
  std::mutex mutex;
  std::set<pid_t> pids;
};
OwnChildren& own_children() {
  static OwnChildren* children = new OwnChildren;
  return *children;
}

// This process's children (zombies too), from /proc.
std::vector<Running> children_here() {
  std::vector<Running> out = every_process();
  std::erase_if(out, [parent = ::getpid()](const Running& process) { return process.parent != parent; });
  return out;
}

std::string command_line_of(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/cmdline", pid));
  std::string text(1024, '\0');  // enough to name it, bounded whatever its arguments
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  for (char& c : text)  // one line: its words apart, a newline inside one (sh -c's script) as a space
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::vector<LeftRunning> sweep(bool beside_own_children) {
  const std::lock_guard lock(own_children().mutex);
  const auto children = children_here();
  auto own = [](pid_t pid) { return own_children().pids.contains(pid); };
  if (!beside_own_children)
    for (const Running& child : children)
      if (own(child.pid) && !child.zombie) return {};
  std::vector<LeftRunning> ended;
  for (const Running& child : children) {
    if (own(child.pid)) continue;
    if (!child.zombie) {
      ended.push_back({child.pid, command_line_of(child.pid)});
      (void)kill_tree(child.pid, kKilledTreeEndsWithin);
    }
    while (::waitpid(child.pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  for (const LeftRunning& process : ended)
    std::fprintf(stderr, "tidemark: ended pid %d (%s), which a process Tidemark started left running\n",
                 static_cast<int>(process.pid), process.command.c_str());
  return ended;
}

}  // namespace

bool process_runs(pid_t pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t end = line.rfind(')');
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] != 'Z';
}

void adopt_orphans() {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  static const bool registered = std::atexit([] { (void)sweep(true); }) == 0;
  (void)registered;
}

std::vector<LeftRunning> end_left_running() { return sweep(false); }

bool kill_tree(pid_t root, std::chrono::milliseconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  std::vector<pid_t> stopped;
  for (;;) {
    bool more = false;
    for (const pid_t pid : tree_of(root))
      if (std::find(stopped.begin(), stopped.end(), pid) == stopped.end()) {
        ::kill(pid, SIGSTOP);
        stopped.push_back(pid);
        more = true;
      }
    if (!more) break;
  }
  std::vector<UniqueFd> ends;
  for (const pid_t pid : stopped) {
    ends.emplace_back(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    ::kill(pid, SIGKILL);
  }
  for (size_t i = 0; i < stopped.size(); ++i)  // no pidfd: it ended before; the root is its parent's to reap
    if (ends[i] && stopped[i] != root && !ended_by(ends[i].get(), deadline)) return false;
  return true;
}

bool kill_child_trees(std::chrono::milliseconds within) {
  const pid_t self = ::getpid();
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (int round = 0; round < 8; ++round) {  // a child another thread started meanwhile is found by the next
    std::vector<pid_t> children;
    for (const Running& process : running_processes())
      if (process.parent == self) children.push_back(process.pid);
    if (children.empty()) return true;
    for (const pid_t child : children) {
      const UniqueFd ended(static_cast<int>(::syscall(SYS_pidfd_open, child, 0)));
      if (!kill_tree(child, within) || (ended && !ended_by(ended.get(), deadline))) return false;
    }
  }
  return false;
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void UniqueFd::reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    const char* name = ::sigdescr_np(signal);
    const char* abbrev = ::sigabbrev_np(signal);
    return fmt::format("killed by signal {} (SIG{}, {})", signal, abbrev ? abbrev : "?", name ? name : "?");
  }
  return fmt::format("ended with wait status {}", status);
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

// Drains a child's output from a pipe into its log on a thread of its own, the log cut to its
// last `keep` bytes each time it passes twice that: the disk and our memory stay bounded.
class OutputKeeper {
 public:
  OutputKeeper(UniqueFd from, UniqueFd log, size_t keep)
      : from_(std::move(from)), log_(std::move(log)), stop_(::eventfd(0, EFD_CLOEXEC)), keep_(keep) {
    struct stat info {};
    if (::fstat(log_.get(), &info) == 0) size_ = static_cast<size_t>(info.st_size);
    ::lseek(log_.get(), 0, SEEK_END);
    thread_ = std::thread([this] { drain(); });
  }
  ~OutputKeeper() { finish(); }
  OutputKeeper(const OutputKeeper&) = delete;
  OutputKeeper& operator=(const OutputKeeper&) = delete;

  // Once the child has ended: what is there to read is kept, then the thread ends, whoever else
  // still holds the pipe's other end.
  void finish() {
    if (!thread_.joinable()) return;
    const uint64_t one = 1;
    (void)!::write(stop_.get(), &one, sizeof one);
    thread_.join();
  }

 private:
  void drain() {
    for (;;) {
      pollfd ready[2] = {{from_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
      if (::poll(ready, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (ready[1].revents != 0) {
        ::fcntl(from_.get(), F_SETFL, O_NONBLOCK);
        while (keep_read()) {
        }
        return;
      }
      if (!keep_read()) return;
    }
  }
  // False at the end of the output (or nothing more to read without waiting).
  bool keep_read() {
    const ssize_t got = ::read(from_.get(), chunk_, sizeof chunk_);
    if (got < 0 && errno == EINTR) return true;
    if (got <= 0) return false;
    if (!write_whole(log_.get(), chunk_, static_cast<size_t>(got)))
      return true;  // a log that cannot be written: drained all the same
    size_ += static_cast<size_t>(got);
    if (size_ > 2 * keep_) cut_to_last();
    return true;
  }
  void cut_to_last() {
    const off_t from = static_cast<off_t>(size_ - keep_);
    for (size_t moved = 0; moved < keep_;) {
      const ssize_t got =
          ::pread(log_.get(), chunk_, std::min(sizeof chunk_, keep_ - moved), from + static_cast<off_t>(moved));
      if (got <= 0 || ::pwrite(log_.get(), chunk_, static_cast<size_t>(got), static_cast<off_t>(moved)) != got) break;
      moved += static_cast<size_t>(got);
    }
    (void)!::ftruncate(log_.get(), static_cast<off_t>(keep_));
    ::lseek(log_.get(), 0, SEEK_END);
    size_ = keep_;
  }

  UniqueFd from_, log_, stop_;
  size_t keep_ = 0, size_ = 0;
  char chunk_[64 * 1024];
  std::thread thread_;
};

Result<ChildProcess> ChildProcess::spawn(const Options& options) {
  const auto program = find_program(options.program);
  if (!program) return fail(ErrorKind::Environment, fmt::format("cannot start '{}': not found", options.program));
  std::vector<std::string> env_strings = child_environment(options);
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_strings{options.program};
  arg_strings.insert(arg_strings.end(), options.args.begin(), options.args.end());
  std::vector<char*> argv;
  for (auto& arg : arg_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);

  UniqueFd out_read, out_write;
  if (options.capture_stdout) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return os_error("pipe");
    out_read = UniqueFd(pipe_fds[0]);
    TIDEMARK_TRY(write_end, above_three(UniqueFd(pipe_fds[1])));
    out_write = std::move(write_end);
  }
  UniqueFd err_file, kept_log, kept_from;
  if (!options.stderr_path.empty()) {
    // A log is a report's file: never a link's target nor a FIFO (/dev/null is asked for by name).
    if (options.stderr_path == "/dev/null") {
      err_file = UniqueFd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
      if (!err_file) return os_error("open /dev/null");
    } else {
      TIDEMARK_TRY(opened, options.keep_last > 0
                               ? open_log_to_cut(options.stderr_path, options.truncate)
                               : open_file_to_write(options.stderr_path,
                                                    options.truncate ? WriteMode::Replace : WriteMode::Append));
      err_file = std::move(opened);
    }
    if (options.keep_last > 0) {  // the child writes into a pipe; the file is ours to keep
      int pipe_fds[2];
      if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return os_error("pipe");
      kept_log = std::move(err_file);
      kept_from = UniqueFd(pipe_fds[0]);
      err_file = UniqueFd(pipe_fds[1]);
    }
    TIDEMARK_TRY(moved, above_three(std::move(err_file)));
    err_file = std::move(moved);
  }
  // The exec's errno comes back on this pipe; a successful exec closes it unwritten.
  int exec_fds[2];
  if (::pipe2(exec_fds, O_CLOEXEC) != 0) return os_error("pipe");
  UniqueFd exec_read(exec_fds[0]);
  TIDEMARK_TRY(exec_write, above_three(UniqueFd(exec_fds[1])));
  // Anything that can fail is prepared above: between fork and exec only async-signal-safe calls.
  const pid_t parent = ::getpid();
  std::unique_lock known(own_children().mutex);  // known as ours before any sweep looks
  pid_t pid = ::fork();
  if (pid < 0) return os_error("fork");
  if (pid == 0) {
    if (options.own_group && ::setpgid(0, 0) != 0) ::_exit(127);
    if (options.dies_with_parent) {
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ::_exit(127);
      if (::getppid() != parent) ::_exit(127);  // the parent died before the request was made
    }
    if (options.pass_fd >= 0) {
      if (options.pass_fd == 3) {
        int flags = ::fcntl(3, F_GETFD);
        ::fcntl(3, F_SETFD, flags & ~FD_CLOEXEC);
      } else if (::dup2(options.pass_fd, 3) < 0) {
        ::_exit(127);
      }
    }
    if (out_write && ::dup2(out_write.get(), 1) < 0) ::_exit(127);
    if (err_file && ::dup2(err_file.get(), 2) < 0) ::_exit(127);
    if (err_file && options.stdout_too && !out_write && ::dup2(err_file.get(), 1) < 0) ::_exit(127);
    ::execve(program->c_str(), argv.data(), envp.data());
    const int error = errno;
    (void)!::write(exec_write.get(), &error, sizeof error);
    ::_exit(127);
  }
  own_children().pids.insert(pid);
  known.unlock();
  ChildProcess child;
  child.pid_ = pid;
  child.own_group_ = options.own_group;
  err_file.reset();
  if (kept_log)
    child.output_ = std::make_unique<OutputKeeper>(std::move(kept_from), std::move(kept_log), options.keep_last);
  // The parent sets the group too, so that a kill() right after spawn() reaches it either way.
  if (options.own_group) ::setpgid(pid, pid);
  child.stdout_ = std::move(out_read);
  exec_write.reset();
  int exec_error = 0;
  ssize_t got = 0;
  while ((got = ::read(exec_read.get(), &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  if (got == sizeof exec_error) {
    child.wait();
    return fail(ErrorKind::Environment,
                fmt::format("cannot start '{}': {}", options.program, std::strerror(exec_error)));
  }
  // glibc 2.36's <sys/pidfd.h> lacks extern "C"; the system call is stable.
  child.pidfd_ = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));  // readable once the child ends
  if (!child.pidfd_) return os_error("pidfd_open");
  return child;
}

Result<ChildProcess> ChildProcess::fork(const std::function<void()>& body) {
  auto still = Progress::hold_active();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  std::unique_lock lock(own_children().mutex);  // a sweep never sees the child before it is known
  int subreaper = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &subreaper);
  const pid_t pid = ::fork();
  if (pid < 0) return os_error("fork");
  if (pid == 0) {
    // The parent's children are not this one's; its only thread is the one that forked.
    own_children().pids.clear();
    lock.unlock();
    if (subreaper) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    body();
    ::_exit(0);
  }
  own_children().pids.insert(pid);
  lock.unlock();
  ChildProcess child;
  child.pid_ = pid;
  child.pidfd_ = UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));  // readable once it ends
  if (!child.pidfd_) return os_error("pidfd_open");
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    reap();
    pid_ = std::exchange(other.pid_, -1);
    own_group_ = std::exchange(other.own_group_, false);
    status_ = std::exchange(other.status_, std::nullopt);
    peak_rss_kib_ = std::exchange(other.peak_rss_kib_, std::nullopt);
    stdout_ = std::move(other.stdout_);
    pidfd_ = std::move(other.pidfd_);
    pending_ = std::move(other.pending_);
    output_ = std::move(other.output_);
    left_running_ = std::move(other.left_running_);
  }
  return *this;
}

ChildProcess::ChildProcess() = default;

ChildProcess::~ChildProcess() { reap(); }

void ChildProcess::reap() {
  if (pid_ <= 0) return;
  // A group's other processes may outlive its leader: they go too, whether it ended or not.
  if (own_group_) (void)end_group(std::chrono::milliseconds(2000));
  if (status_) return;
  ::kill(pid_, SIGKILL);
  wait();
}

bool ChildProcess::end_group(std::chrono::milliseconds within) {
  if (pid_ <= 0 || !own_group_) return true;
  ::kill(-pid_, SIGKILL);
  if (!status_) wait();
  return wait_group_ended(pid_, std::chrono::steady_clock::now() + within);
}

void ChildProcess::kill(int signal) const {
  if (pid_ > 0 && own_group_) ::kill(-pid_, signal);
  if (pid_ > 0 && !status_) ::kill(pid_, signal);
}

int ChildProcess::wait() {
  if (status_ || pid_ <= 0) return status_.value_or(0);
  int status = 0;
  rusage usage{};
  while (::wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  wait_if_ending();  // killed because Tidemark is ending: no result
  status_ = status;
  peak_rss_kib_ = static_cast<uint64_t>(usage.ru_maxrss);
  {
    const std::lock_guard lock(own_children().mutex);
    own_children().pids.erase(pid_);
  }
  left_running_ = end_left_running();
  if (output_) output_->finish();  // after the sweep: a process it ended held the output's pipe
  return status;
}

std::optional<int> ChildProcess::wait_for(std::chrono::milliseconds timeout) {
  if (status_ || pid_ <= 0) return status_;
  pollfd ended{pidfd_.get(), POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&ended, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return std::nullopt;
  return wait();
}

Result<std::string> ChildProcess::read_line(std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    if (auto newline = pending_.find('\n'); newline != std::string::npos) {
      std::string line = pending_.substr(0, newline);
      pending_.erase(0, newline + 1);
      return line;
    }
    char chunk[256];
    pollfd waiting{stdout_.get(), POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    int ready = ::poll(&waiting, 1, static_cast<int>(std::clamp<int64_t>(left.count(), 0, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return fail(ErrorKind::Environment, "no line from the child in time");
    ssize_t got = ::read(stdout_.get(), chunk, sizeof chunk);
    if (got <= 0) return fail(ErrorKind::Environment, "the child closed its output");
    pending_.append(chunk, static_cast<size_t>(got));
  }
}

Result<int> run_to_file(const std::vector<std::string>& command,
                        const std::vector<std::pair<std::string, std::string>>& environment, const fs::path& log,
                        std::string_view hint, size_t keep_last) {
  ChildProcess::Options options{.program = command.front(),
                                .args = {command.begin() + 1, command.end()},
                                .inherit_env = true,
                                .set_env = environment,
                                .stderr_path = log.string(),
                                .stdout_too = true,
                                .truncate = true,
                                .keep_last = keep_last};
  auto child = ChildProcess::spawn(options);
  if (!child) return fail(ErrorKind::Environment, child.error().message + std::string(hint));
  return exit_code_of(child->wait());
}

}  // namespace tidemark
