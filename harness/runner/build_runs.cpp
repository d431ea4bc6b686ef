#include "runner/build_runs.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>

#include "core/files.h"
#include "drivers/driver_builds.h"
#include "report/summary.h"
#include "wire/posix.h"

extern char** environ;

namespace tidemark::runner {

namespace fs = std::filesystem;

namespace {

// The last line the child wrote: its error, when it could not run.
std::string last_line(const fs::path& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

}  // namespace

std::optional<BackendOnBuild> backend_on_build(const std::string& column) {
  const size_t at = column.find('@');
  if (at == std::string::npos) return std::nullopt;
  return BackendOnBuild{column.substr(0, at), column.substr(at + 1)};
}

Result<std::vector<report::RunRecord>> run_on_build(const BuildRunRequest& request) {
  const std::string column = request.column.backend + "@" + request.column.build;
  if (request.column.backend.empty() || request.column.build.empty())
    return fail(ErrorKind::BadInput, fmt::format("--backend: expected BACKEND@BUILD, found '{}'", column));
  TIDEMARK_TRY(drivers_file, drivers::file_naming(request.drivers_files, request.column.build));
  TIDEMARK_CHECK(make_directories(request.report_dir));
  const fs::path log = request.report_dir / "run.log";
  std::error_code ignored;
  fs::remove(log, ignored);
  wire::ChildProcess::Options options;
  options.program = fs::read_symlink("/proc/self/exe").string();
  options.args = {"--drivers", drivers_file.string(), "--driver", request.column.build, "--quiet", "run"};
  for (const auto& file : request.scenario_files) options.args.push_back(file.string());
  options.args.insert(options.args.end(), {"--backend", request.column.backend, "--lane", request.lane, "--report",
                                           request.report_dir.string()});
  if (!request.expectations.empty())
    options.args.insert(options.args.end(), {"--expectations", request.expectations.string()});
  // The whole environment goes on: the child clears the driver variables itself before the build's own.
  for (char** entry = environ; *entry; ++entry) {
    const std::string_view text(*entry);
    options.keep_env.emplace_back(text.substr(0, text.find('=')));
  }
  options.stderr_path = log.string();
  options.stdout_too = true;
  TIDEMARK_TRY(child, wire::ChildProcess::spawn(options));
  // Each run inside has timeouts of its own; this bound only keeps a wedged child from holding compare for ever.
  const std::optional<int> status = child.wait_for(std::chrono::hours(6));
  if (!status) {
    child.kill(SIGKILL);
    return fail(ErrorKind::Environment, fmt::format("{}: the run under build {} did not end in 6 hours (log: {})",
                                                    column, request.column.build, log.string()));
  }
  const int code = WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;
  if (code != 0 && code != 1) {
    const ErrorKind kind = code == 2 ? ErrorKind::BadInput : code == 3 ? ErrorKind::Environment : ErrorKind::Fatal;
    return fail(kind, fmt::format("{}: the run under build {} {}: {} (log: {})", column, request.column.build,
                                  wire::describe_wait_status(*status), last_line(log), log.string()));
  }
  TIDEMARK_TRY(summary, report::read_summary(request.report_dir / "summary.json"));
  for (auto& record : summary.results) {
    // The child's records are relative to its folder; the compare summary's are relative to its own.
    if (!record.dir.empty()) record.dir = (request.report_dir / record.dir).string();
    for (auto& check : record.checks)
      for (auto& artifact : check.artifacts) artifact = (request.report_dir / artifact).string();
    const std::string suffix = "@" + request.column.backend;
    auto rename = [&](std::string& name) {
      if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
      name += "@" + column;
    };
    rename(record.test);
    rename(record.subject);
    record.backend = column;
    record.series.clear();
  }
  return std::move(summary.results);
}

}  // namespace tidemark::runner
