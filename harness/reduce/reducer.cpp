#include "reduce/reducer.h"

#include "core/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <set>
#include <thread>
#include <unordered_map>

#include "core/files.h"
#include "core/worker.h"
#include "reduce/ddmin.h"
#include "reduce/scenario_text.h"
#include "runner/kinds/scenario_subject.h"
#include "session/builtin_backends.h"

namespace tidemark::reduce {

namespace fs = std::filesystem;
using scenario::Scenario;
using scenario::Step;

namespace {

// A literal value of a field, or nullopt when it is an expression over loop variables.
std::optional<int64_t> literal(const scenario::IntField& field) { return field.expr.literal_value(); }

// Calls `visit` with every step of the workload in file order, a repeat's steps after it.
template <class Visit>
void each_step(const std::vector<Step>& steps, const Visit& visit) {
  for (const auto& step : steps) {
    std::visit(visit, *step.kind);
    if (const auto* loop = std::get_if<scenario::Repeat>(step.kind.get())) each_step(loop->steps, visit);
  }
}

// A draw, or a sub-data write, needs a store in its buffers: in file order a buffer_data of
// a size that is not 0 before it. Cheaper than a run, and a run would only refuse it.
bool stores_before_use(const Scenario& scenario) {
  std::set<std::string> stored;
  bool fine = true;
  each_step(scenario.workload, [&](const auto& kind) {
    using K = std::decay_t<decltype(kind)>;
    if constexpr (std::is_same_v<K, scenario::BufferData>) {
      if (literal(kind.size) == 0)
        stored.erase(kind.buffer);
      else
        stored.insert(kind.buffer);
    } else if constexpr (std::is_same_v<K, scenario::BufferSubData>) {
      fine = fine && stored.contains(kind.buffer);
    } else if constexpr (std::is_same_v<K, scenario::Draw>) {
      fine = fine && stored.contains(kind.uniform) && (!kind.vertices || stored.contains(*kind.vertices));
    }
  });
  return fine;
}

// The buffers the workload names, in the order the file declares them.
std::vector<std::string> used_buffers(const Scenario& scenario) {
  std::set<std::string> used;
  each_step(scenario.workload, [&](const auto& kind) {
    using K = std::decay_t<decltype(kind)>;
    if constexpr (std::is_same_v<K, scenario::BufferData> || std::is_same_v<K, scenario::BufferSubData>) {
      used.insert(kind.buffer);
    } else if constexpr (std::is_same_v<K, scenario::Draw>) {
      used.insert(kind.uniform);
      if (kind.vertices) used.insert(*kind.vertices);
    }
  });
  std::vector<std::string> ordered;
  for (const auto& buffer : scenario.buffers)
    if (used.contains(buffer)) ordered.push_back(buffer);
  return ordered;
}

struct CandidateTrial {
  bool interesting = false;
  bool ill_formed = false;
  size_t runs = 0;
  std::vector<std::string> red;  // the checks red under the bug
  std::string seen;              // what made it uninteresting, for the first candidate's error
};

// A trial as a forked judge writes it down its pipe: one line of flags and counts, what was
// seen, then the red checks, a line each (none of them holds a newline).
std::string encode_trial(const CandidateTrial& trial) {
  std::string seen = trial.seen;
  std::replace(seen.begin(), seen.end(), '\n', ' ');
  std::string out =
      fmt::format("{} {} {}\n{}\n", trial.interesting ? 1 : 0, trial.ill_formed ? 1 : 0, trial.runs, seen);
  for (const auto& check : trial.red) out += check + "\n";
  return out;
}
std::optional<CandidateTrial> decode_trial(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  for (size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(text.substr(at, end - at));
  CandidateTrial trial;
  int interesting = 0, ill_formed = 0;
  unsigned long runs = 0;
  if (lines.size() < 2 || std::sscanf(lines[0].c_str(), "%d %d %lu", &interesting, &ill_formed, &runs) != 3)
    return std::nullopt;
  trial.interesting = interesting == 1;
  trial.ill_formed = ill_formed == 1;
  trial.runs = runs;
  trial.seen = lines[1];
  trial.red.assign(lines.begin() + 2, lines.end());
  return trial;
}

class Reducer {
 public:
  Reducer(ScenarioText text, fs::path file, const ReduceOptions& options)
      : text_(std::move(text)), file_(std::move(file)), options_(options), started_(std::chrono::steady_clock::now()) {
    jobs_ = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  }

  const ScenarioText& text() const { return text_; }
  unsigned jobs() const { return jobs_; }

  // Trials of the candidates, judged `jobs` at a time; each distinct text once.
  std::vector<bool> judge(const std::vector<Edits>& candidates) {
    std::vector<std::string> texts;
    for (const auto& edits : candidates) texts.push_back(text_.render(edits));
    std::vector<size_t> todo;
    for (size_t k = 0; k < texts.size(); ++k)
      if (!cache_.contains(texts[k]) &&
          std::none_of(todo.begin(), todo.end(), [&](size_t j) { return texts[j] == texts[k]; }))
        todo.push_back(k);
    std::vector<CandidateTrial> trials(todo.size());
    size_t next = 0;
    // The first candidate of all is judged here: the drivers it loads stay loaded (the Vulkan
    // backend keeps them), so the copies forked after it never open and relocate them again.
    if (workers_.empty() && !todo.empty()) {
      const auto began = std::chrono::steady_clock::now();
      trials[0] = judge_text(texts[todo[0]]);
      // A candidate is the input with parts cut: one that runs ten times as long as the input
      // did (and over 30 s) is stuck, in the code under test or in a wait nothing will end.
      deadline_ = std::max<std::chrono::milliseconds>(
          std::chrono::seconds(30),
          10 * std::chrono::ceil<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began));
      next = 1;
      for (unsigned w = 0; w < jobs_; ++w) workers_.push_back(start_judge());
    }
    std::deque<size_t> idle;
    for (size_t w = 0; w < workers_.size(); ++w) idle.push_back(w);
    std::deque<std::pair<size_t, size_t>> busy;  // candidate, worker
    while (next < todo.size() || !busy.empty()) {
      if (next < todo.size() && !idle.empty()) {
        size_t w = idle.front();
        idle.pop_front();
        if (!workers_[w]) {
          trials[next] = judge_text(texts[todo[next]]);  // no copy to send it to: judged here
          workers_[w] = start_judge();
          idle.push_back(w);
        } else {
          workers_[w]->send(texts[todo[next]]);
          busy.emplace_back(next, w);
        }
        ++next;
        continue;
      }
      auto [k, w] = busy.front();
      busy.pop_front();
      std::string why;
      std::optional<CandidateTrial> trial;
      const auto reply = workers_[w]->receive(std::chrono::steady_clock::now() + deadline_);
      if (!reply)
        why = reply.error().message;
      else if (const auto* end = std::get_if<WorkerEnd>(&*reply))
        why = "the candidate's judge " + describe(*end);
      else if (trial = decode_trial(std::get<std::string>(*reply)); !trial)
        why = "the candidate's judge gave an unreadable verdict";
      if (trial) {
        trials[k] = std::move(*trial);
      } else {  // a copy that crashed, hung or garbled its answer: the candidate is not interesting
        trials[k].runs = 1;
        trials[k].seen = std::move(why);
        workers_[w] = start_judge();
      }
      idle.push_back(w);
    }
    for (size_t k = 0; k < todo.size(); ++k) {
      ++progress_.tried;
      progress_.ill_formed += trials[k].ill_formed ? 1 : 0;
      progress_.runs += trials[k].runs;
      cache_.emplace(texts[todo[k]], std::move(trials[k]));
    }
    std::vector<bool> interesting;
    for (const auto& text : texts) interesting.push_back(cache_.at(text).interesting);
    return interesting;
  }
  bool judge(const Edits& candidate) { return judge(std::vector<Edits>{candidate}).front(); }
  const CandidateTrial& trial(const Edits& candidate) {
    judge(candidate);
    return cache_.at(text_.render(candidate));
  }

  // The steps alive under `edits`: not cut, nor inside a cut repeat.
  bool alive(const Edits& edits, size_t step) const {
    for (std::optional<size_t> at = step; at; at = text_.steps()[*at].parent)
      if (edits.cut_steps.contains(*at)) return false;
    return true;
  }

  void report(const std::string& phase, const Edits& best) {
    progress_.phase = phase;
    progress_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    if (auto loaded = scenario::load_text(text_.render(best), file_))
      std::tie(progress_.steps, progress_.calls) = count_steps(*loaded);
    if (options_.progress) options_.progress(progress_);
  }
  const Progress& progress() const { return progress_; }

 private:
  CandidateTrial judge_text(const std::string& text) const {
    CandidateTrial trial;
    auto loaded = scenario::load_text(text, file_);
    if (!loaded || !stores_before_use(*loaded)) {
      trial.ill_formed = true;
      trial.seen = loaded ? "a draw or sub-data write of a buffer with no store" : loaded.error().message;
      return trial;
    }
    auto check = loaded->find_check(options_.check);
    if (!check) {
      trial.ill_formed = true;
      trial.seen = fmt::format("no check '{}'", options_.check);
      return trial;
    }
    auto run = [&](bool bug) -> Result<report::RunRecord> {
      runner::RunOptions run;
      run.column.lane.lane = Lane::Monolith;
      run.column.lane.backends = &session::builtin_backends();
      if (bug) {
        run.variant.mutant = options_.mutant;
        run.variant.knobs = options_.knobs;
      }
      return runner::run(*loaded, run);
    };
    // A failed check as the scenario writes it; nullopt for the runner's own (lane, validation).
    auto written = [&](const report::CheckRecord& record) -> std::optional<std::string> {
      for (const auto& id : loaded->checks())
        if (id.str() == record.id) return loaded->check_text(id);
      return std::nullopt;
    };
    auto failed = [&](const report::RunRecord& result) {
      std::vector<std::string> red;
      for (const auto& check : result.checks)
        if (!check.passed) red.push_back(written(check).value_or(check.id));
      return red;
    };
    const auto stops = [](const report::RunRecord& result) { return result.verdict == report::Verdict::CouldNotRun; };
    // The bug first: most candidates lose the red, and that one run tells.
    auto under_bug = run(true);
    ++trial.runs;
    if (!under_bug) {
      trial.seen = under_bug.error().message;
      return trial;
    }
    if (stops(*under_bug)) {
      trial.seen = "under the bug the run stops: " + under_bug->why;
      return trial;
    }
    trial.red = failed(*under_bug);
    if (std::none_of(under_bug->checks.begin(), under_bug->checks.end(),
                     [&](const auto& c) { return c.id == check->str() && !c.passed; })) {
      trial.seen = fmt::format("under the bug '{}' stays green", options_.check);
      return trial;
    }
    // Every red must be a check a control can name: not the runner's own (lane, validation).
    for (const auto& each : under_bug->checks)
      if (!each.passed && !written(each)) {
        trial.seen = fmt::format("under the bug the runner's own check {} fails", each.id);
        return trial;
      }
    auto fixed = run(false);
    ++trial.runs;
    if (!fixed) {
      trial.seen = fixed.error().message;
      return trial;
    }
    if (!report::passes(fixed->verdict)) {
      auto red = failed(*fixed);
      trial.seen = stops(*fixed) ? "without the bug the run stops: " + fixed->why
                                 : fmt::format("without the bug {} red", fmt::join(red, ", "));
      return trial;
    }
    trial.interesting = true;
    return trial;
  }

  ScenarioText text_;
  fs::path file_;
  const ReduceOptions& options_;
  unsigned jobs_ = 1;
  std::chrono::steady_clock::time_point started_;
  std::unordered_map<std::string, CandidateTrial> cache_;
  // A forked copy of the reducer judging candidates one at a time for as long as the reducer runs:
  // a candidate that crashes the code under test takes only its copy, one that hangs is killed at
  // its deadline; the reducer starts another copy and goes on. None: judged in this process.
  std::optional<Worker> start_judge() {
    auto worker = Worker::fork([this](std::string text) { return encode_trial(judge_text(text)); });
    return worker ? std::optional<Worker>(std::move(*worker)) : std::nullopt;
  }
  std::chrono::milliseconds deadline_{0};  // for a copy's trial: set when the first candidate is judged
  std::vector<std::optional<Worker>> workers_;
  Progress progress_;
};

// The steps of one depth, alive and cuttable, in file order.
std::vector<size_t> steps_at_depth(const Reducer& reducer, const Edits& edits, size_t depth) {
  std::vector<size_t> steps;
  for (size_t k = 0; k < reducer.text().steps().size(); ++k) {
    size_t d = 0;
    for (auto at = reducer.text().steps()[k].parent; at; at = reducer.text().steps()[*at].parent) ++d;
    if (d == depth && reducer.text().steps()[k].block && reducer.alive(edits, k)) steps.push_back(k);
  }
  return steps;
}

// One pass of hierarchical delta debugging: each depth's steps minimized in turn, the
// shallower first (a cut repeat takes its steps with it). True when anything was cut.
bool cut_steps(Reducer& reducer, Edits& best) {
  bool cut = false;
  size_t depth_limit = 0;
  for (const auto& step : reducer.text().steps()) {
    size_t d = 0;
    for (auto at = step.parent; at; at = reducer.text().steps()[*at].parent) ++d;
    depth_limit = std::max(depth_limit, d);
  }
  for (size_t depth = 0; depth <= depth_limit; ++depth) {
    auto items = steps_at_depth(reducer, best, depth);
    if (items.empty()) continue;
    auto with_only = [&](const std::vector<size_t>& kept) {
      Edits candidate = best;
      for (size_t step : items)
        if (!std::binary_search(kept.begin(), kept.end(), step)) candidate.cut_steps.insert(step);
      return candidate;
    };
    Judge judge = [&](const std::vector<std::vector<size_t>>& subsets) {
      std::vector<Edits> candidates;
      for (const auto& subset : subsets) candidates.push_back(with_only(subset));
      auto interesting = reducer.judge(candidates);
      reducer.report(depth == 0 ? "top-level steps" : "steps in repeats", best);
      return interesting;
    };
    auto kept = minimize(items, judge, reducer.jobs());
    if (kept.size() < items.size()) {
      best = with_only(kept);
      cut = true;
    }
  }
  return cut;
}

// Each repeat count and literal size that is left, at the least value that stays interesting.
bool shrink_numbers(Reducer& reducer, Edits& best) {
  bool shrunk = false;
  const auto& numbers = reducer.text().numbers();
  for (size_t site = 0; site < numbers.size(); ++site) {
    const NumberSite& number = numbers[site];
    if (!reducer.alive(best, number.step)) continue;
    int64_t current = best.numbers.contains(site) ? best.numbers.at(site) : number.value;
    if (current <= 1) continue;
    auto with = [&](int64_t value) {
      Edits candidate = best;
      candidate.numbers[site] = value;
      return candidate;
    };
    const char* phase = number.kind == NumberSite::Kind::RepeatCount ? "repeat counts" : "sizes";
    ValueJudge holds = [&](const std::vector<int64_t>& values) {
      std::vector<Edits> candidates;
      for (int64_t value : values) candidates.push_back(with(value));
      auto interesting = reducer.judge(candidates);
      reducer.report(phase, best);
      return interesting;
    };
    int64_t least = least_value(1, current, holds);
    // A size at the very threshold is brittle (a few bytes more accounting anywhere flips it):
    // the next power of two up is taken when it still holds, what was written when that is not below it.
    if (number.kind == NumberSite::Kind::Size && least < current) {
      int64_t round = 1;
      while (round < least) round *= 2;
      if (round >= current)
        least = current;
      else if (round != least && reducer.judge(with(round)))
        least = round;
    }
    if (least < current) {
      best.numbers[site] = least;
      shrunk = true;
    }
  }
  return shrunk;
}

}  // namespace

std::pair<size_t, size_t> count_steps(const Scenario& scenario) {
  size_t written = 0;
  auto calls = [&](auto& self, const std::vector<Step>& steps) -> size_t {
    size_t total = 0;
    for (const auto& step : steps) {
      ++written;
      if (const auto* loop = std::get_if<scenario::Repeat>(step.kind.get())) {
        size_t body = self(self, loop->steps);
        total += body * static_cast<size_t>(std::max<int64_t>(0, literal(loop->count).value_or(1)));
      } else {
        ++total;
      }
    }
    return total;
  };
  size_t executed = calls(calls, scenario.workload);
  return {written, executed};
}

namespace {

// Words of [a-z0-9] joined by single '-'.
bool is_kebab_name(std::string_view name) {
  auto word = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (size_t k = 0; k < name.size(); ++k)
    if (!word(name[k]) && (name[k] != '-' || k == 0 || k + 1 == name.size() || name[k - 1] == '-')) return false;
  return !name.empty();
}

}  // namespace

Result<Reduction> reduce(std::string bytes, const fs::path& input, const ReduceOptions& options) {
  TIDEMARK_TRY(original, scenario::load_text(bytes, input));
  if (!original.find_check(options.check)) {
    std::vector<std::string> names;
    for (const auto& id : original.checks()) names.push_back(original.check_text(id));
    return fail(ErrorKind::BadInput, fmt::format("{}: --check: expected a check of this scenario ({}), found '{}'",
                                                 input.string(), fmt::join(names, ", "), options.check));
  }
  if (options.mutant.empty() && options.knobs.empty())
    return fail(ErrorKind::BadInput, "reduce: expected the bug as --mutant or --knob, found neither");
  // The name is written into the fixture's YAML and its file name: a newline would add a key.
  if (!options.name.empty() && (options.name.size() > kMaxNameLength || !is_kebab_name(options.name)))
    return fail(ErrorKind::BadInput,
                fmt::format("reduce: --name: expected a kebab-case name ([a-z0-9-]+) of at most {} "
                            "characters, found {:?}",
                            kMaxNameLength, options.name));
  TIDEMARK_TRY(text, ScenarioText::parse(std::move(bytes)));
  Reduction reduction;
  std::tie(reduction.steps_before, reduction.calls_before) = count_steps(original);
  Reducer reducer(std::move(text), input, options);

  // The start: only the named check, no controls (the result's own is written at the end),
  // no expected wait statuses unless they are the check.
  Edits best;
  std::string kind, name;
  size_t index = 0;
  if (auto id = original.find_check(options.check)) {
    kind = std::string(scenario::to_string(id->kind));
    index = id->index;
    if (id->kind == scenario::CheckKind::Diagnosis) kind = "kmd", name = original.expect.kmd[id->index].name;
    if (id->kind == scenario::CheckKind::KgslRead) kind = "kgsl", name = original.expect.kgsl[id->index].name;
  }
  best = reducer.text().checks_except(kind, index, name);
  if (auto controls = reducer.text().top_level("controls")) best.cut.push_back(*controls);
  if (options.check != "waits")
    for (const auto& span : reducer.text().wait_expectations()) best.cut.push_back(span);
  if (!reducer.judge(best)) {
    const CandidateTrial& seen = reducer.trial(best);
    return fail(ErrorKind::BadInput, fmt::format("{}: not a red to reduce: {}", input.string(), seen.seen));
  }
  reducer.report("start", best);

  // Steps and numbers until neither moves: a smaller count can free a step, and back.
  for (int round = 0; round < 4; ++round) {
    bool cut = cut_steps(reducer, best);
    bool shrunk = shrink_numbers(reducer, best);
    if (!cut && !shrunk) break;
  }

  // The loop variables nothing reads any more.
  for (size_t step = 0; step < reducer.text().steps().size(); ++step) {
    const auto& variable = reducer.text().steps()[step].loop_variable;
    if (!variable || !reducer.alive(best, step)) continue;
    Edits candidate = best;
    candidate.cut.push_back(*variable);
    if (reducer.judge(candidate)) best = candidate;
    reducer.report("loop variables", best);
  }

  // The buffers nothing uses any more, when the file lists them in one flow list.
  if (auto loaded = scenario::load_text(reducer.text().render(best), input)) {
    auto used = used_buffers(*loaded);
    auto list = reducer.text().top_level_value("buffers");
    if (list && used.size() < loaded->buffers.size() && reducer.text().text()[list->begin] == '[') {
      Edits candidate = best;
      candidate.replaced.push_back({*list, fmt::format("[{}]", fmt::join(used, ", "))});
      if (reducer.judge(candidate)) best = candidate;
      reducer.report("buffers", best);
    }
  }
  reduction.red_checks = reducer.trial(best).red;
  reducer.report("done", best);
  if (!options.name.empty())
    if (auto name_value = reducer.text().top_level_value("name")) best.replaced.push_back({*name_value, options.name});
  reduction.text = reducer.text().render(best);
  TIDEMARK_TRY(result, scenario::load_text(reduction.text, input));
  reduction.scenario = std::move(result);
  reduction.done = reducer.progress();
  return reduction;
}

}  // namespace tidemark::reduce
