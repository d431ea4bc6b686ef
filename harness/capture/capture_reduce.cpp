#include "capture/capture_reduce.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "capture/capture_subject.h"
#include "capture/trace_calls.h"
#include "core/files.h"
#include "reduce/ddmin.h"

namespace tidemark::capture {

namespace fs = std::filesystem;

std::string Side::describe() const {
  std::string text = fault.empty() ? "no fault" : "fault=" + fault;
  return build.empty() ? text : fmt::format("{} on {}", text, build);
}

namespace {

// The most parts the coarse pass splits a candidate into: eight complements a round find a
// small core fast and stop short of the O(n) rounds a threshold costs ddmin.
constexpr size_t kCoarseParts = 8;

// The fixture as a candidate replays it: its capture the candidate's, its one check.
CaptureFixture candidate_fixture(const CaptureFixture& fixture, const scenario::GaugeCheck& check, bool whole,
                                 const fs::path& trace) {
  CaptureFixture candidate = fixture;
  candidate.capture = trace;
  candidate.controls.clear();
  candidate.bounds = {};
  (whole ? candidate.bounds.whole : candidate.bounds.each).push_back(check);
  return candidate;
}

struct Judged {
  bool interesting = false;
  std::string said;  // what each side gave, for a capture that is not interesting to begin with
  std::optional<report::RunRecord> bug_run, fix_run;
};

std::string outcome(const report::RunRecord& run) {
  std::string text(report::verdict_label(run.verdict));
  for (const auto& check : run.checks)
    if (!check.passed) text += fmt::format(" (`{}` {})", check.check, check.detail);
  if (!run.why.empty()) text += ": " + run.why;
  return text;
}

class Reducer {
 public:
  Reducer(const CaptureFixture& fixture, const CaptureReduceOptions& options, const scenario::GaugeCheck& check,
          bool whole, std::vector<TraceCall> calls)
      : fixture_(fixture),
        options_(options),
        check_(check),
        whole_(whole),
        calls_(std::move(calls)),
        units_(split_units(calls_)),
        started_(std::chrono::steady_clock::now()) {
    progress_.kept = units_.removable.size();
  }

  const Units& units() const { return units_; }

  // Replays the candidate of `chosen` units under the bug and, when it is red there, the fix.
  Result<Judged> judge(const std::vector<size_t>& chosen, const fs::path& dir) {
    TIDEMARK_CHECK(make_directories(dir));
    const fs::path trace = dir / "candidate.trace";
    TIDEMARK_CHECK(trim_capture(fixture_.capture, calls_of(units_, chosen), trace));
    const CaptureFixture candidate = candidate_fixture(fixture_, check_, whole_, trace);
    auto replay = [&](const Side& side) {
      ++replays_;
      return run_capture(candidate, {.column = {.backend = {}, .lane = {}, .build = side.build},
                                     .variant = {.fault = side.fault, .cut = {}},
                                     .report_dir = dir,
                                     .layer_dir = options_.layer_dir,
                                     .drivers_files = options_.drivers_files});
    };
    Judged judged;
    TIDEMARK_TRY(bug, replay(options_.bug));
    const bool red = bug.verdict == report::Verdict::Red &&
                     std::any_of(bug.checks.begin(), bug.checks.end(), [](const auto& c) { return !c.passed; });
    judged.said = fmt::format("under the bug ({}): {}", options_.bug.describe(), outcome(bug));
    judged.bug_run = std::move(bug);
    if (red) {
      TIDEMARK_TRY(fix, replay(options_.fix));
      judged.interesting = fix.verdict == report::Verdict::Green;
      judged.said += fmt::format("; under the fix ({}): {}", options_.fix.describe(), outcome(fix));
      judged.fix_run = std::move(fix);
    }
    return judged;
  }

  // Verdicts for a batch, judged `jobs` at a time; each distinct candidate once.
  std::vector<bool> batch(const std::vector<std::vector<size_t>>& candidates) {
    std::vector<bool> verdicts(candidates.size(), false);
    std::vector<size_t> todo;
    for (size_t k = 0; k < candidates.size(); ++k) {
      if (auto seen = memo_.find(candidates[k]); seen != memo_.end())
        verdicts[k] = seen->second;
      else
        todo.push_back(k);
    }
    std::vector<std::optional<Result<Judged>>> results(todo.size());
    std::atomic<size_t> next{0};
    {
      std::vector<std::jthread> workers;
      const size_t workers_wanted = std::max<size_t>(1, std::min<size_t>(jobs(), todo.size()));
      for (size_t w = 0; w < workers_wanted; ++w)
        workers.emplace_back([&] {
          for (size_t i; (i = next++) < todo.size();) {
            const fs::path dir = options_.work_dir / "candidates" / std::to_string(serial_ + i);
            results[i] = judge(candidates[todo[i]], dir);
            std::error_code ec;
            fs::remove_all(dir, ec);
          }
        });
    }
    serial_ += todo.size();
    for (size_t i = 0; i < todo.size(); ++i) {
      const size_t k = todo[i];
      // A candidate that could not be judged (trim or replay could not start) is an error of the
      // whole reduction, kept for the caller: never a silent "not interesting".
      if (!*results[i]) {
        if (!error_) error_ = results[i]->error();
        continue;
      }
      verdicts[k] = (*results[i])->interesting;
      memo_[candidates[k]] = verdicts[k];
      ++progress_.tried;
      if (verdicts[k] && candidates[k].size() < progress_.kept) progress_.kept = candidates[k].size();
    }
    report_progress();
    return verdicts;
  }

  void phase(std::string name) {
    progress_.phase = std::move(name);
    report_progress();
  }

  void settle(const std::vector<size_t>& best) { progress_.kept = best.size(); }

  const std::optional<Error>& error() const { return error_; }
  // Candidates judged at once: the options' count, else one per core.
  size_t jobs() const { return options_.jobs ? options_.jobs : std::max(1u, std::thread::hardware_concurrency()); }
  ReduceProgress progress() const {
    ReduceProgress now = progress_;
    now.replays = replays_;
    now.calls = units_.setup.size() + now.kept;  // setup and the best candidate's units
    now.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    return now;
  }

 private:
  void report_progress() {
    if (options_.progress) options_.progress(progress());
  }

  const CaptureFixture& fixture_;
  const CaptureReduceOptions& options_;
  const scenario::GaugeCheck& check_;
  const bool whole_;
  const std::vector<TraceCall> calls_;
  const Units units_;
  const std::chrono::steady_clock::time_point started_;
  std::map<std::vector<size_t>, bool> memo_;
  std::atomic<size_t> replays_{0};
  size_t serial_ = 0;
  ReduceProgress progress_;
  std::optional<Error> error_;
};

// The check the reduction keeps, as written, and whether it is on the tree.
Result<std::pair<scenario::GaugeCheck, bool>> named_check(const CaptureFixture& fixture, const std::string& check) {
  const std::vector<std::string> checks = fixture.checks();
  size_t index = checks.size();
  for (size_t k = 0; k < checks.size(); ++k)
    if (checks[k] == check || check_id(k) == check || legacy_check_id(k) == check) index = k;
  if (index == checks.size())
    return fail(ErrorKind::BadInput, fmt::format("--check: expected a check of {} ({}) or gauge[K], found '{}'",
                                                 fixture.file.string(), fmt::join(checks, "; "), check));
  const size_t each = fixture.bounds.each.size();
  return std::pair{index < each ? fixture.bounds.each[index] : fixture.bounds.whole[index - each], index >= each};
}

}  // namespace

std::string kept_summary(const std::vector<std::string>& kept) {
  std::vector<std::pair<std::string, size_t>> counts;
  for (const auto& function : kept) {
    auto found = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == function; });
    if (found == counts.end())
      counts.emplace_back(function, 1);
    else
      ++found->second;
  }
  std::vector<std::string> parts;
  for (const auto& [function, count] : counts)
    parts.push_back(count == 1 ? function : fmt::format("{} {}", count, function));
  return fmt::format("{}", fmt::join(parts, ", "));
}

Result<CaptureReduction> reduce_capture(const CaptureFixture& fixture, const CaptureReduceOptions& options) {
  if (fixture.kind != CaptureKind::Apitrace)
    return fail(ErrorKind::BadInput, fmt::format("reduce: expected an apitrace capture (.trace), found a {} one ({})",
                                                 kind_name(fixture.kind), fixture.capture.string()));
  if (options.bug.fault == options.fix.fault && options.bug.build == options.fix.build)
    return fail(ErrorKind::BadInput,
                fmt::format("reduce: expected a bug (--fault, or --bug-build) that differs from the "
                            "fix, found both {}",
                            options.bug.describe()));
  TIDEMARK_TRY(named, named_check(fixture, options.check));
  TIDEMARK_CHECK(make_directories(options.work_dir));
  TIDEMARK_TRY(calls, list_calls(fixture.capture, options.work_dir / "calls.dump"));
  Reducer reducer(fixture, options, named.first, named.second, calls);
  const Units& units = reducer.units();
  std::vector<size_t> all(units.removable.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;

  // The capture as it is must tell the bug from the fix.
  reducer.phase("the whole capture");
  TIDEMARK_TRY(whole, reducer.judge(all, options.work_dir / "whole"));
  if (!whole.interesting)
    return fail(ErrorKind::BadInput,
                fmt::format("reduce: expected {} red under the bug and the replay green under the fix, "
                            "found {}",
                            named.first.expr.text(), whole.said));
  const auto deadline = std::chrono::steady_clock::now() + options.budget;
  std::string stopped;
  auto stop = [&] {
    if (stopped.empty() && options.interrupted && options.interrupted()) stopped = "it was interrupted";
    if (stopped.empty() && std::chrono::steady_clock::now() >= deadline)
      stopped = fmt::format("its budget of {} s was spent", options.budget.count());
    return !stopped.empty();
  };
  // A batch asked for after the stop is judged not interesting without a replay: each search
  // then ends on what it had, which is interesting.
  auto judge = [&](const std::vector<std::vector<size_t>>& candidates) {
    return stop() ? std::vector<bool>(candidates.size(), false) : reducer.batch(candidates);
  };
  const size_t jobs = reducer.jobs();
  std::vector<size_t> best = all;
  reducer.phase("setup alone");
  if (judge({{}}).front()) best.clear();
  if (!best.empty() && units.frames.size() > 1) {
    // Whole frames first: a frame's units go together.
    reducer.phase("frames");
    std::vector<size_t> frames(units.frames.size());
    for (size_t k = 0; k < frames.size(); ++k) frames[k] = k;
    auto units_of = [&](const std::vector<size_t>& chosen) {
      std::vector<size_t> out;
      for (size_t frame : chosen) out.insert(out.end(), units.frames[frame].begin(), units.frames[frame].end());
      std::sort(out.begin(), out.end());
      return out;
    };
    const std::vector<size_t> kept = reduce::minimize(
        frames,
        [&](const std::vector<std::vector<size_t>>& candidates) {
          std::vector<std::vector<size_t>> as_units;
          for (const auto& each : candidates) as_units.push_back(units_of(each));
          return judge(as_units);
        },
        jobs, stop);
    best = units_of(kept);
    reducer.settle(best);
  }
  // Coarse ddmin first (a few calls that make the red alone are found in few candidates), then
  // the shortest run of what is left (a red that needs many calls, where ddmin's complements of
  // single calls would each lose it), then ddmin to 1-minimal as the budget allows.
  if (best.size() > kCoarseParts) {
    reducer.phase("coarse");
    best = reduce::minimize(best, judge, jobs, stop, kCoarseParts);
    reducer.settle(best);
  }
  if (best.size() > kCoarseParts) {
    reducer.phase("shortest run");
    best = reduce::shortest_window(best, judge, stop);
    reducer.settle(best);
  }
  if (!best.empty()) {
    reducer.phase("calls");
    best = reduce::minimize(best, judge, jobs, stop);
    reducer.settle(best);
  }
  // A candidate in flight when the user interrupted has its replayer interrupted too: after a
  // stop, the best cut so far is the result (its replays below prove it), whatever failed then.
  if (reducer.error() && stopped.empty()) return std::unexpected(*reducer.error());

  // The result, replayed once more under each side for its records.
  reducer.phase("the result");
  CaptureReduction reduction;
  TIDEMARK_TRY(result, reducer.judge(best, options.work_dir / "result"));
  if (!result.interesting)
    return fail(ErrorKind::Fatal,
                fmt::format("reduce: the result did not stay interesting when replayed again: {}", result.said));
  reduction.trace = options.work_dir / "reduced.trace";
  TIDEMARK_CHECK(link_or_copy_file(options.work_dir / "result" / "candidate.trace", reduction.trace));
  reduction.check = named.first.expr.text();
  reduction.whole = named.second;
  reduction.calls_before = calls.size();
  reduction.removable_before = units.removable.size();
  reduction.setup_calls = units.setup.size();
  for (size_t unit : best)
    for (uint32_t number : units.removable[unit])  // calls are in number order
      reduction.kept.push_back(std::lower_bound(calls.begin(), calls.end(), number, [](const TraceCall& c, uint32_t n) {
                                 return c.number < n;
                               })->function);
  reduction.bug_run = std::move(*result.bug_run);
  reduction.fix_run = std::move(*result.fix_run);
  reduction.done = reducer.progress();
  reduction.done.kept = best.size();
  reduction.done.calls = units.setup.size() + reduction.kept.size();
  reduction.stopped = stopped;
  return reduction;
}

Result<WrittenReduction> write_reduction(const CaptureFixture& from, const CaptureReduction& reduction,
                                         const CaptureReduceOptions& options, const std::string& name,
                                         const fs::path& out) {
  WrittenReduction written{
      .fixture = out / (name + std::string(kCaptureSuffix)), .trace = out / (name + ".trace"), .red_once = {}};
  std::error_code ec;
  for (const auto& file : {written.fixture, written.trace})
    if (fs::exists(file, ec))
      return fail(ErrorKind::BadInput,
                  fmt::format("reduce: {} is there already: choose another --name or remove it", file.string()));
  const Control control{.fault = options.bug.fault,
                        .build = options.bug.fault.empty() ? options.bug.build : "",
                        .cut = {},
                        .fails = {reduction.check},
                        .where = {}};
  const FixtureDocument document{
      .comment = {fmt::format("Reduced by tidemark reduce from {} ({} calls) to its {} setup calls and {} more{}{}.",
                              from.file.filename().string(), reduction.calls_before, reduction.setup_calls,
                              reduction.kept.size(), reduction.kept.empty() ? "" : ": ", kept_summary(reduction.kept)),
                  fmt::format("Red under the bug ({}), green under the fix ({}).", options.bug.describe(),
                              options.fix.describe())},
      .name = name,
      .group = from.group,
      .capture = written.trace.filename().string(),
      .expect = reduction.whole ? std::vector<std::string>{} : std::vector<std::string>{reduction.check},
      .whole = reduction.whole ? std::vector<std::string>{reduction.check} : std::vector<std::string>{},
      .controls = {control}};
  // Proven where it is made, then moved into place.
  const fs::path staged = options.work_dir / "fixture";
  fs::remove_all(staged, ec);
  TIDEMARK_CHECK(make_directories(staged));
  TIDEMARK_CHECK(link_or_copy_file(reduction.trace, staged / written.trace.filename()));
  TIDEMARK_CHECK(write_file_atomically(staged / written.fixture.filename(), fixture_text(document)));
  TIDEMARK_TRY(fixture, load_capture_fixture(staged / written.fixture.filename()));
  runner::RedOnceOptions proving;
  proving.run.column.build = options.fix.build;
  proving.run.report_dir = options.work_dir / "red-once";
  proving.run.layer_dir = options.layer_dir;
  proving.run.drivers_files = options.drivers_files;
  TIDEMARK_TRY(red_once, runner::red_once(CaptureSubject(fixture), proving));
  written.red_once = std::move(red_once);
  if (!written.red_once.passed())
    return fail(ErrorKind::Fatal, fmt::format("reduce: the reduced fixture is not red-once: {}",
                                              fmt::join(written.red_once.problems, "; ")));
  TIDEMARK_CHECK(make_directories(out));
  for (const auto& file : {written.trace, written.fixture})
    TIDEMARK_CHECK(link_or_copy_file(staged / file.filename(), file));
  return written;
}

}  // namespace tidemark::capture
