#include "core/temporaries.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/process.h"
#include "core/testing/scratch.h"

namespace tidemark {
namespace {

namespace fs = std::filesystem;

// TMPDIR pointed at a folder of the test's own, put back after. Its name is fixed inside a scratch
// folder of the parent's: a death test's child runs the test again in a new process, and must
// meet the same folder.
class PrivateTmpdir {
 public:
  explicit PrivateTmpdir(const std::string& name) : path_(base() / ("tidemark-" + name)) {
    if (const char* was = std::getenv("TMPDIR")) before_ = was;
    fs::create_directories(path_);
    ::setenv("TMPDIR", path_.c_str(), 1);
  }
  ~PrivateTmpdir() {
    if (before_.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", before_.c_str(), 1);
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  // The parent's scratch folder, made before TMPDIR is pointed anywhere; a death test's child is
  // told it through the environment.
  static fs::path base() {
    if (const char* seen = std::getenv("TIDEMARK_TEST_TEMP_BASE")) return seen;
    static const test_support::ScratchDir scratch("temporaries");
    ::setenv("TIDEMARK_TEST_TEMP_BASE", scratch.path().c_str(), 1);
    return scratch.path();
  }
  fs::path path_;
  std::string before_;
};

// What a death test's child tells its parent: a line in a file of the private TMPDIR's folder.
std::string told(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// Check that a temporary folder is made under this process's own folder, named by its kind, and
// goes with what it holds when its value goes.
TEST(TemporaryFolder, IsMadeUnderTheProcessesFolderAndRemovedWithItsContents) {
  fs::path made;
  {
    auto folder = TemporaryFolder::make("server");
    ASSERT_TRUE(folder) << folder.error().message;
    made = folder->path();
    EXPECT_EQ(made.parent_path().filename(), "tidemark-process-" + std::to_string(::getpid()));
    EXPECT_TRUE(made.filename().string().starts_with("server-"));
    std::ofstream(made / "server.log") << "said";
    fs::create_directories(made / "layer" / "1");
    TemporaryFolder moved = std::move(*folder);
    EXPECT_EQ(moved.path(), made);
  }
  EXPECT_FALSE(fs::exists(made));
}

// Check that a folder left by a process that is gone (SIGKILLed) is swept, and that one whose
// owner runs, or whose lock a child forked from a gone owner holds, is kept.
TEST(TemporaryFolder, TheFolderOfAGoneProcessIsSweptAndALiveOnesIsKept) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a new process: no folder of this one's inherited
  PrivateTmpdir tmpdir("temporaries-sweep");
  const fs::path said = tmpdir.path().parent_path() / "tidemark-temporaries-sweep-said";
  EXPECT_EXIT(
      {
        auto folder = TemporaryFolder::make("observe");
        std::ofstream(said) << (folder ? folder->path().parent_path().string() : "") << std::endl;
        ::kill(::getpid(), SIGKILL);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  const fs::path left = told(said);
  fs::remove(said);
  ASSERT_TRUE(left.filename().string().starts_with("tidemark-process-")) << left;
  ASSERT_TRUE(fs::exists(left));
  // A folder of a process that is gone whose lock is still held (a child it forked lives on).
  const fs::path held = tmpdir.path() / "tidemark-process-999999999";
  fs::create_directories(held);
  const int lock = ::open((held / "owner.lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(::flock(lock, LOCK_EX | LOCK_NB), 0);
  // The folder of a process that runs (this one's parent: never a Tidemark's), and one that only
  // looks like a process's.
  const fs::path running = tmpdir.path() / ("tidemark-process-" + std::to_string(::getppid()));
  fs::create_directories(running);
  fs::create_directories(tmpdir.path() / "tidemark-process-cache");

  sweep_abandoned_temporaries();
  EXPECT_FALSE(fs::exists(left));
  EXPECT_TRUE(fs::exists(held));
  EXPECT_TRUE(fs::exists(running));
  EXPECT_TRUE(fs::exists(tmpdir.path() / "tidemark-process-cache"));
  ::close(lock);
  sweep_abandoned_temporaries();
  EXPECT_FALSE(fs::exists(held));
}

// Check that a process told to end (SIGTERM) kills the child tree it started (a shell and the
// sleep it runs), removes its temporary folders and ends by that signal.
TEST(EndCleanlyOnTermination, SigtermEndsEveryChildTreeAndRemovesTheTemporaries) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  PrivateTmpdir tmpdir("temporaries-sigterm");
  const fs::path said = tmpdir.path().parent_path() / "tidemark-temporaries-sigterm-said";
  EXPECT_EXIT(
      {
        end_cleanly_on_termination();
        auto folder = TemporaryFolder::make("server");
        auto shell = ChildProcess::spawn({.program = "bash", .args = {"-c", "sleep 300; true"}, .inherit_env = true});
        if (!folder || !shell) ::_exit(1);
        // The shell's sleep: the grandchild the kill must reach.
        pid_t sleeper = 0;
        while (sleeper == 0) {
          std::ifstream children(fmt::format("/proc/{}/task/{}/children", shell->pid(), shell->pid()));
          children >> sleeper;
        }
        std::ofstream(said) << sleeper << ' ' << folder->path().parent_path().string() << std::endl;
        ::kill(::getpid(), SIGTERM);
        for (;;) ::pause();
      },
      ::testing::KilledBySignal(SIGTERM), "");
  std::istringstream line(told(said));
  fs::remove(said);
  pid_t sleeper = 0;
  std::string root;
  line >> sleeper >> root;
  ASSERT_GT(sleeper, 0);
  EXPECT_FALSE(process_runs(sleeper)) << "the shell's sleep runs on";
  EXPECT_TRUE(root.find("tidemark-process-") != std::string::npos) << root;
  EXPECT_FALSE(fs::exists(root));
}

}  // namespace
}  // namespace tidemark
