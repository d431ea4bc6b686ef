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

constexpr report::DocumentKind kBatchDocument{"tidemark-build-batch", 2, "a batch of runs on a driver build"};
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

nlohmann::json to_json(const RunOptions& options) {
  nlohmann::json json{{"backend", options.column.backend},
                      {"build", options.column.build},
                      {"lane", std::string(lane_name(options.column.lane.lane))},
                      {"mutant", options.variant.mutant.name},
                      {"knobs", options.variant.knobs},
                      {"fault", options.variant.fault},
                      {"cut", options.variant.cut},
                      {"report_dir", options.report_dir.string()},
                      {"validation", options.validation},
                      {"repeat", options.repeat},
                      {"retry", options.retry},
                      {"isolation", options.isolation},
                      {"layer_dir", options.layer_dir.string()},
                      {"drivers_files", strings_of(options.drivers_files)},
                      {"compare_replies", options.compare_replies}};
  if (options.time_bounds.wall) json["timeout"] = *options.time_bounds.wall;
  if (options.time_bounds.inactivity) json["inactivity_timeout"] = *options.time_bounds.inactivity;
  return json;
}

Result<RunOptions> run_options_from_json(const nlohmann::json& json, std::string_view where) {
  report::JsonFields fields(json, std::string(where), "options");
  RunOptions options;
  options.column.backend = fields.take<std::string>("backend");
  options.column.build = fields.take<std::string>("build");
  const std::string lane = fields.take<std::string>("lane");
  options.variant.mutant = MutantChoice::named(fields.take<std::string>("mutant"));
  options.variant.knobs = fields.take<std::map<std::string, int64_t>>("knobs");
  options.variant.fault = fields.take<std::string>("fault");
  options.variant.cut = fields.take<std::string>("cut");
  options.report_dir = fields.take<std::string>("report_dir");
  options.validation = fields.take<bool>("validation");
  options.repeat = static_cast<int>(fields.take<int64_t>("repeat"));
  options.retry = static_cast<int>(fields.take<int64_t>("retry"));
  options.isolation = fields.take<bool>("isolation");
  options.layer_dir = fields.take<std::string>("layer_dir");
  options.drivers_files = paths_of(fields.take<std::vector<std::string>>("drivers_files"));
  options.compare_replies = fields.take<bool>("compare_replies");
  options.time_bounds.wall = fields.take_optional<double>("timeout");
  options.time_bounds.inactivity = fields.take_optional<double>("inactivity_timeout");
  TIDEMARK_CHECK(fields.finish());
  const std::optional<Lane> parsed = parse_lane(lane);
  if (!parsed) return fail(ErrorKind::BadInput, fmt::format("{}: options: expected a lane, found '{}'", where, lane));
  options.column.lane.lane = *parsed;
  return options;
}

nlohmann::json to_json(const BuildBatch& batch) {
  return report::with_kind({{"options", to_json(batch.options)},
                            {"subject_files", strings_of(batch.subject_files)},
                            {"expectations", batch.expectations.string()}},
                           kBatchDocument);
}

Result<BuildBatch> batch_from_json(const nlohmann::json& json) {
  TIDEMARK_TRY(body, report::without_kind(json, "build batch", kBatchDocument));
  report::JsonFields fields(body, "build batch");
  BuildBatch batch;
  fields.skip("options");
  batch.subject_files = paths_of(fields.take<std::vector<std::string>>("subject_files"));
  batch.expectations = fields.take<std::string>("expectations");
  TIDEMARK_CHECK(fields.finish());
  if (!body.at("options").is_object()) return fail(ErrorKind::BadInput, "build batch: options: expected an object");
  TIDEMARK_TRY(options, run_options_from_json(body.at("options"), "build batch"));
  batch.options = std::move(options);
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
  const RunOptions& options = batch.options;
  const std::string& build = options.column.build;
  const std::string column = report::Column{options.column.backend, build}.text();
  if (options.column.backend.empty() || build.empty())
    return fail(ErrorKind::BadInput, fmt::format("--backend: expected BACKEND@BUILD, found '{}'", column));
  TIDEMARK_TRY(named, drivers::find_build(options.drivers_files, build));
  TIDEMARK_CHECK(make_directories(options.report_dir));
  const fs::path log = options.report_dir / "run.log";
  TIDEMARK_TRY(child, start_on_build(named, log));
  // Each run inside has timeouts of its own; this bound only keeps a wedged child from holding the caller for ever.
  TIDEMARK_TRY(reply, child.ask(to_json(batch).dump(), {.wall = 6 * 3600.0, .inactivity = 0}));
  if (const auto* end = std::get_if<WorkerEnd>(&reply))
    return fail(ErrorKind::Environment,
                fmt::format("{}: the runs under build {} gave no answer: the child {}: {} (log: {})", column, build,
                            describe(*end), last_line(log), log.string()));
  TIDEMARK_TRY(
      json, report::parse_json(std::get<std::string>(reply), "build answer", "the answer of runs on a driver build"));
  TIDEMARK_TRY(answer, answer_from_json(json));
  if (answer.error) return std::unexpected(*answer.error);
  if (answer.build != build)
    return fail(ErrorKind::Environment,
                fmt::format("{}: the child ran under build '{}', expected '{}'", column, answer.build, build));
  return std::move(answer.records);
}

}  // namespace tidemark::runner
