#include "subjects/subjects.h"

#include <fmt/format.h>
#include "capture/capture_subject.h"
#include "core/files.h"
#include "drivers/driver_builds.h"
#include "report/json_fields.h"
#include "runner/pipeline/build_runs.h"
#include "core/worker.h"
#include "doctor/doctor.h"
#include "session/builtin_backends.h"
#include "runner/kinds/recording_subject.h"
#include "runner/kinds/scenario_subject.h"
#include "runner/pipeline/selection.h"

namespace tidemark::subjects {

Result<Loaded> load_subjects(const std::vector<std::string>& given, const std::string& shard,
                             const std::string& durations) {
  // A recording is named by its own path (a folder's .tdrec files are runs' leftovers, not subjects).
  std::vector<std::string> paths;
  runner::Subjects recordings;
  for (const auto& path : given) {
    if (!path.ends_with(".tdrec")) {
      paths.push_back(path);
      continue;
    }
    TIDEMARK_TRY(recording, runner::RecordingSubject::load(path));
    recordings.push_back(std::move(recording));
  }
  TIDEMARK_TRY(split, capture::load_inputs(paths));
  runner::Subjects all = std::move(recordings), scenarios;
  if (!split.scenarios.empty()) {
    TIDEMARK_TRY(loaded, runner::load_scenarios(split.scenarios));
    for (auto& scenario : loaded)
      all.push_back(
          std::make_unique<runner::ScenarioSubject>(std::make_shared<const scenario::Scenario>(std::move(scenario))));
  }
  for (auto& fixture : split.captures) all.push_back(std::make_unique<capture::CaptureSubject>(std::move(fixture)));
  TIDEMARK_TRY(distinct, runner::distinct_subjects(std::move(all)));
  Loaded loaded;
  runner::Subjects others;
  for (auto& subject : distinct)
    (subject->info().kind == "scenario" ? scenarios : others).push_back(std::move(subject));
  if (!others.empty() && !shard.empty())
    return fail(ErrorKind::BadInput,
                "--shard: expected scenarios only, found capture fixtures or recordings (they "
                "are not sharded: give them apart)");
  loaded.scenarios_before_shard = scenarios.size();
  if (!scenarios.empty()) {
    TIDEMARK_TRY(mine, runner::select_shard(std::move(scenarios), shard, durations));
    loaded.shard = std::move(mine.origin);
    scenarios = std::move(mine.subjects);
  }
  // Recordings first, then the scenarios (this process's shard of them), then the capture fixtures.
  for (auto& subject : others)
    if (subject->info().kind == "recording") loaded.subjects.push_back(std::move(subject));
  for (auto& subject : scenarios) loaded.subjects.push_back(std::move(subject));
  for (auto& subject : others)
    if (subject) loaded.subjects.push_back(std::move(subject));
  return loaded;
}

namespace {

// The batch's runs: each subject in the column, named for it by the pipeline.
Result<std::vector<report::RunRecord>> run_batch(const runner::BuildBatch& batch, std::string& build) {
  const report::Column column{batch.options.column.backend, batch.options.column.build};
  TIDEMARK_TRY(active, drivers::active_build());
  build = active ? active->name : "";
  if (build != column.build)
    return fail(ErrorKind::Environment, fmt::format("expected to run under build '{}', found {}", column.build,
                                                    build.empty() ? "none" : "'" + build + "'"));
  std::vector<std::string> paths;
  for (const auto& file : batch.subject_files) paths.push_back(file.string());
  TIDEMARK_TRY(loaded, load_subjects(paths));
  std::vector<runner::Expectation> expectations;
  runner::RunOptions options = batch.options;
  if (!batch.expectations.empty()) {
    TIDEMARK_TRY(read, runner::load_expectations(batch.expectations));
    expectations = std::move(read);
    options.expectations = &expectations;
  }
  std::vector<report::RunRecord> records;
  for (const auto& subject : loaded.subjects) {
    auto record = runner::run(*subject, options);
    // A subject this column cannot judge is a cell that says why, as one run here would be.
    if (!record) {
      TIDEMARK_TRY(unjudged, runner::not_judged(*subject, options, column.text(), record.error()));
      records.push_back(std::move(unjudged));
      continue;
    }
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace

namespace {

// An examination of the build this process runs under (doctor/doctor.h), as its answer.
std::string examined(const nlohmann::json& json) {
  auto examination = [&]() -> Result<doctor::Examination> {
    TIDEMARK_TRY(request, doctor::examine_request_from_json(json));
    return doctor::examine(request.backends, session::builtin_backends());
  }();
  if (!examination)  // a finding the asker cannot miss
    examination = doctor::Examination{
        .findings = {{.topic = "examination", .detail = examination.error().message, .needed = true}}};
  // Its log says each finding, as `tidemark doctor` does.
  for (const doctor::Finding& finding : examination->findings) fmt::print(stderr, "{}\n", doctor::describe(finding));
  return doctor::to_json(*examination).dump();
}

}  // namespace

int serve_batch(int socket) {
  const bool served = Worker::serve(socket, [](std::string request) {
    if (auto json = report::parse_json(request, "request", "a request of a driver build's worker");
        json && doctor::is_examine_request(*json))
      return examined(*json);
    runner::BatchAnswer answer;
    auto ran = [&]() -> Result<std::vector<report::RunRecord>> {
      TIDEMARK_TRY(json, report::parse_json(request, "build batch", "a batch of runs on a driver build"));
      TIDEMARK_TRY(batch, runner::batch_from_json(json));
      return run_batch(batch, answer.build);
    }();
    if (ran)
      answer.records = std::move(*ran);
    else
      answer.error = ran.error();
    return runner::to_json(answer).dump();
  });
  return served ? 0 : 4;
}

}  // namespace tidemark::subjects
