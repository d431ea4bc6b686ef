#include "core/worker.h"

#include <fmt/format.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "core/progress.h"
#include "core/whole_bytes.h"

namespace tidemark {

namespace {

// This process's ends of its workers' sockets. A child forked later inherits them and closes each
// first, else a worker would never read the end of its socket when this process closes its copy.
struct ParentEnds {
  std::mutex mutex;
  std::vector<int> fds;
};
ParentEnds& parent_ends() {
  static auto* ends = new ParentEnds;  // never destroyed: a worker may go after statics do
  return *ends;
}
void remember(int fd) {
  const std::lock_guard lock(parent_ends().mutex);
  parent_ends().fds.push_back(fd);
}
void forget(int fd) {
  const std::lock_guard lock(parent_ends().mutex);
  std::erase(parent_ends().fds, fd);
}

Result<std::pair<UniqueFd, UniqueFd>> socket_pair() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return fail(ErrorKind::Io, fmt::format("socketpair: {}", std::strerror(errno)));
  return std::pair{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

bool send_message(int fd, std::string_view bytes) {
  const uint64_t size = bytes.size();
  return write_whole(fd, &size, sizeof size) && write_whole(fd, bytes.data(), bytes.size());
}

// A message read whole, or why not: TooLong is a length no message has.
enum class Reading { Message, Closed, Late, Failed, TooLong };
struct Received {
  Reading reading = Reading::Message;
  std::string bytes;
  uint64_t size = 0;
};
Received receive_message(int fd, const WholeDeadline& deadline) {
  auto reading_of = [](ReadWhole how) {
    return how == ReadWhole::Closed ? Reading::Closed : how == ReadWhole::Late ? Reading::Late : Reading::Failed;
  };
  Received out;
  if (auto how = read_whole(fd, &out.size, sizeof out.size, deadline); how != ReadWhole::Done)
    return {reading_of(how), {}, 0};
  if (out.size > kMaxWorkerMessage) return {Reading::TooLong, {}, out.size};
  out.bytes.resize(out.size);
  if (auto how = read_whole(fd, out.bytes.data(), out.bytes.size(), deadline); how != ReadWhole::Done)
    return {reading_of(how), {}, out.size};
  return out;
}

}  // namespace

std::string describe(const WorkerEnd& end) {
  const std::string killed_all =
      fmt::format("it and every process it started were killed{}",
                  end.tree_ended ? "" : fmt::format(" (one still ran {} s later)", kKilledTreeEndsWithin.count()));
  switch (end.cause) {
    case WorkerEnd::Cause::Ended:
      return WIFSIGNALED(end.wait_status) ? describe_wait_status(end.wait_status)
                                          : describe_wait_status(end.wait_status) + " before its answer";
    case WorkerEnd::Cause::TimedOut:
      return fmt::format("gave no answer within its {} limit of {:g} s ({:.1f} s since it was asked); {}",
                         time_limit_name(end.limit.value_or(TimeLimit::WallClock)), end.limit_seconds,
                         end.after_seconds, killed_all);
    case WorkerEnd::Cause::Garbled:
      return fmt::format("sent what is no message ({}); {}", end.garbage, killed_all);
  }
  return "ended";
}

Worker::Worker(ChildProcess child, UniqueFd socket, std::optional<std::chrono::milliseconds> leave_within)
    : child_(std::move(child)), socket_(std::move(socket)), leave_within_(leave_within) {
  remember(socket_.get());
}

Result<Worker> Worker::fork(Serve serve, ForkOptions options) {
  TIDEMARK_TRY(sockets, socket_pair());
  auto& [parent_end, child_end] = sockets;
  std::unique_lock ends(parent_ends().mutex);  // no end is half added while the child copies the list
  auto child = ChildProcess::fork([&] {
    for (int fd : parent_ends().fds) ::close(fd);
    parent_ends().fds.clear();
    ends.unlock();
    parent_end.reset();
    if (options.in_child) options.in_child();
    const bool served = Worker::serve(child_end.get(), serve);
    if (served && options.exit_cleanly) std::exit(0);
    ::_exit(served ? 0 : 1);
  });
  ends.unlock();
  if (!child) return std::unexpected(child.error());
  child_end.reset();
  return Worker(std::move(*child), std::move(parent_end),
                options.exit_cleanly ? std::optional(std::chrono::milliseconds::max()) : std::nullopt);
}

Result<Worker> Worker::fork(Serve serve) { return fork(std::move(serve), ForkOptions{}); }

Result<Worker> Worker::spawn(ChildProcess::Options options, std::chrono::milliseconds leave_within) {
  TIDEMARK_TRY(sockets, socket_pair());
  auto& [parent_end, child_end] = sockets;
  options.pass_fd = child_end.get();
  TIDEMARK_TRY(child, ChildProcess::spawn(options));
  child_end.reset();
  return Worker(std::move(child), std::move(parent_end), leave_within);
}

bool Worker::serve(int socket, const Serve& serve) {
  ::fcntl(socket, F_SETFD, FD_CLOEXEC);  // a program it starts does not hold it open after it
  for (;;) {
    Received request = receive_message(socket, std::nullopt);
    if (request.reading == Reading::Closed && request.size == 0) return true;  // the parent has no more
    if (request.reading != Reading::Message) return false;
    if (!send_message(socket, serve(std::move(request.bytes)))) return false;
  }
}

Worker::Worker(Worker&& other) noexcept { *this = std::move(other); }

Worker& Worker::operator=(Worker&& other) noexcept {
  if (this == &other) return *this;
  finish();
  child_ = std::move(other.child_);
  socket_ = std::move(other.socket_);
  leave_within_ = other.leave_within_;
  sent_ = other.sent_;
  end_ = std::exchange(other.end_, std::nullopt);
  return *this;
}

Worker::~Worker() { finish(); }

pid_t Worker::pid() const { return child_.pid(); }

void Worker::finish() {
  if (socket_) {
    forget(socket_.get());
    socket_.reset();
  }
  // One that leaves at the close is waited for; past its time, or with none, it is killed
  // (ChildProcess's end).
  if (!leave_within_ || end_ || pid() <= 0) return;
  if (*leave_within_ == std::chrono::milliseconds::max())
    (void)child_.wait();
  else
    (void)child_.wait_for(*leave_within_);
}

void Worker::send(std::string_view request) {
  sent_ = Clock::now();
  if (!end_) (void)send_message(socket_.get(), request);  // an ended worker's: receive() finds its end
}

WorkerEnd Worker::reaped(WorkerEnd end) {
  end.pid = pid();
  end.wait_status = child_.wait();
  end.after_seconds = std::chrono::duration<double>(Clock::now() - sent_).count();
  forget(socket_.get());
  socket_.reset();
  end_ = end;
  return end;
}

WorkerEnd Worker::killed(WorkerEnd end) {
  end.tree_ended = kill_tree(pid(), kKilledTreeEndsWithin);
  return reaped(std::move(end));
}

Result<Worker::Reply> Worker::receive(std::optional<Clock::time_point> deadline) {
  if (end_) return Reply(*end_);
  Received answer = receive_message(socket_.get(), deadline);
  switch (answer.reading) {
    case Reading::Message:
      return Reply(std::move(answer.bytes));
    case Reading::Closed:
      return Reply(reaped({}));
    case Reading::Late: {
      WorkerEnd end{.cause = WorkerEnd::Cause::TimedOut, .limit = TimeLimit::WallClock};
      end.limit_seconds = std::chrono::duration<double>(*deadline - sent_).count();
      return Reply(killed(std::move(end)));
    }
    case Reading::TooLong:
      return Reply(killed({.cause = WorkerEnd::Cause::Garbled,
                           .garbage = fmt::format("a length of {} bytes, over the {} a message may have", answer.size,
                                                  kMaxWorkerMessage)}));
    case Reading::Failed:
      break;
  }
  return fail(ErrorKind::Io, fmt::format("reading the answer of worker {}: {}", pid(), std::strerror(errno)));
}

std::optional<WorkerEnd> Worker::check(BoundsWatch& watch, uint64_t activity) {
  if (end_) return end_;
  const auto passed = watch.check(activity);
  if (!passed) return std::nullopt;
  return killed({.cause = WorkerEnd::Cause::TimedOut, .limit = passed, .limit_seconds = watch.limit_seconds(*passed)});
}

Result<Worker::Reply> Worker::ask(std::string_view request, const TimeBounds& bounds,
                                  const std::function<uint64_t()>& activity) {
  send(request);
  BoundsWatch watch(bounds);
  // An answer begun is read whole within the wall clock's limit: one that stops midway is late.
  const std::optional<Clock::time_point> whole_by =
      bounds.wall > 0
          ? std::optional(sent_ +
                          std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(bounds.wall)))
          : std::nullopt;
  for (;;) {
    if (end_) return Reply(*end_);
    pollfd readable{socket_.get(), POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(watch.next_check().count()));
    if (ready > 0) return receive(whole_by);
    if (ready < 0 && errno != EINTR) return fail(ErrorKind::Io, fmt::format("poll: {}", std::strerror(errno)));
    if (auto end = check(watch, activity ? activity() : 0)) return Reply(std::move(*end));
  }
}

}  // namespace tidemark
