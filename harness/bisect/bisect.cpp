#include "bisect/bisect.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdlib>
#include <set>

#include "bisect/search.h"
#include "capture/capture_reduce.h"
#include "core/gauges.h"
#include "core/option_values.h"
#include "runner/pipeline/build_runs.h"
#include "runner/verbs/compare.h"
#include "session/builtin_backends.h"
#include "subjects/subjects.h"

namespace tidemark::bisect {

namespace fs = std::filesystem;

namespace {

// The gauges a person reads first beside a candidate (compare's), and the predicate's own.
constexpr std::string_view kKeyGauges[] = {"vkbufspk", "vkbytespk", "vkallocspk", "wlivepk", "devbytespk", "submits"};

std::map<std::string, int64_t> key_gauges(const report::RunRecord& record, const Predicate& predicate) {
  std::map<std::string, int64_t> gauges;
  for (std::string_view name : kKeyGauges)
    if (auto value = report::gauge_value(record, name)) gauges.emplace(name, *value);
  if (!predicate.gauge.empty())
    if (auto value = report::gauge_value(record, predicate.gauge)) gauges.emplace(predicate.gauge, *value);
  return gauges;
}

std::string first_red(const report::RunRecord& record) {
  for (const auto& check : record.checks)
    if (!check.passed) return check.id + ": " + check.detail;
  return fmt::format("{}{}{}", report::verdict_name(record.verdict), record.why.empty() ? "" : ": ", record.why);
}

// A candidate's runs, or why none could start (its build's identity, a library that does not load).
struct Runs {
  std::vector<report::RunRecord> records;
  std::string skipped;
};

Result<Runs> runs_on(const runner::Subjects& subjects, const Candidate& candidate, const BisectOptions& options,
                     const fs::path& dir) {
  Runs runs;
  std::vector<fs::path> drivers_files{candidate.drivers_file};
  drivers_files.insert(drivers_files.end(), options.drivers_files.begin(), options.drivers_files.end());
  for (int repeat = 1; repeat <= options.repeat; ++repeat) {
    runner::RunOptions run;
    run.column.lane.backends = &session::builtin_backends();
    run.column.lane.lane = options.lane;
    run.layer_dir = options.layer_dir;
    run.drivers_files = drivers_files;
    run.report_dir = dir / fmt::format("run-{}", repeat);
    auto compared = runner::compare(subjects, {report::Column{options.backend, candidate.build}.text()}, run,
                                    {.drivers_files = drivers_files, .expectations = {}});
    // A build that is not the driver it names, or cannot start a run, is skipped (git bisect skip).
    if (!compared && compared.error().kind == ErrorKind::Environment) {
      runs.skipped = compared.error().message;
      return runs;
    }
    if (!compared) return std::unexpected(compared.error());
    for (auto& record : compared->records) runs.records.push_back(std::move(record));
  }
  return runs;
}

// The first check red in a candidate's first run: what a reduce of its capture must keep red.
std::string first_red_check(const report::RunRecord& record) {
  for (const auto& check : record.checks)
    if (!check.passed) return check.id;
  return {};
}

// A capture fixture's subject, bisected to two builds: the reduce that tells them apart, offered
// as a command line, and run when asked (its fixture written under <report_dir>/reduced/).
Status offer_reduce(const runner::Subject& subject, const std::string& red_check, const BisectOptions& options,
                    BisectDocument& document) {
  const Candidate& bad = document.candidates[document.first_bad];
  const Candidate& good = document.candidates[document.last_good];
  if (subject.info().kind != "capture fixture" || !document.undecided.empty() || red_check.empty()) return {};
  document.reduce_offer =
      fmt::format("tidemark --drivers {} --drivers {} reduce {} --check '{}' --bug-build {} --fix-build {}",
                  bad.drivers_file.string(), good.drivers_file.string(), subject.info().file.string(), red_check,
                  bad.build, good.build);
  if (!options.reduce) return {};
  TIDEMARK_TRY(fixture, capture::load_capture_fixture(subject.info().file));
  std::vector<fs::path> drivers_files{bad.drivers_file, good.drivers_file};
  drivers_files.insert(drivers_files.end(), options.drivers_files.begin(), options.drivers_files.end());
  const capture::CaptureReduceOptions reduce{.check = red_check,
                                             .bug = {.fault = {}, .build = bad.build},
                                             .fix = {.fault = {}, .build = good.build},
                                             .drivers_files = drivers_files,
                                             .layer_dir = options.layer_dir,
                                             .work_dir = options.report_dir / "reduce"};
  TIDEMARK_TRY(reduced, capture::reduce_capture(fixture, reduce));
  const std::string name = fixture.name + "-reduced";
  TIDEMARK_TRY(written,
               capture::write_reduction(fixture, reduced, reduce, name, options.report_dir / "reduced" / name));
  document.reduced_fixture = written.fixture.string();
  return {};
}

}  // namespace

std::string Predicate::text() const {
  switch (kind) {
    case Kind::Red:
      return check.empty() ? "any check red or a verdict not green" : "check " + check + " red";
    case Kind::Gauge: {
      std::string tolerance;
      if (tolerance_given.percent > 0) tolerance = fmt::format("+{}%", tolerance_given.percent);
      if (tolerance_given.absolute > 0) tolerance = fmt::format("+{}", tolerance_given.absolute);
      return value ? fmt::format("{} worse than {}{}", gauge, *value, tolerance)
                   : fmt::format("{} worse than the good end's{}", gauge,
                                 tolerance.empty() ? "" : " (" + tolerance + ")");
    }
    case Kind::Verdict:
      return fmt::format("the verdict {}", report::verdict_name(verdict));
    case Kind::Digest:
      return "the digest differs from the good end's";
  }
  return {};
}

Result<Predicate> parse_predicate(const std::string& check, const std::string& gauge, const std::string& worse_than,
                                  const std::string& verdict, bool digest) {
  Predicate predicate;
  const int given = !check.empty() + !gauge.empty() + !verdict.empty() + digest;
  if (given > 1)
    return fail(ErrorKind::BadInput, "expected one of --check, --gauge, --verdict and --digest, found several");
  if (gauge.empty() != worse_than.empty())
    return fail(ErrorKind::BadInput, "--gauge and --worse-than: expected both or neither");
  if (!check.empty()) {
    predicate.check = check;
  } else if (!gauge.empty()) {
    predicate.kind = Predicate::Kind::Gauge;
    predicate.gauge = gauge;
    const size_t plus = worse_than.find('+');
    const std::string value = worse_than.substr(0, plus);
    if (value != "good") {
      auto number = parse_whole_number(value);
      if (!number)
        return fail(ErrorKind::BadInput,
                    fmt::format("--worse-than: expected VALUE[+N|+N%] (4107+5%, good+2) with VALUE an integer "
                                "from {} to {}, found '{}'",
                                INT64_MIN, INT64_MAX, value));
      predicate.value = *number;
    }
    report::Tolerances tolerances;
    const std::string tolerance = plus == std::string::npos ? "0" : worse_than.substr(plus + 1);
    if (auto added = report::add_tolerance(tolerances, gauge + "=" + tolerance); !added)
      return fail(ErrorKind::BadInput,
                  "--gauge/--worse-than: " + added.error().message.substr(added.error().message.find(": ") + 2));
    predicate.tolerance_given = tolerances.at(gauge);
  } else if (!verdict.empty()) {
    predicate.kind = Predicate::Kind::Verdict;
    auto named = report::verdict_named(verdict);
    if (!named || report::passes(*named))
      return fail(ErrorKind::BadInput,
                  fmt::format("--verdict: expected red, crash, timeout or device-lost, found '{}'", verdict));
    predicate.verdict = *named;
  } else if (digest) {
    predicate.kind = Predicate::Kind::Digest;
  }
  return predicate;
}

JudgedRuns judge_records(const std::vector<report::RunRecord>& records, const Predicate& predicate,
                         const report::RunRecord* good_end) {
  JudgedRuns runs;
  for (const auto& record : records) runs.digests.push_back(record.digest);
  if (records.empty()) return {{Judgement::Skip, "nothing ran"}, {}};
  for (const auto& record : records)
    if (record.verdict == report::Verdict::CouldNotRun || record.verdict == report::Verdict::NotJudged ||
        report::not_ran(record.verdict))
      return {{Judgement::Skip, fmt::format("{}: {}", report::verdict_name(record.verdict), record.why)}, runs.digests};
  const std::set<std::string> distinct(runs.digests.begin(), runs.digests.end());
  if (distinct.size() > 1)
    return {{Judgement::Nondeterministic,
             fmt::format("{} digests over {} runs: {}", distinct.size(), records.size(), fmt::join(distinct, ", "))},
            runs.digests};
  const report::RunRecord& record = records.front();
  auto judge_as = [&](bool bad, std::string why) {
    runs.judged = {bad ? Judgement::Bad : Judgement::Good, std::move(why)};
    return runs;
  };
  switch (predicate.kind) {
    case Predicate::Kind::Red: {
      if (predicate.check.empty()) return judge_as(!report::passes(record.verdict), first_red(record));
      for (const auto& check : record.checks)
        if (check.id == predicate.check) return judge_as(!check.passed, check.id + ": " + check.detail);
      runs.judged = {Judgement::Skip, fmt::format("its run has no check {} ({})", predicate.check, first_red(record))};
      return runs;
    }
    case Predicate::Kind::Gauge: {
      const auto now = report::gauge_value(record, predicate.gauge);
      if (!now) {
        runs.judged = {Judgement::Skip, fmt::format("its run gave no {} ({})", predicate.gauge, first_red(record))};
        return runs;
      }
      if (!predicate.value && !good_end)
        return judge_as(false, fmt::format("{} {} (the reference)", predicate.gauge, *now));
      const int64_t reference =
          predicate.value ? *predicate.value : report::gauge_value(*good_end, predicate.gauge).value_or(0);
      const auto movement =
          report::judge_gauge(predicate.gauge, reference, *now, {{predicate.gauge, predicate.tolerance_given}});
      return judge_as(
          movement == report::Movement::Worse,
          fmt::format("{} {} against {} ({})", predicate.gauge, *now, reference, report::change_text(reference, *now)));
    }
    case Predicate::Kind::Verdict:
      return judge_as(record.verdict == predicate.verdict, first_red(record));
    case Predicate::Kind::Digest:
      if (!good_end) return judge_as(false, "digest " + record.digest + " (the reference)");
      return judge_as(record.digest != good_end->digest,
                      fmt::format("digest {}, the good end's {}", record.digest, good_end->digest));
  }
  return runs;
}

fs::path default_cache() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return fs::path(cache) / "tidemark" / "bisect";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "tidemark" / "bisect";
  return fs::temp_directory_path() / "tidemark-bisect-cache";
}

Result<BisectDocument> run_bisect(const BisectOptions& options,
                                  const std::function<void(const BisectDocument&, const TriedCandidate&)>& on_judged) {
  const auto started = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  if (options.repeat < 1)
    return fail(ErrorKind::BadInput, fmt::format("--repeat: expected 1 or more, found {}", options.repeat));
  TIDEMARK_TRY(loaded, subjects::load_subjects(options.subject));
  if (loaded.subjects.size() != 1)
    return fail(ErrorKind::BadInput,
                fmt::format("expected one scenario or capture fixture to judge, found {}", loaded.subjects.size()));
  const bool git = !options.repo.empty();
  if (git == !options.builds.empty())
    return fail(ErrorKind::BadInput,
                "expected --builds LIST or --repo DIR --good REV --bad REV --build CMD, one of the two");
  BisectDocument document;
  document.subject = loaded.subjects.front()->info().id;
  document.column = options.backend;
  document.predicate = options.predicate.text();
  document.repeat = options.repeat;
  document.source = git ? "git" : "builds";
  std::optional<GitRange> range;
  if (git) {
    if (options.good.empty() || options.bad.empty() || options.build_command.empty())
      return fail(ErrorKind::BadInput, "--repo: expected --good REV, --bad REV and --build CMD with it");
    const fs::path cache = options.cache.empty() ? default_cache() : options.cache;
    TIDEMARK_TRY(opened, GitRange::open(options.repo, options.good, options.bad, options.build_command, cache));
    range.emplace(std::move(opened));
    document.candidates = range->candidates();
    document.repository = fs::absolute(options.repo).lexically_normal().string();
    document.build_command = options.build_command;
    document.cache = range->cache().string();
  } else {
    TIDEMARK_TRY(listed, list_candidates(options.builds, options.only));
    document.candidates = std::move(listed);
  }
  std::optional<report::RunRecord> good_end;
  std::map<size_t, std::string> red_checks;  // each candidate's first red check
  const Judge judge = [&](size_t index) -> Result<Judged> {
    const auto begun = std::chrono::steady_clock::now();
    TriedCandidate tried{.position = index};
    JudgedRuns candidate_runs;
    bool built = true;
    if (range) {
      TIDEMARK_TRY(made, range->build(index));
      tried.built_now = !made.cached;
      document.candidates[index] = range->candidates()[index];
      if (!made.skipped.empty()) {
        candidate_runs.judged = {Judgement::Skip, "does not build: " + made.skipped + " (" + made.log.string() + ")"};
        built = false;
      }
    }
    if (built) {
      const Candidate& candidate = document.candidates[index];
      const fs::path dir = options.report_dir / "candidates" / fmt::format("{:03}-{}", index, candidate.label);
      tried.report_dir = dir.string();
      TIDEMARK_TRY(runs, runs_on(loaded.subjects, candidate, options, dir));
      if (!runs.skipped.empty()) {
        candidate_runs.judged = {Judgement::Skip, runs.skipped};
      } else {
        candidate_runs = judge_records(runs.records, options.predicate, good_end ? &*good_end : nullptr);
        tried.verdict = std::string(report::verdict_name(runs.records.front().verdict));
        tried.gauges = key_gauges(runs.records.front(), options.predicate);
        red_checks[index] = first_red_check(runs.records.front());
        if (index == 0 && candidate_runs.judged.judgement == Judgement::Good) good_end = runs.records.front();
      }
    }
    tried.judgement = std::string(judgement_name(candidate_runs.judged.judgement));
    tried.why = candidate_runs.judged.why;
    tried.digests = candidate_runs.digests;
    tried.seconds = since(begun);
    document.tried.push_back(tried);
    if (on_judged) on_judged(document, document.tried.back());
    return candidate_runs.judged;
  };
  // While one candidate is judged, the next ones the search may judge are built (--jobs).
  Status building_ahead;
  const Ahead ahead = [&](const std::vector<size_t>& next) {
    if (range && options.jobs > 1 && building_ahead) building_ahead = range->build_ahead(next, options.jobs - 1);
  };
  TIDEMARK_TRY(found, search(document.candidates.size(), judge, ahead));
  TIDEMARK_CHECK(building_ahead);
  document.last_good = found.last_good;
  document.first_bad = found.first_bad;
  document.undecided = found.undecided;
  document.bound = judgement_bound(document.candidates.size());
  for (const auto& tried : found.tried) {
    const bool unjudgeable =
        tried.judged.judgement == Judgement::Skip || tried.judged.judgement == Judgement::Nondeterministic;
    (unjudgeable ? document.skips : document.judgements) += 1;
  }
  TIDEMARK_CHECK(offer_reduce(*loaded.subjects.front(), red_checks[document.first_bad], options, document));
  document.seconds = since(started);
  TIDEMARK_CHECK(write_bisect(options.report_dir, document));
  return document;
}

}  // namespace tidemark::bisect
