#include "core/worker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace tidemark {
namespace {

using namespace std::chrono_literals;

// A forked worker's answers: "crash" aborts, "exit" leaves with status 3, "hang" starts a
// grandchild and waits for ever; anything else is answered.
std::string answer(std::string request) {
  if (request == "crash") std::abort();
  if (request == "exit") ::_exit(3);
  if (request == "hang") {
    if (::fork() == 0)
      for (;;) ::pause();
    for (;;) ::pause();
  }
  return "answered " + request;
}

Worker forked(Worker::ForkOptions options = Worker::ForkOptions{}) {
  auto worker = Worker::fork(answer, std::move(options));
  EXPECT_TRUE(worker) << worker.error().message;
  return std::move(*worker);
}

// The end a reply says, failing the test when it is an answer.
WorkerEnd end_of(const Result<Worker::Reply>& reply) {
  EXPECT_TRUE(reply) << reply.error().message;
  EXPECT_TRUE(reply && std::holds_alternative<WorkerEnd>(*reply)) << "expected the worker's end, found an answer";
  return reply && std::holds_alternative<WorkerEnd>(*reply) ? std::get<WorkerEnd>(*reply) : WorkerEnd{};
}

std::string answer_of(const Result<Worker::Reply>& reply) {
  EXPECT_TRUE(reply) << reply.error().message;
  if (reply && std::holds_alternative<WorkerEnd>(*reply))
    return "(ended: " + describe(std::get<WorkerEnd>(*reply)) + ")";
  return reply ? std::get<std::string>(*reply) : "";
}

// Check that a worker answers each request in turn, an empty one and one larger than a socket's buffer too.
TEST(Worker, AnswersEachRequestInTurn) {
  Worker worker = forked();
  for (const std::string& request : {std::string("a"), std::string(), std::string(1 << 20, 'x')})
    EXPECT_EQ(answer_of(worker.ask(request, {.wall = 30, .inactivity = 0})), "answered " + request);
}

// Check that a worker that dies mid-request is its end, named by its signal, said again to every later request.
TEST(Worker, OneThatDiesMidRequestEndsNamedByItsSignal) {
  Worker worker = forked();
  const WorkerEnd end = end_of(worker.ask("crash", {.wall = 30, .inactivity = 0}));
  EXPECT_EQ(end.cause, WorkerEnd::Cause::Ended);
  EXPECT_TRUE(WIFSIGNALED(end.wait_status) && WTERMSIG(end.wait_status) == SIGABRT) << describe(end);
  EXPECT_EQ(end.pid, worker.pid());
  EXPECT_NE(describe(end).find("SIGABRT"), std::string::npos) << describe(end);
  EXPECT_EQ(end_of(worker.ask("a", {.wall = 30, .inactivity = 0})).wait_status, end.wait_status);

  Worker leaves = forked();
  EXPECT_EQ(describe(end_of(leaves.ask("exit", {.wall = 30, .inactivity = 0}))),
            "exited with status 3 before its answer");
}

// Check that a worker that hangs past its bound is killed with the process it started, not waited for.
TEST(Worker, OneThatHangsPastItsBoundIsKilledWithItsTree) {
  for (const TimeBounds bounds : {TimeBounds{.wall = 0.3, .inactivity = 0}, TimeBounds{.wall = 0, .inactivity = 0.3}}) {
    Worker worker = forked();
    const auto began = std::chrono::steady_clock::now();
    const WorkerEnd end = end_of(worker.ask("hang", bounds));
    EXPECT_EQ(end.cause, WorkerEnd::Cause::TimedOut);
    EXPECT_EQ(end.limit, bounds.wall > 0 ? TimeLimit::WallClock : TimeLimit::Inactivity);
    EXPECT_TRUE(end.tree_ended);
    EXPECT_TRUE(WIFSIGNALED(end.wait_status) && WTERMSIG(end.wait_status) == SIGKILL) << describe(end);
    EXPECT_GE(std::chrono::steady_clock::now() - began, 300ms);
    EXPECT_NE(describe(end).find("limit of 0.3 s"), std::string::npos) << describe(end);
  }
}

// Check that a worker that sends what is no message (a length over any message's) is killed, not read for ever.
TEST(Worker, OneThatSendsGarbageIsKilled) {
  auto worker = Worker::spawn({.program = "sh", .args = {"-c", "printf 'garbage!' >&3; exec sleep 60"}});
  ASSERT_TRUE(worker) << worker.error().message;
  const WorkerEnd end = end_of(worker->ask("a", {.wall = 30, .inactivity = 0}));
  EXPECT_EQ(end.cause, WorkerEnd::Cause::Garbled);
  EXPECT_TRUE(WIFSIGNALED(end.wait_status) && WTERMSIG(end.wait_status) == SIGKILL) << describe(end);
  EXPECT_NE(describe(end).find("sent what is no message (a length of"), std::string::npos) << describe(end);
}

// Check that a program started as a worker answers on its fd 3 (a message: its length, then its bytes).
TEST(Worker, AProgramStartedAsAWorkerAnswersOnItsFdThree) {
  auto worker = Worker::spawn(
      {.program = "sh",
       .args = {"-c", "head -c 11 <&3 >/dev/null; printf '\\003\\000\\000\\000\\000\\000\\000\\000abc' >&3"}});
  ASSERT_TRUE(worker) << worker.error().message;
  EXPECT_EQ(answer_of(worker->ask("abc", {.wall = 30, .inactivity = 0})), "abc");
}

// Check that a forked worker that leaves when its socket closes does leave although a sibling was
// forked after it (the sibling closed its copy of the first one's end): its value's end returns.
TEST(Worker, AWorkerLeavesAtTheCloseWhateverWasForkedAfterIt) {
  std::optional<Worker> first = forked({.exit_cleanly = true});
  Worker second = forked({.exit_cleanly = true});
  EXPECT_EQ(answer_of(first->ask("a", {.wall = 30, .inactivity = 0})), "answered a");
  first.reset();  // waits for its end: it must read the close
  EXPECT_EQ(answer_of(second.ask("b", {.wall = 30, .inactivity = 0})), "answered b");
}

}  // namespace
}  // namespace tidemark
