#include "runner/report.h"

#include <nlohmann/json.hpp>

#include "check/png.h"
#include "core/files.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

Status write_json(const fs::path& file, const nlohmann::json& json) {
  return write_file_atomically(file, json.dump(2) + '\n');
}

}  // namespace

nlohmann::json result_json(const RunResult& result) {
  nlohmann::json json;
  json["test"] = result.test_name;
  json["subject"] = result.subject;
  json["file"] = result.file.string();
  if (!result.report_dir.empty()) json["dir"] = fs::absolute(result.report_dir).lexically_normal().string();
  if (!result.mutant.empty()) json["mutant"] = result.mutant;
  json["gauges_used"] = result.gauges_used;
  json["green"] = result.green;
  json["backend"] = result.backend;
  if (result.expected_failure) json["expected_failure"] = *result.expected_failure;
  if (result.unexpected_pass) json["unexpected_pass"] = *result.unexpected_pass;
  json["seconds"] = result.seconds;
  if (result.error) json["error"] = result.error->message;
  for (const auto& [name, value] : named(result.gauges)) json["gauges"][name] = value;
  if (result.kernel_gauges)
    for (const auto& [name, value] : named(*result.kernel_gauges)) json["kernel_gauges"][name] = value;
  if (result.observed_gauges)
    for (const auto& [name, value] : named(*result.observed_gauges)) json["observed_gauges"][name] = value;
  json["gauge_line"] = gauge_line(result.gauges);
  json["lane"] = {{"name", result.lane.lane},
                  {"frames_sent", result.lane.frames_sent},
                  {"frames_received", result.lane.frames_received},
                  {"client_pid", result.lane.client_pid},
                  {"server_pid", result.lane.server_pid},
                  {"server_knobs", result.lane.server_knobs}};
  json["knobs"] = result.knobs;
  json["pixel_hash"] = result.pixel_hash;
  json["trace_hash"] = result.trace_hash;
  json["digest"] = result.digest;
  if (result.repeat_digests.size() > 1) json["repeat_digests"] = result.repeat_digests;
  json["validation_messages"] = result.validation_messages;
  json["checks"] = nlohmann::json::array();
  for (const auto& outcome : result.outcomes) {
    nlohmann::json check{{"id", outcome.id.str()},   {"kind", scenario::to_string(outcome.id.kind)},
                         {"check", outcome.text},    {"passed", outcome.passed},
                         {"detail", outcome.detail},
                         {"where", outcome.where.file.empty() ? std::string() : format_location(outcome.where)}};
    for (const auto& artifact : outcome.artifacts)
      check["artifacts"].push_back(fs::absolute(artifact).lexically_normal().string());
    json["checks"].push_back(check);
  }
  return json;
}

nlohmann::json results_json(const std::vector<RunResult>& results) {
  nlohmann::json json = nlohmann::json::array();
  for (const auto& result : results) json.push_back(result_json(result));
  return json;
}

Status write_run_report(const RunResult& result, const Image& image, const std::string& trace,
                        const std::vector<std::string>& log) {
  if (result.report_dir.empty()) return {};
  if (!trace.empty()) TIDEMARK_CHECK(write_file_atomically(result.report_dir / "trace.pftrace", trace));
  if (!image.pixels.empty())
    TIDEMARK_CHECK(replace_file(result.report_dir / "actual.png",
                                [&](const fs::path& temporary) { return check::write_png(temporary, image); }));
  std::string backend_log;
  for (const auto& line : log) backend_log += line + '\n';
  backend_log += "end: " + gauge_line(result.gauges) + '\n';
  TIDEMARK_CHECK(write_file_atomically(result.report_dir / "backend.log", backend_log));
  return write_json(result.report_dir / "result.json", result_json(result));  // last: its presence means complete
}

}  // namespace tidemark::runner
