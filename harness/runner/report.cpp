#include "runner/report.h"

#include "check/png.h"
#include "core/digest.h"
#include "core/files.h"

namespace tidemark::runner {

namespace fs = std::filesystem;

report::RunRecord run_record(const RunResult& result) {
  auto absolute = [](const fs::path& path) { return fs::absolute(path).lexically_normal().string(); };
  auto values = [](const auto& gauges) {
    report::GaugeValues out;
    for (const auto& [name, value] : named(gauges)) out[name] = value;
    return out;
  };
  report::RunRecord record{
      .test = result.test_name,
      .subject = result.subject,
      .file = result.file.string(),
      .scenario_hash = {},
      .dir = result.report_dir.empty() ? std::string() : absolute(result.report_dir),
      .series = {},
      .mutant = result.mutant,
      .backend = result.backend,
      .driver = result.driver,
      .verdict = result.verdict,
      .why = result.why,
      .seconds = result.seconds,
      .gauges_used = result.gauges_used,
      .gauges = values(result.gauges),
      .kernel_gauges = {},
      .observed_gauges = {},
      .gauge_line = gauge_line(result.gauges),
      .lane = {result.lane.lane, result.lane.frames_sent, result.lane.frames_received, result.lane.client_pid,
               result.lane.server_pid, result.lane.server_knobs},
      .knobs = result.knobs,
      .pixel_hash = result.pixel_hash,
      .trace_hash = result.trace_hash,
      .digest = result.digest,
      .repeat_digests = result.repeat_digests.size() > 1 ? result.repeat_digests : std::vector<std::string>{},
      .validation_messages = result.validation_messages,
      .checks = {},
  };
  if (result.kernel_gauges) record.kernel_gauges = values(*result.kernel_gauges);
  if (result.observed_gauges) record.observed_gauges = values(*result.observed_gauges);
  // The scenario as it was when it ran: `rebase` refuses a report whose scenarios changed since.
  if (auto text = read_file_if_present(result.file, "scenario"); text && *text)
    record.scenario_hash = trace_hash(**text);
  for (const auto& outcome : result.outcomes) {
    report::CheckRecord check{.id = outcome.id.str(),
                              .kind = std::string(scenario::to_string(outcome.id.kind)),
                              .check = outcome.text,
                              .passed = outcome.passed,
                              .detail = outcome.detail,
                              .where = outcome.where.file.empty() ? std::string() : format_location(outcome.where),
                              .artifacts = {}};
    for (const auto& artifact : outcome.artifacts) check.artifacts.push_back(absolute(artifact));
    record.checks.push_back(std::move(check));
  }
  return record;
}

std::vector<report::RunRecord> run_records(const std::vector<RunResult>& results) {
  std::vector<report::RunRecord> records;
  for (const auto& result : results) records.push_back(run_record(result));
  return records;
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
  return report::write_run_record(result.report_dir / "result.json",
                                  run_record(result));  // last: its presence means complete
}

}  // namespace tidemark::runner
