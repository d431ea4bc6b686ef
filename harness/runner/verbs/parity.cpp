#include "runner/verbs/parity.h"

#include <fmt/format.h>

#include <span>
#include <sstream>

#include "core/files.h"
#include "session/builtin_backends.h"
#include "lanes/replay.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

// A run joins its subject under `lane`: its digest, or, when it did not finish, its verdict alone.
void add_run(ParitySubject& subject, const std::string& lane, const report::RunRecord& run, const std::string& digest) {
  if (!report::finished(run.verdict)) {
    subject.unfinished.push_back(fmt::format("{} ({})", lane, report::verdict_name(run.verdict)));
    subject.row += fmt::format(" {}=({})", lane, report::verdict_name(run.verdict));
    return;
  }
  subject.lanes_by_digest[digest].push_back(lane);
  subject.row += fmt::format(" {}={}{}", lane, digest, report::passes(run.verdict) ? "" : "(red)");
}

// The monolith session recorded, then replayed in every lane: each replay's digest joins the runs'.
Status record_and_replay(const Subject& scenario, const std::string& backend, const fs::path& report_dir,
                         ParitySubject& subject) {
  RunOptions options;
  options.report_dir = report_dir / "recorded";
  options.column.backend = backend;
  const std::string name = scenario.info().id.substr(scenario.info().group.size() + 1);  // id: group/name
  const std::string file =
      scenario.info().group + "." + name + column_suffix(scenario.info().backends.front(), backend, "") + ".tdrec";
  options.column.lane.record = (report_dir / "recordings" / file).string();
  options.column.lane.record_name = subject.name;
  TIDEMARK_CHECK(make_directories(report_dir / "recordings"));
  TIDEMARK_TRY(recorded, run(scenario, options));
  if (!report::finished(recorded.verdict)) {
    subject.unfinished.push_back(fmt::format("recorded ({})", report::verdict_name(recorded.verdict)));
    return {};  // nothing whole was recorded to replay
  }
  subject.lanes_by_digest[recorded.digest].push_back("recorded");
  for (Lane lane : kAllLanes) {
    lanes::LaneOptions lane_options;
    lane_options.lane = lane;
    lane_options.backends = &session::builtin_backends();
    // The replaying server's log beside the recording, as a run's goes to its server.log.
    lane_options.server_log =
        (report_dir / "recordings" / fmt::format("{}.replay-{}.log", file, lane_name(lane))).string();
    TIDEMARK_TRY(replayed, lanes::replay(options.column.lane.record, lane_options));
    std::string key = replayed.divergence ? "diverged: " + *replayed.divergence : replayed.digest;
    subject.lanes_by_digest[key].push_back(fmt::format("replay-{}", lane_name(lane)));
    subject.row += fmt::format(" replay-{}={}", lane_name(lane), replayed.divergence ? "DIVERGED" : replayed.digest);
  }
  return {};
}

}  // namespace

Result<ParityRun> parity(const Subjects& subjects, const RunOptions& base, bool with_replay,
                         const std::function<void(std::string_view)>& on_start,
                         const std::function<void(const ParitySubject&)>& on_done) {
  ParityRun parity;
  for (const auto& subject : subjects) {
    const std::vector<std::string> backends = subject->info().backends;
    for (const auto& backend : backends) {  // every backend a subject lists is a parity subject of its own
      ParitySubject row{.name = subject->info().id + column_suffix(backends.front(), backend, "")};
      if (on_start) on_start(row.name);
      RunOptions options;
      options.report_dir = base.report_dir;
      options.isolation = base.isolation;
      options.time_bounds = base.time_bounds;
      options.column.backend = backend;
      if (!subject->info().in_lanes) {
        // A replay in no lane of Tidemark's: its replays must agree with each other.
        options.repeat = kReplaysCompared;
        TIDEMARK_TRY(result, run(*subject, options));
        const std::vector<std::string> digests =
            result.repeat_digests.empty() ? std::vector<std::string>{result.digest} : result.repeat_digests;
        for (size_t k = 0; k < digests.size(); ++k) add_run(row, fmt::format("replay-{}", k + 1), result, digests[k]);
        parity.results.push_back(std::move(result));
      }
      for (Lane lane : subject->info().in_lanes ? std::span<const Lane>(kAllLanes) : std::span<const Lane>()) {
        options.column.lane.lane = lane;
        TIDEMARK_TRY(result, run(*subject, options));
        add_run(row, std::string(lane_name(lane)), result, result.digest);
        parity.results.push_back(std::move(result));
      }
      if (with_replay && subject->info().in_lanes)
        TIDEMARK_CHECK(record_and_replay(*subject, backend, base.report_dir, row));
      if (on_done) on_done(row);
      parity.subjects.push_back(std::move(row));
    }
  }
  return parity;
}

Result<std::map<std::string, std::string>> read_digests(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "digests"));
  std::istringstream in(text);
  std::map<std::string, std::string> digests;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    if (space == std::string::npos || space == 0 || line.find(' ', space + 1) != std::string::npos ||
        space + 1 == line.size())
      return fail(ErrorKind::BadInput,
                  fmt::format("{}:{}:1: expected 'group/name digest', found '{}'", file.string(), number, line));
    if (!digests.emplace(line.substr(0, space), line.substr(space + 1)).second)
      return fail(ErrorKind::BadInput, fmt::format("{}:{}:1: expected each scenario once, found {} again",
                                                   file.string(), number, line.substr(0, space)));
  }
  return digests;
}

void hold_to_digests(std::vector<report::RunRecord>& records, const std::map<std::string, std::string>& digests) {
  for (auto& record : records) {
    if (!report::finished(record.verdict)) continue;  // it has no digest: it fails, or was skipped, on its own
    auto found = digests.find(record.subject);
    record.committed_digest = found == digests.end() ? std::string() : found->second;
  }
}

std::string digests_text(const std::map<std::string, std::string>& digests) {
  std::string text = fmt::format(
      "# tidemark parity --save-digests: one digest per scenario, every lane agreeing\n"
      "# built by {} with mutants {}\n"
      "# A digest takes a run's gauges that read other than 0, its pixel hash and its trace hash. Runs held\n"
      "# to this file (run --digests) fail on another digest: a change is deliberate, this file updated in\n"
      "# the same commit, saying why.\n",
      __VERSION__, TIDEMARK_MUTANTS ? "compiled in" : "compiled out");
  for (const auto& [name, digest] : digests) text += fmt::format("{} {}\n", name, digest);
  return text;
}

Result<fs::path> recording_path(const std::string& record, const Subject& subject, size_t subjects) {
  fs::path path(record);
  if (path.extension() == ".tdrec") {
    if (subjects != 1)
      return fail(ErrorKind::BadInput, fmt::format("--record {}: expected one scenario for one file, found {} "
                                                   "(give a folder to record each)",
                                                   record, subjects));
    TIDEMARK_CHECK(make_directories(path.parent_path()));
    return path;
  }
  fs::path dir = path / subject.info().group;
  TIDEMARK_CHECK(make_directories(dir));
  return dir / (subject.info().id.substr(subject.info().group.size() + 1) + ".tdrec");
}

}  // namespace tidemark::runner
