// What a Tidemark process leaves behind, on every way it ends. Every temporary folder is made
// under one folder of the process's own, $TMPDIR/tidemark-process-<pid>, which goes when the
// process ends: at exit, or on SIGTERM, SIGINT or SIGHUP once every child tree it started is
// killed. A process killed outright (SIGKILL) leaves its folder to the next Tidemark that starts:
// the folder's lock (flock) is free once its owner and the children it forked have all gone.
#pragma once

#include <filesystem>
#include <string_view>
#include <utility>

#include "core/error.h"

namespace tidemark {

// A folder of its own under the process's folder, removed with what it holds when the value goes.
class TemporaryFolder {
 public:
  // `kind` names it: <kind>-XXXXXX in the process's folder (short: a Unix socket's path in it is at most 107 bytes).
  static Result<TemporaryFolder> make(std::string_view kind);
  // Whether one made now has room for a socket at `socket` inside it (a Unix socket's path is under
  // 108 bytes): an environment error naming the temporary folder (TMPDIR) when not. A run's plan
  // is held to it before anything runs.
  static Status room_for(std::string_view kind, const std::filesystem::path& socket);
  // A folder this process makes elsewhere (a bisect's clone in its cache, made or not yet), removed
  // as a temporary folder is: when the value goes, and when the process is told to end.
  static TemporaryFolder adopt(std::filesystem::path folder);
  TemporaryFolder() = default;
  TemporaryFolder(TemporaryFolder&& other) noexcept
      : path_(std::exchange(other.path_, {})), owner_(std::exchange(other.owner_, 0)) {}
  TemporaryFolder& operator=(TemporaryFolder&& other) noexcept {
    std::swap(path_, other.path_);
    std::swap(owner_, other.owner_);
    return *this;
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder();
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TemporaryFolder(std::filesystem::path path);
  std::filesystem::path path_;
  int owner_ = 0;  // the process that made it: a forked child's copy is not its to remove
};

// Called once from main, before any thread: on SIGTERM, SIGINT or SIGHUP this process kills every
// child tree it started (core/process.h's kill_child_trees), removes its temporary folders and
// ends by that signal. A handler that only writes the signal's number to a pipe; a thread of its
// own does the rest. A process forked from this one (not exec'd) ends by the signal at once, as
// it would have without the handler. Also sweeps the folders of Tidemark processes that are gone.
void end_cleanly_on_termination();

// Removes $TMPDIR/tidemark-process-* folders whose owner has gone (their lock is free).
void sweep_abandoned_temporaries();

}  // namespace tidemark
