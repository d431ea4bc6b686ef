#include "runner/pipeline/isolation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <new>
#include <set>
#include <vector>

#include "observe/crash_notes.h"
#include "core/gauges.h"
#include "core/process.h"
#include "core/temporaries.h"
#include "core/worker.h"
#include "layer/tidemark_layer.h"
#include "observe/observe.h"
#include "report/json_fields.h"
#include "runner/pipeline/build_runs.h"
#include "runner/pipeline/subject.h"
#include "renderer/servers_activity.h"

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

// In the child, before its first run: its notes armed, and the servers it starts (a lane's
// tidemark-server, a renderer server) noting their layer's calls where the parent's bounds read them.
void prepare_child(crash_notes::Notes* notes, const std::filesystem::path& servers_activity) {
  crash_notes::arm(notes);
  renderer::note_servers_activity_in(servers_activity);
}

// In the child: the run asked for (its index) through the pipeline, its record or error answered
// as a build answer. When the parent has no more, the child ends as a run without isolation does,
// by exit(): what a process's end runs must run (a capture layer's last write — gfxrecon's file was
// cut short by _exit —, the drivers' own teardown, a sanitizer's leak check). The parent holds no
// static with a thread of its own, so nothing the child inherited waits on one.
std::string answer_in_child(const IsolatedRuns::Pipeline& pipeline, const std::string& request,
                            crash_notes::Notes* notes) {
  renderer::servers_activity_run_starts();
  // A run's notes start empty; the layer's stay (its count is the process's, its name written
  // only when it changes).
  notes->step = {};
  notes->server = {};
  notes->wire = {};
  notes->device_lost = {};
  notes->layer_calls_before = notes->layer.calls;
  BatchAnswer answer;
  try {
    auto record = pipeline(static_cast<size_t>(std::stoull(request)));
    if (record)
      answer.records.push_back(std::move(*record));
    else
      answer.error = record.error();
  } catch (const std::exception& error) {
    answer.error = Error{ErrorKind::Io, fmt::format("internal error in the subject's child: {}", error.what())};
  }
  std::fflush(stdout);
  std::fflush(stderr);
  return to_json(answer).dump();
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
  auto lost = renderer::device_lost_by_this_runs_servers();
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
  // Where the servers it starts note their layer's calls (TIDEMARK_LAYER_ACTIVITY), and what the
  // parent read there: their sum, and whether they moved after the child's own layer in this run.
  TemporaryFolder servers_activity;
  observe::ActivityReader servers_read;
  uint64_t own_calls = 0;
  bool servers_last = false;
  Worker worker;  // last: it goes (its child waited for) before the notes and the folder

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

IsolatedRuns::~IsolatedRuns() { child_.reset(); }  // the child reads the socket's end, leaves and is reaped

Status IsolatedRuns::start() {
  TIDEMARK_TRY(notes, SharedNotes::map());
  TIDEMARK_TRY(servers_activity, TemporaryFolder::make("activity"));
  crash_notes::Notes* shared = notes.get();
  const std::filesystem::path activity_folder = servers_activity.path();
  TIDEMARK_TRY(worker,
               Worker::fork([this, shared](std::string request) { return answer_in_child(pipeline_, request, shared); },
                            {.in_child = [&] { prepare_child(shared, activity_folder); }, .exit_cleanly = true}));
  observe::ActivityReader servers_read({activity_folder});
  child_ = std::make_unique<Child>(
      Child{std::move(notes), std::move(servers_activity), std::move(servers_read), 0, false, std::move(worker)});
  return {};
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
  child_->worker.send(std::to_string(index));
  return {};
}

int IsolatedRuns::socket() const { return child_ ? child_->worker.socket() : -1; }

std::chrono::milliseconds IsolatedRuns::next_check() const {
  return watch_ ? watch_->next_check() : std::chrono::milliseconds(100);
}

Result<std::optional<IsolatedRuns::Answer>> IsolatedRuns::check_bounds(const std::string& subject_file) {
  if (!child_ || !watch_) return std::optional<Answer>();
  const auto end = child_->worker.check(*watch_, child_->activity());
  if (!end) return std::optional<Answer>();
  TimedOut out = timed_out(end->pid, end->limit.value_or(TimeLimit::WallClock), *watch_, *child_->notes.get(),
                           subject_file, end->tree_ended, child_->last_vulkan_call(), child_->asked_again());
  child_.reset();
  watch_.reset();
  return std::optional<Answer>(std::move(out));
}

Result<IsolatedRuns::Answer> IsolatedRuns::receive(const std::string& subject_file) {
  if (!child_) return fail(ErrorKind::Io, "the subject's child was asked for no run");
  watch_.reset();
  TIDEMARK_TRY(reply, child_->worker.receive());
  if (const auto* text = std::get_if<std::string>(&reply)) {
    TIDEMARK_TRY(json, report::parse_json(*text, "the subject child's answer", "a build answer"));
    TIDEMARK_TRY(given, answer_from_json(json));
    if (given.error) return std::unexpected(*given.error);
    if (given.records.size() != 1)
      return fail(ErrorKind::Io,
                  fmt::format("the subject child answered {} records, expected 1", given.records.size()));
    return std::move(given.records.front());
  }
  // The child ended without an answer: the next run forks another.
  const WorkerEnd end = std::get<WorkerEnd>(reply);
  if (end.cause != WorkerEnd::Cause::Ended) {
    child_.reset();
    return fail(ErrorKind::Io, fmt::format("the subject's child (pid {}) {}", end.pid, describe(end)));
  }
  ChildDied out = died(end.pid, end.wait_status, *child_->notes.get(), subject_file);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_).count();
  child_.reset();
  return out;
}

}  // namespace tidemark::runner
