#include "runner/pipeline/subject.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <set>

#include "observe/crash_notes.h"
#include "core/files.h"
#include "drivers/driver_builds.h"
#include "runner/pipeline/isolation.h"
#include "runner/pipeline/pipeline.h"

namespace tidemark::runner {

std::string camel_case(std::string_view kebab) {
  std::string out;
  bool upper = true;
  for (char c : kebab) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

namespace fs = std::filesystem;

std::vector<std::string> failed_checks(const report::RunRecord& record) {
  std::vector<std::string> failed;
  for (const auto& check : record.checks)
    if (!check.passed && std::find(failed.begin(), failed.end(), check.id) == failed.end()) failed.push_back(check.id);
  return failed;
}

std::string column_suffix(const std::string& own, const std::string& backend, const std::string& build) {
  const report::Column chosen{backend.empty() ? own : backend, build};
  return chosen == report::Column{own, {}} ? "" : "@" + chosen.text();
}

bool control_applies(const SubjectControl& control, const std::string& backend, const std::string& stands_for) {
  auto lists = [&](const std::string& name) {
    return !name.empty() && std::find(control.backends.begin(), control.backends.end(), name) != control.backends.end();
  };
  return control.backends.empty() || lists(backend) || lists(stands_for);
}

std::string stands_for_among(const std::vector<std::string>& listed, const std::string& backend,
                             const std::string& stands_for) {
  return std::find(listed.begin(), listed.end(), backend) != listed.end() ? std::string() : stands_for;
}

Result<std::string> build_of(const RunOptions& options) {
  if (!options.column.build.empty()) return options.column.build;
  TIDEMARK_TRY(active, drivers::active_build());
  return active ? active->name : "";
}

namespace {

// A known failure holds when the run is red on exactly the checks the line names (runner/pipeline/expectations.h).
Status judge_expected(const Subject& subject, const RunOptions& options, report::RunRecord& record) {
  if (!options.expectations) return {};
  TIDEMARK_TRY(build, build_of(options));
  const Expectation* expected =
      find_expectation(*options.expectations, record.column.backend, subject.info().id, build);
  if (!expected) return {};
  judge_against(*expected, {.verdict = record.verdict,
                            .why = record.why,
                            .failed = failed_checks(record),
                            .gauge = [&](std::string_view name) { return report::gauge_value(record, name); }});
  return {};
}

// A run whose layer saw its device lost is a device-lost run, whatever the subject did next
// (`then`: that, in words): a lost device is the driver's failure, not the checks'.
void judge_device_lost(report::RunRecord& record, report::DeviceLostRecord lost, const std::string& then) {
  record.verdict = report::Verdict::DeviceLost;
  record.why = fmt::format("{}; then {}", report::describe(lost), then);
  record.device_lost = std::move(lost);
}

// A prepared run begun: its record (the identity, the content's hash) and its folder made.
struct Begun {
  report::RunRecord record;
  fs::path dir;
};

Result<Begun> begin(const PreparedRun& prepared) {
  Begun out{prepared.identity, {}};
  TIDEMARK_TRY(hash, content_hash(prepared.subject->info()));
  out.record.scenario_hash = std::move(hash);
  if (!prepared.options->report_dir.empty()) {
    out.dir = prepared.options->report_dir / prepared.run->folder();
    TIDEMARK_CHECK(make_directories(out.dir));
    out.record.dir = fs::absolute(out.dir).lexically_normal().string();
  }
  return out;
}

}  // namespace

Result<report::RunRecord> run_here(PreparedRun& run) {
  const Subject& subject = *run.subject;
  const RunOptions& options = *run.options;
  TIDEMARK_TRY(begun, begin(run));
  report::RunRecord& record = begun.record;
  SubjectRun& prepared = *run.run;
  const fs::path& dir = begun.dir;
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> digests;
  for (int attempt = 0; attempt < std::max(1, options.repeat); ++attempt) {
    crash_notes::note_repeat(static_cast<uint32_t>(attempt));
    TIDEMARK_TRY(digest, prepared.once(dir));
    digests.push_back(std::move(digest));
  }
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  record.digest = digests.back();
  if (digests.size() > 1) record.repeat_digests = digests;
  TIDEMARK_TRY(reading, prepared.read(digests, record));
  if (reading.stopped) {
    record.verdict = *reading.stopped;
    record.why = reading.why;
  } else {
    const bool held = std::all_of(record.checks.begin(), record.checks.end(), [](const auto& c) { return c.passed; });
    record.verdict = held ? report::Verdict::Green : report::Verdict::Red;
    const std::set<std::string> distinct(digests.begin(), digests.end());
    if (distinct.size() > 1) {
      record.verdict = report::Verdict::Nondeterministic;
      record.why =
          fmt::format("{} runs gave {} digests: {}", digests.size(), distinct.size(), fmt::join(digests, ", "));
    }
  }
  if (auto lost = record.observed_gauges ? report::device_lost_in(*record.observed_gauges) : std::nullopt) {
    lost->last_step = reading.stopped ? reading.why : "after its last step: it went on to its end";
    judge_device_lost(record, std::move(*lost),
                      reading.stopped
                          ? fmt::format("it stopped ({}): {}", report::verdict_name(record.verdict), reading.why)
                          : fmt::format("it went on to its end, {}", report::verdict_name(record.verdict)));
  } else if (const crash_notes::Notes* notes = crash_notes::armed();
             notes && record.verdict == report::Verdict::CouldNotRun) {
    // No session to read gauges from (its device was lost while it opened): the layer's note, in
    // an isolated subject's child, where its device is this process's (monolith, split) or in the
    // status file of the lane's server the child started, where the device is (spawn, tcp).
    auto noted = noted_device_lost(*notes, subject.info().file.string());
    if (!noted) noted = servers_lost_device(*notes, subject.info().file.string());
    if (noted) judge_device_lost(record, std::move(*noted), fmt::format("it could not run: {}", record.why));
  }
  TIDEMARK_CHECK(judge_expected(subject, options, record));
  if (dir.empty()) return record;
  TIDEMARK_CHECK(prepared.keep(dir, record));
  TIDEMARK_CHECK(report::write_run_record(dir / "result.json", record));  // last: its presence means complete
  return record;
}

namespace {

// The record of a run its child did not finish (it died, or passed a time limit): its identity as
// a run's, the verdict and its words, `fill`'s field, judged against its expectations line, and its
// result.json (the child wrote none).
template <class Fill>
Result<report::RunRecord> stopped_record(const PreparedRun& run, report::Verdict verdict, std::string why,
                                         double seconds, Fill fill) {
  TIDEMARK_TRY(started_run, begin(run));
  report::RunRecord& record = started_run.record;
  record.seconds = seconds;
  record.verdict = verdict;
  record.why = std::move(why);
  fill(record);
  TIDEMARK_CHECK(judge_expected(*run.subject, *run.options, record));
  if (started_run.dir.empty()) return record;
  TIDEMARK_CHECK(report::write_run_record(started_run.dir / "result.json", record));
  return record;
}

}  // namespace

Result<report::RunRecord> record_of(const PreparedRun& run, IsolatedRuns::Answer answer) {
  if (auto* record = std::get_if<report::RunRecord>(&answer)) return std::move(*record);
  if (auto* hung = std::get_if<TimedOut>(&answer))
    return stopped_record(run, report::Verdict::Timeout, std::move(hung->why), hung->seconds,
                          [&](report::RunRecord& record) { record.timeout = std::move(hung->timeout); });
  auto& died = std::get<ChildDied>(answer);
  return stopped_record(run, report::Verdict::Crash, std::move(died.why), died.seconds, [&](report::RunRecord& record) {
    record.crash = std::move(died.crash);
    if (died.device_lost) judge_device_lost(record, std::move(*died.device_lost), "it crashed: " + record.why);
  });
}

namespace {

// "try 1 red (digest D1), try 2 green (digest D2)"
std::string attempts_text(const std::vector<report::Attempt>& attempts) {
  std::vector<std::string> tries;
  for (size_t k = 0; k < attempts.size(); ++k)
    tries.push_back(fmt::format("try {} {} (digest {})", k + 1, report::verdict_name(attempts[k].verdict),
                                attempts[k].digest.empty() ? "none" : attempts[k].digest));
  return fmt::format("{}", fmt::join(tries, ", "));
}

// A run tried by `once` for as long as `tries_again` says, its record `record_of_tries`.
Result<report::RunRecord> run_tries(const PreparedRun& run, const std::function<Result<report::RunRecord>()>& once) {
  std::vector<report::RunRecord> tries;
  do {
    TIDEMARK_TRY(record, once());
    tries.push_back(std::move(record));
  } while (tries_again(*run.options, tries));
  return record_of_tries(run, std::move(tries));
}

}  // namespace

TimeBounds time_bounds(const PreparedRun& run) {
  return apply(apply(TimeBounds{}, run.subject->info().time_bounds), run.options->time_bounds);
}

Result<std::optional<std::string>> expected_skip(const PreparedRun& run) {
  if (!run.options->expectations) return std::nullopt;
  TIDEMARK_TRY(build, build_of(*run.options));
  const Expectation* expected =
      find_expectation(*run.options->expectations, run.identity.column.backend, run.subject->info().id, build);
  if (!expected || !says(*expected, kSkip)) return std::nullopt;
  return fmt::format("skipped, as {} says: {}", format_location(expected->where), expected->reason);
}

bool tries_again(const RunOptions& options, const std::vector<report::RunRecord>& tries) {
  return !tries.empty() && static_cast<int>(tries.size()) <= options.retry && report::retries(tries.back().verdict);
}

Result<report::RunRecord> record_of_tries(const PreparedRun& run, std::vector<report::RunRecord> tries) {
  if (tries.size() == 1) return std::move(tries.back());
  std::vector<report::Attempt> attempts;
  double seconds = 0;  // the run took all its tries
  for (const auto& each : tries) {
    attempts.push_back({each.verdict, each.digest});
    seconds += each.seconds;
  }
  report::RunRecord record = std::move(tries.back());
  record.attempts = std::move(attempts);
  record.seconds = seconds;
  if (record.verdict == report::Verdict::Green) {
    record.verdict = report::Verdict::Flaky;
    record.why = "failed, then green: " + attempts_text(record.attempts);
    TIDEMARK_CHECK(judge_expected(*run.subject, *run.options, record));
  } else if (record.why.empty()) {
    record.why = "failed on every try: " + attempts_text(record.attempts);
  } else {
    record.why += " [failed on every try: " + attempts_text(record.attempts) + "]";
  }
  if (record.dir.empty()) return record;
  TIDEMARK_CHECK(report::write_run_record(fs::path(record.dir) / "result.json", record));
  return record;
}

Result<PreparedRun> prepare_run(const Subject& subject, const RunOptions& options) {
  PreparedRun prepared{
      .subject = &subject, .options = std::make_unique<const RunOptions>(options), .identity = {}, .run = {}};
  TIDEMARK_TRY(run, subject.prepare(*prepared.options, prepared.identity));
  prepared.run = std::move(run);
  return prepared;
}

Status check_options(const Subject& subject, const RunOptions& options) {
  auto prepared = prepare_run(subject, options);
  if (!prepared) return std::unexpected(prepared.error());
  return {};
}

bool runs_in_child(const RunOptions& options) { return options.isolation; }

Result<report::RunRecord> run(PreparedRun& prepared) {
  TIDEMARK_TRY(skip, expected_skip(prepared));
  if (skip) return did_not_run(prepared, report::Verdict::Skipped, std::move(*skip));
  if (!runs_in_child(*prepared.options)) return run_tries(prepared, [&] { return run_here(prepared); });
  IsolatedRuns isolated([&](size_t) { return run_here(prepared); });
  return run_tries(prepared, [&]() -> Result<report::RunRecord> {
    TIDEMARK_TRY(answer, isolated.run(0, prepared.subject->info().file.string(), child_bounds(prepared)));
    return record_of(prepared, std::move(answer));
  });
}

Result<report::RunRecord> run(const Subject& subject, const RunOptions& options) {
  TIDEMARK_TRY(prepared, prepare_run(subject, options));
  return run(prepared);
}

Result<Subjects> distinct_subjects(Subjects subjects) {
  Subjects kept;
  std::set<std::pair<dev_t, ino_t>> files;
  std::map<std::string, fs::path> named;  // test name -> the file that has it
  std::vector<std::string> clashes;
  for (auto& subject : subjects) {
    // A file is one file however it is reached: by its device and inode, not its spelling.
    struct stat status {};
    if (::stat(subject->info().file.c_str(), &status) == 0 && !files.emplace(status.st_dev, status.st_ino).second)
      continue;
    const std::string name = test_name(subject->info(), Lane::Monolith, {});
    if (auto [first, fresh] = named.emplace(name, subject->info().file); !fresh) {
      clashes.push_back(
          fmt::format("{}:1:1: expected a test name no other subject has, found {} again (first in {}): "
                      "the two would run into one report folder",
                      subject->info().file.string(), name, first->second.string()));
      continue;
    }
    kept.push_back(std::move(subject));
  }
  if (!clashes.empty()) return fail(ErrorKind::BadInput, fmt::format("{}", fmt::join(clashes, "\ntidemark: ")));
  return kept;
}

std::string test_name(const SubjectInfo& subject, Lane lane, const std::string& backend) {
  const std::string lane_part = subject.in_lanes ? fmt::format(".{}", lane_title(lane)) : "";
  return fmt::format("{}{}.{}{}", subject.test_family, lane_part, subject.test_stem,
                     column_suffix(subject.backends.front(), backend, ""));
}

std::vector<std::string> test_labels(const SubjectInfo& subject, Lane lane) {
  std::vector<std::string> labels;
  if (subject.in_lanes) labels.push_back(fmt::format("integration-magma-{}", lane_name(lane)));
  labels.insert(labels.end(), subject.labels.begin(), subject.labels.end());
  return labels;
}

std::vector<std::string> check_ids(const SubjectInfo& subject) {
  std::vector<std::string> ids;
  for (const auto& check : subject.checks) ids.push_back(check.id);
  return ids;
}

std::string check_text(const SubjectInfo& subject, const std::string& id) {
  for (const auto& check : subject.checks)
    if (check.id == id && !check.text.empty()) return check.text;
  return id;
}

Status takes_backend(const SubjectInfo& subject, const std::string& backend, const api::BackendRegistry& backends) {
  const auto& listed = subject.backends;
  auto lists = [&](const std::string& name) { return std::find(listed.begin(), listed.end(), name) != listed.end(); };
  if (subject.other_backends == OtherBackends::Listed) {
    if (lists(backend)) return {};
    return fail(ErrorKind::BadInput, fmt::format("expected the backend {} runs on ({}), found {}", subject.id,
                                                 fmt::join(listed, ", "), backend));
  }
  const api::BackendEntry* entry = backends.find(backend);
  if (!entry) return fail(ErrorKind::BadInput, fmt::format("expected a backend Tidemark has, found '{}'", backend));
  if (subject.other_backends == OtherBackends::Any || lists(backend) ||
      (!entry->stands_for.empty() && lists(entry->stands_for)))
    return {};
  return fail(ErrorKind::BadInput,
              fmt::format("expected a backend {} lists ({}), found {}", subject.id, fmt::join(listed, ", "), backend));
}

Result<std::string> content_hash(const SubjectInfo& subject) {
  if (subject.content.empty()) return std::string();
  // A long run's recording is hundreds of MiB: hashed a piece at a time, never held whole.
  StreamHash hash;
  for (const auto& path : subject.content) {
    TIDEMARK_TRY(file, SequentialFile::open(path, subject.kind));
    for (uint64_t at = 0; at < file.size(); at += SequentialFile::kPiece) {
      TIDEMARK_TRY(piece, file.read(at, SequentialFile::kPiece));
      hash.add(piece);
    }
  }
  return hash.hex();
}

Status check_build_is_this_process(const Subject& subject, const std::string& build) {
  if (build.empty()) return {};
  TIDEMARK_TRY(active, drivers::active_build());
  if (active && active->name == build) return {};
  return fail(ErrorKind::BadInput, fmt::format("{}: expected a run on this process's driver build ({}), found "
                                               "build {} (reached by a process of its own)",
                                               subject.info().id, active ? active->name : "none", build));
}

report::RunRecord did_not_run(const PreparedRun& run, report::Verdict verdict, std::string why) {
  report::RunRecord record = run.identity;
  record.verdict = verdict;
  record.why = std::move(why);
  return record;
}

Result<report::RunRecord> not_judged(const Subject& subject, const RunOptions& options, const std::string& backend,
                                     const Error& why) {
  const SubjectInfo& info = subject.info();
  report::RunRecord record{.test = test_name(info, options.column.lane.lane, backend),
                           .subject = info.id + column_suffix(info.backends.front(), backend, ""),
                           .file = info.file.string()};
  record.column = report::Column::parse(backend);
  if (!options.variant.mutant.empty()) record.mutant = options.variant.mutant.name;
  record.verdict = report::Verdict::NotJudged;
  record.why = why.message;
  TIDEMARK_CHECK(judge_expected(subject, options, record));
  return record;
}

}  // namespace tidemark::runner
