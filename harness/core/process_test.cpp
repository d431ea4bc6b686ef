#include "core/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string line_of(const ChildProcess::Options& options) {
  auto child = ChildProcess::spawn(options);
  EXPECT_TRUE(child) << child.error().message;
  if (!child) return {};
  auto line = child->read_line(std::chrono::steady_clock::now() + 10s);
  EXPECT_TRUE(line) << line.error().message;
  return line.value_or("");
}

TEST(Process, ANameIsFoundOnPathAndTheEnvironmentIsWhatTheOptionsSay) {
  ::setenv("TIDEMARK_PROCESS_TEST", "ours", 1);
  const std::string print = "printf '%s|%s' \"$TIDEMARK_PROCESS_TEST\" \"$TIDEMARK_PROCESS_SET\"; echo";
  EXPECT_EQ(line_of({.program = "sh", .args = {"-c", print}, .inherit_env = true, .capture_stdout = true}), "ours|");
  EXPECT_EQ(line_of({.program = "sh",
                     .args = {"-c", print},
                     .inherit_env = true,
                     .set_env = {{"TIDEMARK_PROCESS_TEST", "replaced"}, {"TIDEMARK_PROCESS_SET", "set"}},
                     .capture_stdout = true}),
            "replaced|set");
  // Scrubbed: only the names kept (PATH is not one, so sh is found by this process, not the child).
  EXPECT_EQ(
      line_of({.program = "sh", .args = {"-c", print}, .keep_env = {"TIDEMARK_PROCESS_SET"}, .capture_stdout = true}),
      "|");
  ::unsetenv("TIDEMARK_PROCESS_TEST");
}

TEST(Process, AProgramThatCannotStartIsAnErrorNamingIt) {
  auto missing = ChildProcess::spawn({.program = "tidemark-no-such-program"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::Environment);
  EXPECT_EQ(missing.error().message, "cannot start 'tidemark-no-such-program': not found");
  // Found but not executable as a program: exec's own reason comes back.
  const test_support::ScratchDir scratch("process");
  const fs::path text = scratch / "not-a-program";
  std::ofstream(text) << "not a program\n";
  fs::permissions(text, fs::perms::owner_all);
  auto refused = ChildProcess::spawn({.program = text.string()});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "cannot start '" + text.string() + "': Exec format error");
}

TEST(Process, AChildStillRunningWhenItsValueGoesIsKilledAndReaped) {
  pid_t pid = 0;
  {
    auto child = ChildProcess::spawn({.program = "sleep", .args = {"600"}});
    ASSERT_TRUE(child) << child.error().message;
    pid = child->pid();
    EXPECT_FALSE(child->wait_for(10ms));
  }
  EXPECT_EQ(::kill(pid, 0), -1);  // reaped: no such process
}

// Check that a tree is killed whole: a grandchild in a session of its own (as a server that
// daemonizes, or forks a renderer into a group of its own) ends with the child, and the child is
// left for its parent to reap.
TEST(Process, KillTreeEndsEveryDescendantWhateverGroupItMade) {
  auto child = ChildProcess::spawn(
      {.program = "sh", .args = {"-c", "setsid sleep 600 & echo $!; sleep 600"}, .capture_stdout = true});
  ASSERT_TRUE(child) << child.error().message;
  auto line = child->read_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line) << line.error().message;
  const pid_t grandchild = std::stoi(*line);
  ASSERT_TRUE(process_runs(grandchild));
  EXPECT_TRUE(kill_tree(child->pid(), 2000ms));
  EXPECT_FALSE(process_runs(grandchild));
  const int status = child->wait();
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << describe_wait_status(status);
}

TEST(Process, RunToFileGivesTheExitCodeAndTheOutput) {
  const test_support::ScratchDir scratch("process");
  const fs::path log = scratch / "run.log";
  std::ofstream(log) << "old contents\n";
  auto code = run_to_file({"sh", "-c", "echo out; echo err >&2; exit 7"}, {}, log);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(*code, 7);
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "out\nerr\n");
  auto signalled = run_to_file({"sh", "-c", "kill -9 $$"}, {}, log);
  ASSERT_TRUE(signalled);
  EXPECT_EQ(*signalled, 128 + 9);
  auto missing = run_to_file({"tidemark-no-such-tool"}, {}, log, " (install it)");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "cannot start 'tidemark-no-such-tool': not found (install it)");
}

// Check that what a child leaves running (a daemon that forked twice into a session of its own)
// is re-parented to this process, a child subreaper, and ended at the child's end, named.
TEST(Process, WhatAChildLeavesRunningIsEndedAtItsEndAndNamed) {
  adopt_orphans();
  auto child = ChildProcess::spawn({.program = "sh",
                                    .args = {"-c", "(setsid sleep 601 </dev/null >/dev/null 2>&1 & echo $!); exit 0"},
                                    .capture_stdout = true});
  ASSERT_TRUE(child) << child.error().message;
  auto line = child->read_line(std::chrono::steady_clock::now() + 10s);
  ASSERT_TRUE(line) << line.error().message;
  const pid_t daemon = std::stoi(*line);
  // Once it is sleep (setsid has exec'd), so that its command line is known.
  auto command_of = [&] {
    std::ifstream in("/proc/" + std::to_string(daemon) + "/cmdline");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  for (auto until = std::chrono::steady_clock::now() + 10s;
       command_of().find("601") == std::string::npos && std::chrono::steady_clock::now() < until;) {
  }
  EXPECT_EQ(child->wait(), 0);
  EXPECT_FALSE(process_runs(daemon));
  ASSERT_EQ(child->left_running().size(), 1u);
  EXPECT_EQ(child->left_running()[0].pid, daemon);
  EXPECT_NE(child->left_running()[0].command.find("sleep 601"), std::string::npos);  // setsid's, or sleep's
}

// Check that a child that writes without end, and without a newline, leaves a log of its last
// bytes only, and that a quote of it is a few short lines whatever it wrote.
TEST(Process, AChildsLogKeepsItsLastBytesAndAQuoteOfItIsBounded) {
  const test_support::ScratchDir scratch("process");
  const fs::path log = scratch / "kept.log";
  auto code = run_to_file({"sh", "-c", "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo its last words"}, {}, log,
                          {}, 64 * 1024);
  ASSERT_TRUE(code) << code.error().message;
  EXPECT_EQ(*code, 0);
  EXPECT_LE(fs::file_size(log), 2u * 64 * 1024);
  const auto lines = last_lines(log, 3);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("[...] xxx")) << lines[0].substr(0, 100);
  EXPECT_LE(lines[0].size(), 450u);
  EXPECT_EQ(lines[1], "its last words");
}

// Check that a log cut to its last bytes holds the end of what the child wrote, however its reads
// fell: a cut after the last read once kept the log's first bytes instead (it could not read it).
TEST(Process, AKeptLogIsTheEndOfWhatTheChildWrote) {
  const test_support::ScratchDir scratch("process");
  const fs::path log = scratch / "kept.log";
  const std::string written = "0123456789abcdef\nits last words\n";
  auto code = run_to_file({"sh", "-c", "printf '0123456789abcdef\\nits last words\\n'"}, {}, log, {}, 8);
  ASSERT_TRUE(code) << code.error().message;
  std::ifstream in(log, std::ios::binary);
  const std::string kept((std::istreambuf_iterator<char>(in)), {});
  EXPECT_GE(kept.size(), 8u);
  EXPECT_LE(kept.size(), 16u);
  EXPECT_TRUE(written.ends_with(kept)) << "kept: " << kept;
}

// Check that Tidemark's own note in a log is found however many lines a driver wrote after it.
TEST(Process, TheLastLineWithAPrefixIsFoundFarFromTheEnd) {
  const test_support::ScratchDir scratch("process");
  const fs::path log = scratch / "prefix.log";
  {
    std::ofstream out(log);
    out << "tidemark: first\ntidemark: the note\n";
    for (int i = 0; i < 10000; ++i) out << "a driver's complaint\n";
  }
  EXPECT_EQ(last_line_starting(log, "tidemark: "), "tidemark: the note");
  EXPECT_EQ(last_lines(log, 1), std::vector<std::string>{"a driver's complaint"});
  EXPECT_EQ(last_line_starting(log, "nobody: "), std::nullopt);
}

}  // namespace
}  // namespace tidemark
