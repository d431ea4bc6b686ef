// A forked copy of the reducer that judges the candidates it is sent, one at a time, for as
// long as the reducer runs: threads in one process were serialised inside the driver (1.2x on
// two cores), a copy forked per candidate paid for its page tables each time (slower than one
// thread); copies that live give 1.7x. A candidate that crashes the code under test takes only
// its copy with it, and one that runs past its deadline is killed: the reducer starts another
// copy and goes on, never waiting for ever.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace tidemark::reduce {

class JudgeWorker {
 public:
  // What the copy does with each text it is sent: its verdict, as one message.
  using Judge = std::function<std::string(const std::string& text)>;
  // A copy of this process judging with `judge`; null when no copy could be made.
  static std::unique_ptr<JudgeWorker> start(const Judge& judge);
  JudgeWorker(const JudgeWorker&) = delete;
  JudgeWorker& operator=(const JudgeWorker&) = delete;
  ~JudgeWorker();  // the copy is killed and reaped
  bool send(const std::string& text);
  // The verdict on what was sent, or nullopt with `why` when the copy died, or gave no whole
  // verdict within `deadline` of this call (then it is killed: start another).
  std::optional<std::string> receive(std::chrono::milliseconds deadline, std::string& why);

 private:
  JudgeWorker(pid_t pid, int to, int from) : pid_(pid), to_(to), from_(from) {}
  std::string reap();  // waits for the copy's end and says how it ended
  pid_t pid_;
  int to_;
  int from_;
  bool reaped_ = false;
};

}  // namespace tidemark::reduce
