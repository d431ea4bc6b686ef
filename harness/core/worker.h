// A worker: a child answering requests on one socket, one at a time: a copy of this process
// (Worker::fork) or a program started with the socket as its fd 3 (Worker::spawn, e.g. under a
// driver build's environment). Its parent watches it by a deadline or time bounds, kills its tree
// past them, and says how it ended in one place (describe). A message on the socket is its length
// (8 bytes, this machine's order: both ends run here) and its bytes.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "core/error.h"
#include "core/process.h"
#include "core/time_bounds.h"

namespace tidemark {

// A message longer than this is garbage, not an answer to wait for.
inline constexpr uint64_t kMaxWorkerMessage = uint64_t{1} << 30;

// How a worker ended without answering: it ended (exit or signal), passed a time limit (its tree
// then killed), or sent what is no message (then killed).
struct WorkerEnd {
  enum class Cause { Ended, TimedOut, Garbled };
  Cause cause = Cause::Ended;
  pid_t pid = 0;
  int wait_status = 0;
  std::optional<TimeLimit> limit;  // TimedOut
  double limit_seconds = 0;        // TimedOut
  double after_seconds = 0;        // since the request was sent
  bool tree_ended = true;          // TimedOut, Garbled: its every process seen to end
  std::string garbage;             // Garbled: what it sent
};
// "exited with status 3 before its answer", "killed by signal 11 (SIGSEGV, ...) before its
// answer", "gave no answer within its wall-clock limit of 2 s and was killed with every process
// it started", "sent no message (a length of N bytes, over ...) and was killed".
std::string describe(const WorkerEnd& end);

class Worker {
 public:
  using Clock = std::chrono::steady_clock;
  // The child's side: the answer to one request.
  using Serve = std::function<std::string(std::string request)>;
  using Reply = std::variant<std::string, WorkerEnd>;

  struct ForkOptions {
    // Runs in the child before its first request (notes armed, a variable set).
    std::function<void()> in_child;
    // When its requests end (the parent closed the socket) the child leaves by exit(), so what a
    // process's end runs does run (a capture layer's last write, a sanitizer's leak check); else
    // by _exit(): a copy whose only output is its answers.
    bool exit_cleanly = false;
  };
  // A copy of this process serving requests with `serve`; it dies with this process.
  static Result<Worker> fork(Serve serve, ForkOptions options);
  static Result<Worker> fork(Serve serve);
  // A program given the socket as fd 3, serving it with Worker::serve; `options.pass_fd` is set
  // here. At the socket's close it has `leave_within` to end by itself (what its exit runs) before
  // it is killed.
  static Result<Worker> spawn(ChildProcess::Options options,
                              std::chrono::milliseconds leave_within = std::chrono::minutes(1));
  // In a worker's process: each request on `socket` answered by `serve` until the parent closes
  // it. False when the socket failed or carried what is no message.
  static bool serve(int socket, const Serve& serve);

  Worker(Worker&&) noexcept;
  Worker& operator=(Worker&&) noexcept;
  ~Worker();  // the socket closed; the child waited for as it leaves (ForkOptions, spawn), else killed

  pid_t pid() const;
  int socket() const { return socket_.get(); }  // readable when an answer or the child's end is there

  // Sends a request. One to a worker that has ended is lost: receive() then finds the end.
  void send(std::string_view request);
  // The answer to the request sent, or how the worker ended; past `deadline` its tree is killed
  // (a wall-clock timeout). Once it has ended, every call says the same end.
  Result<Reply> receive(std::optional<Clock::time_point> deadline = std::nullopt);
  // With `activity` its count now: when `watch` says a limit passed, the worker's tree is killed
  // and that is its end; else none.
  std::optional<WorkerEnd> check(BoundsWatch& watch, uint64_t activity);
  // send, then wait under `bounds`, reading `activity` between waits (none: nothing counts).
  Result<Reply> ask(std::string_view request, const TimeBounds& bounds, const std::function<uint64_t()>& activity = {});

 private:
  // `leave_within`: how long the child may take to leave at the close (max: as long as it takes;
  // none: it is killed).
  Worker(ChildProcess child, UniqueFd socket, std::optional<std::chrono::milliseconds> leave_within);
  void finish();
  WorkerEnd reaped(WorkerEnd end);
  WorkerEnd killed(WorkerEnd end);

  ChildProcess child_;
  UniqueFd socket_;
  std::optional<std::chrono::milliseconds> leave_within_;
  Clock::time_point sent_{};
  std::optional<WorkerEnd> end_;
};

}  // namespace tidemark
