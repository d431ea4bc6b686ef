#include "runner/pipeline/schedule.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <memory>
#include <numeric>

#include "runner/pipeline/isolation.h"
#include "runner/pipeline/pipeline.h"

namespace tidemark::runner {

std::vector<size_t> shuffled_order(size_t count, uint64_t seed) {
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  // SplitMix64 and Fisher-Yates written out: std::shuffle's use of its generator differs between
  // standard libraries.
  uint64_t state = seed;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  for (size_t left = count; left > 1; --left) std::swap(order[left - 1], order[next() % left]);
  return order;
}

namespace {

// The runs under way: at most `jobs` of them, each in a child (isolation) or, one at a time, here.
class Runs {
 public:
  // `failed_before`: the failures a resumed run's journal holds, counted toward `max_fails`.
  Runs(std::vector<PreparedRun>& runs, size_t jobs, size_t max_fails, size_t failed_before)
      : runs_(runs), max_fails_(max_fails), failures_(failed_before) {
    const bool isolated = !runs.empty() && runs_in_child(*runs.front().options);
    if (!isolated) return;
    for (size_t w = 0; w < jobs; ++w)
      children_.push_back(std::make_unique<IsolatedRuns>([this](size_t k) { return run_here(runs_.at(k)); }));
    busy_.resize(jobs);
  }

  bool may_start() const { return max_fails_ == 0 || failures_ < max_fails_; }
  size_t failures() const { return failures_; }
  bool idle() const {
    return std::none_of(busy_.begin(), busy_.end(), [](const auto& k) { return k.has_value(); });
  }
  // A child free for another run, if any.
  std::optional<size_t> free_child() const {
    for (size_t w = 0; w < busy_.size(); ++w)
      if (!busy_[w]) return w;
    return std::nullopt;
  }
  std::vector<size_t> running() const {
    std::vector<size_t> out;
    for (const auto& k : busy_)
      if (k) out.push_back(*k);
    return out;
  }

  Status start_in_child(size_t child, size_t index) {
    TIDEMARK_CHECK(children_[child]->send(index, child_bounds(runs_.at(index))));
    busy_[child] = index;
    return {};
  }

  // A try's record: the subject's index, the child it ran in (none: this process) and its record.
  struct Try {
    size_t index;
    std::optional<size_t> child;
    report::RunRecord record;
  };

  // Waits for the next child that answered, ended or passed a time limit (its tree then killed),
  // and gives its subject's record.
  Result<Try> next_answer() {
    for (;;) {
      std::vector<pollfd> waiting;
      std::vector<size_t> child_of;
      auto wait = std::chrono::milliseconds::max();
      for (size_t w = 0; w < busy_.size(); ++w)
        if (busy_[w]) {
          waiting.push_back({children_[w]->socket(), POLLIN, 0});
          child_of.push_back(w);
          wait = std::min(wait, children_[w]->next_check());
        }
      const int ready = ::poll(waiting.data(), waiting.size(), static_cast<int>(wait.count()));
      if (ready < 0 && errno != EINTR) return fail(ErrorKind::Io, fmt::format("poll: {}", std::strerror(errno)));
      for (size_t k = 0; k < waiting.size(); ++k) {
        const size_t child = child_of[k], index = *busy_[child];
        const std::string file = runs_[index].subject->info().file.string();
        std::optional<IsolatedRuns::Answer> answer;
        if (ready > 0 && waiting[k].revents != 0) {
          TIDEMARK_TRY(received, children_[child]->receive(file));
          answer = std::move(received);
        } else {
          TIDEMARK_TRY(passed, children_[child]->check_bounds(file));
          answer = std::move(passed);
        }
        if (!answer) continue;
        busy_[child].reset();
        TIDEMARK_TRY(record, record_of(runs_[index], std::move(*answer)));
        return Try{index, child, std::move(record)};
      }
    }
  }

  Result<Try> run_in_this_process(size_t index) {
    TIDEMARK_TRY(record, run_here(runs_[index]));
    return Try{index, std::nullopt, std::move(record)};
  }

  bool isolated() const { return !children_.empty(); }

  // A subject's record, after its last try: --max-fails counts a subject once.
  void count(const report::RunRecord& record) {
    if (counts_as_failed(record)) ++failures_;
  }
  // A subject that ran and failed (one skipped or not run did not run).
  static bool counts_as_failed(const report::RunRecord& record) {
    return !report::passes(record.verdict) && !report::not_ran(record.verdict);
  }

 private:
  std::vector<PreparedRun>& runs_;
  size_t max_fails_;
  size_t failures_ = 0;
  std::vector<std::unique_ptr<IsolatedRuns>> children_;
  std::vector<std::optional<size_t>> busy_;
};

}  // namespace

Result<std::vector<report::RunRecord>> run_scheduled(std::vector<PreparedRun>& prepared, const Schedule& schedule,
                                                     const ScheduleEvents& events) {
  std::vector<std::optional<report::RunRecord>> records(prepared.size());
  auto finish = [&](size_t index, report::RunRecord record) {
    if (events.finished) events.finished(index, record);
    records[index] = std::move(record);
  };
  auto announce = [&](std::vector<size_t> running) {
    if (events.running) events.running(running);
  };
  std::vector<size_t> order(prepared.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (schedule.shuffle) order = shuffled_order(prepared.size(), *schedule.shuffle);
  std::vector<size_t> queue;
  size_t journaled_failures = 0;  // --max-fails counts them: a resumed run runs no more than a whole one
  for (size_t k : order) {
    if (schedule.done)
      if (auto journaled = schedule.done->find(prepared[k].subject->info().id); journaled != schedule.done->end()) {
        records[k] = journaled->second;  // it ran before the run was killed: its record stands in
        if (Runs::counts_as_failed(*records[k])) ++journaled_failures;
        continue;
      }
    std::optional<std::string> skipped;
    if (schedule.filter)
      if (auto reason = schedule.filter->skip_reason(prepared[k].identity.test)) skipped = "skipped: " + *reason;
    if (!skipped) {
      TIDEMARK_TRY(expected, expected_skip(prepared[k]));  // an expectations line saying `skip`
      skipped = std::move(expected);
    }
    if (!skipped) {
      queue.push_back(k);
      continue;
    }
    finish(k, did_not_run(prepared[k], report::Verdict::Skipped, std::move(*skipped)));
  }

  // A child is forked by this thread at its first run (and again after one that died): this
  // process loads no driver, and its only other thread, the status line's, is held still then.
  Runs runs(prepared, std::max<size_t>(1, std::min(schedule.jobs, queue.size())), schedule.max_fails,
            journaled_failures);
  // --retry: each subject's tries so far; a try that tries_again names starts again at once, in the
  // child it ran in (a new one after a crash), and only the record of all its tries is finished.
  std::vector<std::vector<report::RunRecord>> tries(prepared.size());
  auto tried = [&](size_t k, report::RunRecord record) -> Result<bool> {
    tries[k].push_back(std::move(record));
    if (tries_again(*prepared[k].options, tries[k])) return true;
    TIDEMARK_TRY(last, record_of_tries(prepared[k], std::move(tries[k])));
    runs.count(last);
    finish(k, std::move(last));
    return false;
  };
  size_t next = 0;
  if (!runs.isolated()) {
    for (; next < queue.size() && runs.may_start(); ++next) {
      announce({queue[next]});
      for (bool again = true; again;) {
        TIDEMARK_TRY(ran, runs.run_in_this_process(queue[next]));
        TIDEMARK_TRY(more, tried(ran.index, std::move(ran.record)));
        again = more;
      }
    }
  } else {
    for (;;) {
      for (auto child = runs.free_child(); child && next < queue.size() && runs.may_start(); child = runs.free_child())
        TIDEMARK_CHECK(runs.start_in_child(*child, queue[next++]));
      if (runs.idle()) break;
      announce(runs.running());
      TIDEMARK_TRY(answered, runs.next_answer());
      TIDEMARK_TRY(again, tried(answered.index, std::move(answered.record)));
      if (again) TIDEMARK_CHECK(runs.start_in_child(*answered.child, answered.index));
    }
  }
  for (; next < queue.size(); ++next) {
    const size_t k = queue[next];
    finish(k, did_not_run(prepared[k], report::Verdict::NotRun,
                          fmt::format("not run: --max-fails {} was reached ({} failed runs before it would have "
                                      "started)",
                                      schedule.max_fails, runs.failures())));
  }
  std::vector<report::RunRecord> out;
  for (auto& record : records) out.push_back(std::move(*record));
  return out;
}

}  // namespace tidemark::runner
