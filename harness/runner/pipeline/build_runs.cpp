#include "runner/pipeline/build_runs.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "core/files.h"
#include "core/process.h"
#include "core/worker.h"
#include "drivers/driver_builds.h"
#include "report/json_fields.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

constexpr report::DocumentKind kBatchDocument{"tidemark-build-batch", 1, "a batch of runs on a driver build"};
constexpr report::DocumentKind kAnswerDocument{"tidemark-build-answer", 1, "the answer of runs on a driver build"};

constexpr std::pair<ErrorKind, std::string_view> kErrorKindNames[] = {{ErrorKind::BadInput, "bad-input"},
                                                                      {ErrorKind::Environment, "environment"},
                                                                      {ErrorKind::Fatal, "fatal"},
                                                                      {ErrorKind::Io, "io"}};

std::string_view error_kind_name(ErrorKind kind) {
  for (const auto& [each, name] : kErrorKindNames)
    if (each == kind) return name;
  return "fatal";
}

std::vector<std::string> strings_of(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const auto& path : paths) out.push_back(path.string());
  return out;
}

std::vector<fs::path> paths_of(const std::vector<std::string>& strings) { return {strings.begin(), strings.end()}; }

// The last line the child wrote: what it said when it died.
std::string last_line(const fs::path& log) {
  const auto lines = last_lines(log, 1);
  return lines.empty() ? "" : lines.front();
}

}  // namespace

nlohmann::json to_json(const BuildBatch& batch) {
  return report::with_kind({{"drivers_files", strings_of(batch.drivers_files)},
                            {"backend", batch.column.backend},
                            {"build", batch.column.build},
                            {"subject_files", strings_of(batch.subject_files)},
                            {"lane", batch.lane},
                            {"report_dir", batch.report_dir.string()},
                            {"expectations", batch.expectations.string()},
                            {"layer_dir", batch.layer_dir.string()}},
                           kBatchDocument);
}

Result<BuildBatch> batch_from_json(const nlohmann::json& json) {
  TIDEMARK_TRY(body, report::without_kind(json, "build batch", kBatchDocument));
  report::JsonFields fields(body, "build batch");
  BuildBatch batch;
  batch.drivers_files = paths_of(fields.take<std::vector<std::string>>("drivers_files"));
  batch.column.backend = fields.take<std::string>("backend");
  batch.column.build = fields.take<std::string>("build");
  batch.subject_files = paths_of(fields.take<std::vector<std::string>>("subject_files"));
  batch.lane = fields.take<std::string>("lane");
  batch.report_dir = fields.take<std::string>("report_dir");
  batch.expectations = fields.take<std::string>("expectations");
  batch.layer_dir = fields.take<std::string>("layer_dir");
  TIDEMARK_CHECK(fields.finish());
  return batch;
}

nlohmann::json to_json(const BatchAnswer& answer) {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& record : answer.records) records.push_back(report::to_json(record));
  nlohmann::json json{{"build", answer.build}, {"records", std::move(records)}};
  if (answer.error) json["error"] = {{"kind", error_kind_name(answer.error->kind)}, {"message", answer.error->message}};
  return report::with_kind(std::move(json), kAnswerDocument);
}

Result<BatchAnswer> answer_from_json(const nlohmann::json& json) {
  TIDEMARK_TRY(body, report::without_kind(json, "build answer", kAnswerDocument));
  report::JsonFields fields(body, "build answer");
  BatchAnswer answer;
  answer.build = fields.take<std::string>("build");
  fields.skip("records");
  std::optional<std::string> kind, message;
  fields.object(
      "error",
      [&](report::JsonFields& error) {
        kind = error.take<std::string>("kind");
        message = error.take<std::string>("message");
      },
      /*required=*/false);
  TIDEMARK_CHECK(fields.finish());
  if (!body.at("records").is_array()) return fail(ErrorKind::BadInput, "build answer: records: expected an array");
  for (size_t k = 0; k < body.at("records").size(); ++k) {
    TIDEMARK_TRY(record,
                 report::run_record_from_json(body.at("records")[k], "build answer", fmt::format("records[{}]", k)));
    answer.records.push_back(std::move(record));
  }
  if (kind) {
    Error error{ErrorKind::Fatal, message.value_or("")};
    for (const auto& [each, name] : kErrorKindNames)
      if (name == *kind) error.kind = each;
    answer.error = std::move(error);
  }
  return answer;
}

Result<Worker> start_on_build(const drivers::NamedBuild& build, const fs::path& log) {
  std::error_code ec;
  return Worker::spawn({.program = fs::read_symlink("/proc/self/exe", ec).string(),
                        .args = {std::string(kBatchChildWord)},
                        .set_env = settings_of(drivers::environment_for(build.builds, build.build, this_environment())),
                        .stderr_path = log.string(),
                        .stdout_too = true,
                        .truncate = true,
                        .keep_last = kLogKept});
}

Result<std::vector<report::RunRecord>> run_on_build(const BuildBatch& batch) {
  const std::string column = batch.column.text();
  if (batch.column.backend.empty() || batch.column.build.empty())
    return fail(ErrorKind::BadInput, fmt::format("--backend: expected BACKEND@BUILD, found '{}'", column));
  TIDEMARK_TRY(named, drivers::find_build(batch.drivers_files, batch.column.build));
  TIDEMARK_CHECK(make_directories(batch.report_dir));
  const fs::path log = batch.report_dir / "run.log";
  TIDEMARK_TRY(child, start_on_build(named, log));
  // Each run inside has timeouts of its own; this bound only keeps a wedged child from holding the caller for ever.
  TIDEMARK_TRY(reply, child.ask(to_json(batch).dump(), {.wall = 6 * 3600.0, .inactivity = 0}));
  if (const auto* end = std::get_if<WorkerEnd>(&reply))
    return fail(ErrorKind::Environment,
                fmt::format("{}: the runs under build {} gave no answer: the child {}: {} (log: {})", column,
                            batch.column.build, describe(*end), last_line(log), log.string()));
  TIDEMARK_TRY(
      json, report::parse_json(std::get<std::string>(reply), "build answer", "the answer of runs on a driver build"));
  TIDEMARK_TRY(answer, answer_from_json(json));
  if (answer.error) return std::unexpected(*answer.error);
  if (answer.build != batch.column.build)
    return fail(ErrorKind::Environment, fmt::format("{}: the child ran under build '{}', expected '{}'", column,
                                                    answer.build, batch.column.build));
  return std::move(answer.records);
}

}  // namespace tidemark::runner
