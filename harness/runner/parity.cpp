#include "runner/parity.h"

#include <fmt/format.h>

#include <sstream>

#include "core/files.h"
#include "session/builtin_backends.h"
#include "lanes/replay.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

// The monolith session recorded, then replayed in every lane: each replay's digest joins the runs'.
Status record_and_replay(const scenario::Scenario& scenario, const std::string& backend, const fs::path& report_dir,
                         ParitySubject& subject) {
  RunOptions options;
  options.report_dir = report_dir / "recorded";
  options.backend = backend;
  const std::string file = scenario.group + "." + scenario.name + backend_suffix(scenario, backend) + ".tdrec";
  options.lane.record = (report_dir / "recordings" / file).string();
  options.lane.record_name = subject.name;
  TIDEMARK_CHECK(make_directories(report_dir / "recordings"));
  TIDEMARK_TRY(recorded, run(scenario, options));
  subject.lanes_by_digest[recorded.digest].push_back("recorded");
  for (Lane lane : kAllLanes) {
    lanes::LaneOptions lane_options;
    lane_options.lane = lane;
    lane_options.backends = &session::builtin_backends();
    // The replaying server's log beside the recording, as a run's goes to its server.log.
    lane_options.server_log =
        (report_dir / "recordings" / fmt::format("{}.replay-{}.log", file, lane_name(lane))).string();
    TIDEMARK_TRY(replayed, lanes::replay(options.lane.record, lane_options));
    std::string key = replayed.divergence ? "diverged: " + *replayed.divergence : replayed.digest;
    subject.lanes_by_digest[key].push_back(fmt::format("replay-{}", lane_name(lane)));
    subject.row += fmt::format(" replay-{}={}", lane_name(lane), replayed.divergence ? "DIVERGED" : replayed.digest);
  }
  return {};
}

}  // namespace

Result<ParityRun> parity(const std::vector<scenario::Scenario>& scenarios, const fs::path& report_dir, bool with_replay,
                         const std::function<void(std::string_view)>& on_start,
                         const std::function<void(const ParitySubject&)>& on_done) {
  ParityRun parity;
  for (const auto& scenario : scenarios) {
    std::vector<std::string> backends = scenario.backends;
    if (backends.empty()) backends.push_back(default_backend(scenario));
    for (const auto& backend : backends) {  // every backend a scenario lists is a subject of its own
      ParitySubject subject{subject_name(scenario, backend), {}, ""};
      if (on_start) on_start(subject.name);
      for (Lane lane : kAllLanes) {
        RunOptions options;
        options.report_dir = report_dir;
        options.lane.lane = lane;
        options.backend = backend;
        TIDEMARK_TRY(result, run(scenario, options));
        subject.lanes_by_digest[result.digest].push_back(std::string(lane_name(lane)));
        subject.row += fmt::format(" {}={}{}", lane_name(lane), result.digest, result.passed() ? "" : "(red)");
        parity.results.push_back(std::move(result));
      }
      if (with_replay) TIDEMARK_CHECK(record_and_replay(scenario, backend, report_dir, subject));
      if (on_done) on_done(subject);
      parity.subjects.push_back(std::move(subject));
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

std::string digests_text(const std::map<std::string, std::string>& digests) {
  std::string text = fmt::format(
      "# tidemark parity --save-digests: one digest per scenario, every lane agreeing\n"
      "# built by {} with mutants {}\n",
      __VERSION__, TIDEMARK_MUTANTS ? "compiled in" : "compiled out");
  for (const auto& [name, digest] : digests) text += fmt::format("{} {}\n", name, digest);
  return text;
}

Result<fs::path> recording_path(const std::string& record, const scenario::Scenario& scenario, size_t scenarios) {
  fs::path path(record);
  if (path.extension() == ".tdrec") {
    if (scenarios != 1)
      return fail(ErrorKind::BadInput, fmt::format("--record {}: expected one scenario for one file, found {} "
                                                   "(give a folder to record each)",
                                                   record, scenarios));
    TIDEMARK_CHECK(make_directories(path.parent_path()));
    return path;
  }
  fs::path dir = path / scenario.group;
  TIDEMARK_CHECK(make_directories(dir));
  return dir / (scenario.name + ".tdrec");
}

}  // namespace tidemark::runner
