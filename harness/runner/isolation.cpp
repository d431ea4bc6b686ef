#include "runner/isolation.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <span>

#include "core/crash_notes.h"
#include "core/process.h"
#include "report/json_fields.h"
#include "runner/build_runs.h"
#include "runner/subject.h"
#include "wire/posix.h"

namespace tidemark::runner {

namespace {

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

// In the child: the pipeline's record or error, written as a build answer, then _exit (status 0
// only once the answer is whole). No destructor, atexit handler or driver thread runs after it.
[[noreturn]] void serve_in_child(const std::function<Result<report::RunRecord>()>& pipeline, int answer_fd) {
  BatchAnswer answer;
  try {
    auto record = pipeline();
    if (record)
      answer.records.push_back(std::move(*record));
    else
      answer.error = record.error();
  } catch (const std::exception& error) {
    answer.error = Error{ErrorKind::Io, fmt::format("internal error in the subject's child: {}", error.what())};
  }
  const std::string text = to_json(answer).dump();
  const bool written =
      wire::write_all(answer_fd, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size())).has_value();
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(written ? 0 : 1);
}

Result<std::string> read_back(int fd) {
  if (::lseek(fd, 0, SEEK_SET) != 0) return fail(ErrorKind::Io, "rewinding the subject child's answer");
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(ErrorKind::Io, fmt::format("reading the subject child's answer: {}", std::strerror(errno)));
    if (n == 0) return text;
    text.append(buffer, static_cast<size_t>(n));
  }
}

// How a child that gave no record ended, from its wait status and what it noted.
ChildDied died(pid_t child, int status, const crash_notes::Notes& notes, const std::string& subject_file) {
  ChildDied out;
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

}  // namespace

bool drives_here(const Subject& subject, const RunOptions& options) {
  const Lane lane = options.column.lane.lane;
  return options.isolation && subject.has_lanes() && !subject.takes_builds() &&
         (lane == Lane::Monolith || lane == Lane::Split);
}

Result<std::variant<report::RunRecord, ChildDied>> run_in_child(
    const std::function<Result<report::RunRecord>()>& pipeline, const std::string& subject_file) {
  TIDEMARK_TRY(notes, SharedNotes::map());
  UniqueFd answer(::memfd_create("tidemark-subject-answer", MFD_CLOEXEC));
  if (!answer) return fail(ErrorKind::Io, fmt::format("memfd_create: {}", std::strerror(errno)));
  // What this process printed so far is out before the fork: the child's copy of a buffer is its own.
  std::fflush(stdout);
  std::fflush(stderr);
  const auto started = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child < 0) return fail(ErrorKind::Io, fmt::format("fork: {}", std::strerror(errno)));
  if (child == 0) {
    crash_notes::arm(notes.get());
    serve_in_child(pipeline, answer.get());
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return fail(ErrorKind::Io, fmt::format("waitpid: {}", std::strerror(errno)));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    TIDEMARK_TRY(text, read_back(answer.get()));
    TIDEMARK_TRY(json, report::parse_json(text, "the subject child's answer", "a build answer"));
    TIDEMARK_TRY(given, answer_from_json(json));
    if (given.error) return std::unexpected(*given.error);
    if (given.records.size() != 1)
      return fail(ErrorKind::Io,
                  fmt::format("the subject child answered {} records, expected 1", given.records.size()));
    return std::move(given.records.front());
  }
  ChildDied out = died(child, status, *notes.get(), subject_file);
  out.seconds = seconds;
  return out;
}

}  // namespace tidemark::runner
