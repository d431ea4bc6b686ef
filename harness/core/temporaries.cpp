#include "core/temporaries.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "core/die_by_signal.h"
#include "core/ending.h"
#include "core/files.h"
#include "core/process.h"

namespace tidemark {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kProcessFolderPrefix = "tidemark-process-";
constexpr const char* kLockName = "owner.lock";
constexpr const char* kTemporariesIn = "TIDEMARK_TEMPORARIES_IN";

// Nested in another Tidemark's folder it is just the pid: a Unix socket's path in a server's folder
// below must stay under 108 bytes.
std::string process_folder_name(pid_t pid, bool nested) {
  return nested ? std::to_string(pid) : fmt::format("{}{}", kProcessFolderPrefix, pid);
}

// This process's folder: made at the first temporary folder, removed at exit (a static's end) or
// by the termination thread. A child forked from this process makes its folders in it too.
struct ProcessFolder {
  std::mutex mutex;
  std::atomic<pid_t> owner{0};
  fs::path path;
  UniqueFd lock;  // flock'd while this process (or a child forked from it) runs

  ~ProcessFolder() {
    wait_if_ending();  // the termination thread removes it, then ends the process
    if (owner.load() != ::getpid()) return;
    remove();
    sweep_abandoned_temporaries();  // a child tidemark killed outright during this run
  }
  void remove() {
    if (owner.load() != ::getpid()) return;
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

// The folders adopted elsewhere that exist now, for the termination thread to remove.
struct Adopted {
  std::mutex mutex;
  std::vector<fs::path> folders;
  void remove_all() {
    std::lock_guard hold(mutex);
    std::error_code ignored;
    for (const auto& folder : folders) fs::remove_all(folder, ignored);
  }
};
Adopted& adopted() {
  static Adopted* const list = new Adopted;  // never destroyed: the termination thread may use it at exit
  return *list;
}

ProcessFolder& process_folder() {
  static ProcessFolder folder;
  return folder;
}

Result<fs::path> process_folder_path() {
  ProcessFolder& folder = process_folder();
  // Its path is set before its owner: read first, so that a child forked while another thread
  // held the mutex never waits for it.
  if (folder.owner.load() != 0) return folder.path;
  std::lock_guard hold(folder.mutex);
  if (folder.owner.load() != 0) return folder.path;
  const pid_t self = ::getpid();
  std::error_code error;
  fs::path temporary;
  // A tidemark another started makes its folder in the other's (temporaries_for_children): the
  // other's removal takes it too, however this one ends.
  const char* in = std::getenv(kTemporariesIn);
  const bool nested = in && fs::is_directory(in, error);
  if (nested)
    temporary = in;
  else
    temporary = fs::temp_directory_path(error);
  if (error) return fail(ErrorKind::Environment, fmt::format("no temporary folder (TMPDIR): {}", error.message()));
  const fs::path path = temporary / process_folder_name(self, nested);
  fs::remove_all(path, error);  // a gone process's, that had this pid
  if (::mkdir(path.c_str(), 0700) != 0) return std::unexpected(write_error(path, errno));
  UniqueFd lock(::open((path / kLockName).c_str(), O_CREAT | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!lock || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0)
    return std::unexpected(write_error(path / kLockName, errno));
  folder.path = path;
  folder.lock = std::move(lock);
  folder.owner.store(self);
  return folder.path;
}

std::atomic<bool> ending{false};

// The termination handler's pipe to the thread that cleans up, and the process that set it.
std::atomic<pid_t> handler_owner{0};
int wake_cleanup[2] = {-1, -1};

extern "C" void on_termination(int signal) {
  if (::getpid() != handler_owner.load()) die_by_signal(signal);  // a forked child: as if no handler
  const int saved = errno;
  const auto number = static_cast<unsigned char>(signal);
  (void)!::write(wake_cleanup[1], &number, 1);
  errno = saved;
}

[[noreturn]] void clean_up_then_die() {
  unsigned char signal = SIGTERM;
  while (::read(wake_cleanup[0], &signal, 1) < 0 && errno == EINTR) {
  }
  ending.store(true);
  (void)kill_child_trees(kKilledTreeEndsWithin);
  process_folder().remove();
  adopted().remove_all();
  sweep_abandoned_temporaries();  // a child tidemark's (a driver build's batch), killed with its tree
  die_by_signal(signal);
}

}  // namespace

bool process_is_ending() { return ending.load() && ::getpid() == handler_owner.load(); }

std::string temporaries_for_children() {
  const ProcessFolder& folder = process_folder();
  if (folder.owner.load() == 0) return "";
  return fmt::format("{}={}", kTemporariesIn, folder.path.string());
}

void wait_if_ending() {
  while (process_is_ending()) ::pause();
}

Result<TemporaryFolder> TemporaryFolder::make(std::string_view kind) {
  TIDEMARK_TRY(root, process_folder_path());
  std::string pattern = (root / fmt::format("{}-XXXXXX", kind)).string();  // the root says whose
  if (!::mkdtemp(pattern.data())) return std::unexpected(write_error(pattern, errno));
  return TemporaryFolder(pattern);
}

Status TemporaryFolder::room_for(std::string_view kind, const fs::path& socket) {
  TIDEMARK_TRY(root, process_folder_path());
  const fs::path inside = fs::path(fmt::format("{}-XXXXXX", kind)) / socket;
  const size_t length = (fs::absolute(root) / inside).string().size();
  if (length < sizeof(sockaddr_un::sun_path)) return {};
  return fail(ErrorKind::Environment,
              fmt::format("expected a temporary folder (TMPDIR) short enough for a socket's path under {} bytes, "
                          "found {} ({} bytes with {})",
                          sizeof(sockaddr_un::sun_path), root.parent_path().string(), length,
                          (root.filename() / inside).string()));
}

TemporaryFolder::TemporaryFolder(fs::path path) : path_(std::move(path)), owner_(::getpid()) {}

TemporaryFolder TemporaryFolder::adopt(fs::path folder) {
  Adopted& list = adopted();
  std::lock_guard hold(list.mutex);
  list.folders.push_back(folder);
  return TemporaryFolder(std::move(folder));
}

TemporaryFolder::~TemporaryFolder() {
  if (path_.empty() || owner_ != ::getpid()) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  Adopted& list = adopted();
  std::lock_guard hold(list.mutex);
  std::erase(list.folders, path_);
}

void sweep_abandoned_temporaries() {
  std::error_code error;
  const fs::path temporary = fs::temp_directory_path(error);
  if (error) return;
  for (const auto& entry : fs::directory_iterator(temporary, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kProcessFolderPrefix)) continue;
    const std::string digits = name.substr(kProcessFolderPrefix.size());
    if (digits.empty() || digits.size() > 9 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || process_runs(pid)) continue;
    // Its owner has gone; a child forked from it may still use it, and holds the lock then.
    const UniqueFd lock(::open((entry.path() / kLockName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (lock && ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) continue;
    std::error_code ignored;
    fs::remove_all(entry.path(), ignored);
  }
}

void end_cleanly_on_termination() {
  sweep_abandoned_temporaries();
  if (::pipe2(wake_cleanup, O_CLOEXEC) != 0) return;
  handler_owner.store(::getpid());
  std::atexit(wait_if_ending);  // a thread that returns from main while the children are killed
  std::thread(clean_up_then_die).detach();
  struct sigaction action {};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
    struct sigaction before {};
    ::sigaction(signal, nullptr, &before);
    if (before.sa_handler != SIG_IGN) ::sigaction(signal, &action, nullptr);  // nohup's and `cmd &`'s ignoring stays
  }
}

}  // namespace tidemark
