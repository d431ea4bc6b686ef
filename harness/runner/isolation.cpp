#include "runner/isolation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <span>
#include <vector>

#include "core/crash_notes.h"
#include "core/gauges.h"
#include "core/progress.h"
#include "core/process.h"
#include "layer/tidemark_layer.h"
#include "observe/observe.h"
#include "report/json_fields.h"
#include "runner/build_runs.h"
#include "runner/subject.h"
#include "servers/renderer_server.h"
#include "wire/posix.h"

namespace tidemark::runner {

// Outside the anonymous namespace: IsolatedRuns::Child holds one.
// The notes the child writes and the parent reads once the child is reaped: anonymous memory
// shared across the fork.
class SharedNotes {
 public:
  static Result<SharedNotes> map() {
    void* memory =
        ::mmap(nullptr, sizeof(crash_notes::Notes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
      return fail(ErrorKind::Io, fmt::format("mmap of the crash notes: {}", std::strerror(errno)));
    return SharedNotes(new (memory) crash_notes::Notes{});
  }
  SharedNotes(SharedNotes&& other) noexcept : notes_(std::exchange(other.notes_, nullptr)) {}
  SharedNotes(const SharedNotes&) = delete;
  SharedNotes& operator=(const SharedNotes&) = delete;
  ~SharedNotes() {
    if (notes_) ::munmap(notes_, sizeof(crash_notes::Notes));
  }
  crash_notes::Notes* get() const { return notes_; }

 private:
  explicit SharedNotes(crash_notes::Notes* notes) : notes_(notes) {}
  crash_notes::Notes* notes_;
};

namespace {

// What the parent and its child say on their socket: an index (8 bytes) one way, an answer's
// length (8 bytes) and the answer (the build answer's codec) the other.
bool read_exactly(int fd, void* into, size_t size) {
  auto* bytes = static_cast<uint8_t*>(into);
  while (size > 0) {
    auto got = wire::read_some(fd, std::span(bytes, size), std::nullopt);
    if (!got) return false;
    bytes += *got;
    size -= *got;
  }
  return true;
}

bool write_exactly(int fd, const void* from, size_t size) {
  return wire::write_all(fd, std::span(static_cast<const uint8_t*>(from), size)).has_value();
}

// In the child: the folder where the servers it starts note their layer's calls, and the servers'
// folders there when its current run started (theirs are earlier runs').
struct ServersActivity {
  std::filesystem::path folder;
  std::set<std::string> earlier;
};
ServersActivity& servers_activity_in_child() {
  static ServersActivity activity;  // the child's one thread alone reads and writes it
  return activity;
}

// In the child: each index asked for run through the pipeline, its record or error answered as a
// build answer, until the parent closes its end; then the child ends as a run without isolation
// does, by exit(): what a process's end runs must run (a capture layer's last write — gfxrecon's
// file was cut short by _exit —, the drivers' own teardown, a sanitizer's leak check). The parent
// holds no static with a thread of its own, so nothing the child inherited waits on one.
[[noreturn]] void serve_in_child(const IsolatedRuns::Pipeline& pipeline, int socket, crash_notes::Notes* notes,
                                 const std::filesystem::path& servers_activity) {
  crash_notes::arm(notes);
  // The servers this child starts (a lane's tidemark-server, a renderer server) note their layer's
  // calls where the parent's bounds read them.
  ::setenv(TIDEMARK_LAYER_ACTIVITY_VARIABLE, servers_activity.c_str(), 1);
  ServersActivity& servers = servers_activity_in_child();
  servers.folder = servers_activity;
  for (uint64_t index = 0; read_exactly(socket, &index, sizeof index);) {
    servers.earlier.clear();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(servers.folder, ec))
      servers.earlier.insert(entry.path().filename().string());
    // A run's notes start empty; the layer's stay (its count is the process's, its name written
    // only when it changes).
    notes->step = {};
    notes->server = {};
    notes->wire = {};
    notes->device_lost = {};
    notes->layer_calls_before = notes->layer.calls;
    BatchAnswer answer;
    try {
      auto record = pipeline(static_cast<size_t>(index));
      if (record)
        answer.records.push_back(std::move(*record));
      else
        answer.error = record.error();
    } catch (const std::exception& error) {
      answer.error = Error{ErrorKind::Io, fmt::format("internal error in the subject's child: {}", error.what())};
    }
    std::fflush(stdout);
    std::fflush(stderr);
    const std::string text = to_json(answer).dump();
    const uint64_t size = text.size();
    if (!write_exactly(socket, &size, sizeof size) || !write_exactly(socket, text.data(), text.size())) ::_exit(1);
  }
  std::exit(0);
}

// This process's ends of its children's sockets. A child forked after another inherits that
// one's end; it closes every one in its first moments, else the other child would never read the
// end of its socket when this process closes its own copy (and its reaping would wait for ever).
std::vector<int>& parent_ends() {
  static std::vector<int> ends;  // the run loop's thread alone forks and closes
  return ends;
}

// How a child that gave no record ended, from its wait status and what it noted.
ChildDied died(pid_t child, int status, const crash_notes::Notes& notes, const std::string& subject_file) {
  ChildDied out;
  out.device_lost = noted_device_lost(notes, subject_file);
  report::CrashRecord& crash = out.crash;
  crash.last_step = crash_notes::describe_step(notes.step, subject_file);
  const std::string child_ended =
      WIFSIGNALED(status) ? describe_wait_status(status) : describe_wait_status(status) + " before its record";
  const crash_notes::ServerEndNote& server = notes.server;
  if (server.ended) {
    // The renderer server went first; its client then ended the child (Mesa's vtest client aborts).
    crash.process = report::CrashedProcess::RendererServer;
    crash.pid = server.pid;
    if (server.known_status && WIFSIGNALED(server.wait_status)) crash.signal = WTERMSIG(server.wait_status);
    crash.ended = server.known_status ? describe_wait_status(server.wait_status) : "it closed its connection";
    crash.last_wire_command = server.last_command;
    out.why = fmt::format(
        "the renderer server (pid {}) ended mid-run: {}; the last wire command the tap saw: {}; then Tidemark's "
        "subject child (pid {}) {}; its last step: {}",
        crash.pid, crash.ended, crash.last_wire_command, child, child_ended, crash.last_step);
    return out;
  }
  crash.process = report::CrashedProcess::Subject;
  crash.pid = child;
  if (WIFSIGNALED(status)) crash.signal = WTERMSIG(status);
  crash.ended = child_ended;
  out.why = fmt::format("Tidemark's subject child (pid {}) {}; its last step: {}", child, child_ended, crash.last_step);
  return out;
}

// What a run that passed a limit was doing, read once its child's tree is dead; `last_vulkan_call`
// is the layer's last call in the child or in a server it started, whichever moved last, and
// `asked_again` what that layer's calls asked again since its last progress.
TimedOut timed_out(pid_t child, TimeLimit limit, const BoundsWatch& watch, const crash_notes::Notes& notes,
                   const std::string& subject_file, bool all_ended, std::string last_vulkan_call,
                   std::string asked_again) {
  TimedOut out;
  report::TimeoutRecord& timeout = out.timeout;
  timeout.limit = limit;
  timeout.limit_seconds = watch.limit_seconds(limit);
  timeout.after_seconds = watch.elapsed_seconds();
  timeout.idle_seconds = watch.idle_seconds();
  timeout.last_step = crash_notes::describe_step(notes.step, subject_file);
  timeout.last_vulkan_call = std::move(last_vulkan_call);
  timeout.last_wire_command = crash_notes::last_wire_command(notes);
  if (limit == TimeLimit::Inactivity) timeout.asked_again = std::move(asked_again);
  out.seconds = timeout.after_seconds;
  out.why = fmt::format("Tidemark's subject child (pid {}) {}; it and every process it started were killed{}", child,
                        report::describe(timeout),
                        all_ended ? "" : fmt::format(" (one still ran {} s later)", kKilledTreeEndsWithin.count()));
  return out;
}

}  // namespace

std::optional<report::DeviceLostRecord> noted_device_lost(const crash_notes::Notes& notes,
                                                          const std::string& subject_file) {
  const crash_notes::DeviceLostNote& lost = notes.device_lost;
  if (!lost.lost) return std::nullopt;
  return report::DeviceLostRecord{.call = std::string(lost_call_name(lost.call)),
                                  .submit_or_wait = static_cast<int64_t>(lost.submit_or_wait),
                                  .answers = 0,
                                  .last_step = crash_notes::describe_step(lost.step, subject_file)};
}

std::optional<report::DeviceLostRecord> servers_lost_device(const crash_notes::Notes& notes,
                                                            const std::string& subject_file) {
  const ServersActivity& servers = servers_activity_in_child();
  if (servers.folder.empty()) return std::nullopt;
  auto lost = observe::noted_lost_device(servers.folder, servers.earlier);
  if (lost) lost->last_step = crash_notes::describe_step(notes.step, subject_file);
  return lost;
}

TimeBounds child_bounds(const PreparedRun& run) {
  TimeBounds bounds = time_bounds(run);
  if (run.subject->info().in_lanes && !run.subject->info().starts_builds) return bounds;
  for (double* limit : {&bounds.wall, &bounds.inactivity})
    if (*limit > 0) *limit += kBackstopSeconds;
  return bounds;
}

struct IsolatedRuns::Child {
  SharedNotes notes;
  pid_t pid = -1;
  UniqueFd socket;
  // Where the servers it starts note their layer's calls (TIDEMARK_LAYER_ACTIVITY), and what the
  // parent read there: their sum, and whether they moved after the child's own layer in this run.
  TemporaryFolder servers_activity;
  observe::ActivityReader servers_read;
  uint64_t own_calls = 0;
  bool servers_last = false;

  // Activity in the child and its servers; which layer, its own or a server's, called last (a
  // server's last call is named anew whenever its calls move, progress or not).
  uint64_t activity() {
    const crash_notes::Notes& now = *notes.get();
    const std::string servers_before = servers_read.last_call();
    const uint64_t servers_now = servers_read.read();
    const uint64_t own_now = __atomic_load_n(&now.layer.calls, __ATOMIC_RELAXED);
    if (servers_read.last_call() != servers_before) servers_last = true;
    if (own_now != own_calls) servers_last = false;
    own_calls = own_now;
    return crash_notes::activity(now) + servers_now;
  }
  std::string last_vulkan_call() {
    activity();  // the last reading, the tree dead
    return servers_last ? servers_read.last_call() : crash_notes::last_vulkan_call(*notes.get());
  }
  std::string asked_again() {
    activity();
    return servers_last ? servers_read.asked_again() : crash_notes::asked_again(*notes.get());
  }
};

IsolatedRuns::IsolatedRuns(Pipeline pipeline) : pipeline_(std::move(pipeline)) {}

IsolatedRuns::~IsolatedRuns() { stop(); }

Status IsolatedRuns::start() {
  TIDEMARK_TRY(notes, SharedNotes::map());
  TIDEMARK_TRY(servers_activity, TemporaryFolder::make("activity"));
  TIDEMARK_TRY(sockets, wire::socket_pair());
  // The status line's ticker is the parent's only other thread that takes locks (the termination
  // thread, core/temporaries.h, waits in a read): held still, it holds no lock the child would inherit. What this
  // process printed so far is out before the fork: the child's copy of a buffer is its own.
  auto still = Progress::hold_active();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork_child();
  if (pid < 0) return fail(ErrorKind::Io, fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a run that is killed leaves no child running its subjects
    if (::getppid() == 1) ::_exit(1);    // ... nor one whose parent went before that was said
    sockets.first.reset();
    for (int sibling : parent_ends()) ::close(sibling);
    serve_in_child(pipeline_, sockets.second.get(), notes.get(), servers_activity.path());
  }
  parent_ends().push_back(sockets.first.get());
  observe::ActivityReader servers_read({servers_activity.path()});
  child_ = std::make_unique<Child>(
      Child{std::move(notes), pid, std::move(sockets.first), std::move(servers_activity), std::move(servers_read)});
  return {};
}

void IsolatedRuns::stop() {
  if (!child_) return;
  close_socket();  // the child reads the end and leaves
  int status = 0;
  while (::waitpid(child_->pid, &status, 0) < 0 && errno == EINTR) {
  }
  child_reaped(child_->pid);
  child_.reset();
}

Result<IsolatedRuns::Answer> IsolatedRuns::run(size_t index, const std::string& subject_file,
                                               const TimeBounds& bounds) {
  TIDEMARK_CHECK(send(index, bounds));
  for (;;) {
    pollfd readable{socket(), POLLIN, 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(next_check().count()));
    if (ready > 0 || (ready < 0 && errno != EINTR)) return receive(subject_file);
    TIDEMARK_TRY(passed, check_bounds(subject_file));
    if (passed) return std::move(*passed);
  }
}

Status IsolatedRuns::send(size_t index, const TimeBounds& bounds) {
  if (!child_) TIDEMARK_CHECK(start());
  sent_ = std::chrono::steady_clock::now();
  watch_.emplace(bounds);
  (void)child_->activity();  // what the runs before did is not this one's
  child_->servers_last = false;
  const uint64_t asked = index;
  // A child that has ended cannot take it: receive() then finds its end and reaps it.
  write_exactly(child_->socket.get(), &asked, sizeof asked);
  return {};
}

void IsolatedRuns::close_socket() {
  std::erase(parent_ends(), child_->socket.get());
  child_->socket.reset();
}

int IsolatedRuns::socket() const { return child_ ? child_->socket.get() : -1; }

std::chrono::milliseconds IsolatedRuns::next_check() const {
  return watch_ ? watch_->next_check() : std::chrono::milliseconds(100);
}

Result<std::optional<IsolatedRuns::Answer>> IsolatedRuns::check_bounds(const std::string& subject_file) {
  if (!child_ || !watch_) return std::optional<Answer>();
  const auto passed = watch_->check(child_->activity());
  if (!passed) return std::optional<Answer>();
  const bool all_ended = kill_tree(child_->pid, kKilledTreeEndsWithin);
  int status = 0;
  while (::waitpid(child_->pid, &status, 0) < 0)
    if (errno != EINTR) return fail(ErrorKind::Io, fmt::format("waitpid: {}", std::strerror(errno)));
  child_reaped(child_->pid);
  TimedOut out = timed_out(child_->pid, *passed, *watch_, *child_->notes.get(), subject_file, all_ended,
                           child_->last_vulkan_call(), child_->asked_again());
  close_socket();
  child_.reset();
  watch_.reset();
  return std::optional<Answer>(std::move(out));
}

Result<IsolatedRuns::Answer> IsolatedRuns::receive(const std::string& subject_file) {
  if (!child_) return fail(ErrorKind::Io, "the subject's child was asked for no run");
  watch_.reset();
  const int socket = child_->socket.get();
  uint64_t size = 0;
  if (read_exactly(socket, &size, sizeof size)) {
    std::string text(size, '\0');
    if (!read_exactly(socket, text.data(), text.size()))
      return fail(ErrorKind::Io, "the subject's child ended in the middle of its answer");
    TIDEMARK_TRY(json, report::parse_json(text, "the subject child's answer", "a build answer"));
    TIDEMARK_TRY(given, answer_from_json(json));
    if (given.error) return std::unexpected(*given.error);
    if (given.records.size() != 1)
      return fail(ErrorKind::Io,
                  fmt::format("the subject child answered {} records, expected 1", given.records.size()));
    return std::move(given.records.front());
  }
  // The child ended without an answer: reaped, and the next run forks another.
  int status = 0;
  while (::waitpid(child_->pid, &status, 0) < 0)
    if (errno != EINTR) return fail(ErrorKind::Io, fmt::format("waitpid: {}", std::strerror(errno)));
  child_reaped(child_->pid);
  ChildDied out = died(child_->pid, status, *child_->notes.get(), subject_file);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_).count();
  close_socket();
  child_.reset();
  return out;
}

}  // namespace tidemark::runner
