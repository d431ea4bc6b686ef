#include "rebase/rebase.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "check/png.h"
#include "core/digest.h"
#include "core/files.h"
#include "report/baseline.h"
#include "report/red_once_record.h"
#include "report/summary.h"
#include "runner/pipeline/build_runs.h"
#include "runner/pipeline/expectations.h"
#include "runner/verbs/red_once.h"
#include "scenario/scenario.h"

namespace tidemark::rebase {

namespace fs = std::filesystem;

namespace {

std::unexpected<Error> refuse(const fs::path& report_dir, const std::string& why) {
  return fail(ErrorKind::BadInput, fmt::format("rebase {}: {}; nothing was changed", report_dir.string(), why));
}

// A report's scenario must be the file as it is now: the values it measured are of that file.
Status unchanged(const fs::path& report_dir, const std::string& file, const std::string& hash, const std::string& who) {
  if (hash.empty())
    return refuse(report_dir,
                  fmt::format("{} has no hash of its scenario file (made by an older Tidemark): run it again", who));
  auto text = read_file_if_present(file, "scenario");
  if (!text) return std::unexpected(text.error());
  if (!*text) return refuse(report_dir, fmt::format("{}'s scenario {} is gone", who, file));
  if (trace_hash(**text) != hash)
    return refuse(report_dir,
                  fmt::format("{}'s scenario {} changed since the report was made: run it again", who, file));
  return {};
}

// The summary's runs: whole (not a shard, every run's folder there), no red anyone did not expect,
// their scenarios as they are now.
Status check_summary(const fs::path& report_dir, const report::Summary& summary) {
  if (summary.origin.shard && summary.origin.shard->total > 1)
    return refuse(report_dir, fmt::format("it is shard {} of {}: merge the shards first (tidemark merge)",
                                          summary.origin.shard->index, summary.origin.shard->total));
  if (summary.results.empty()) return refuse(report_dir, "its summary has no runs");
  for (const auto& record : summary.results) {
    if (!report::passes(record.verdict))
      return refuse(report_dir, fmt::format("{} is {}{}: only a report without a red nobody expected is rebased",
                                            record.test, report::verdict_label(record.verdict),
                                            record.why.empty() ? "" : " (" + record.why + ")"));
    if (!record.dir.empty()) {
      const fs::path dir = fs::path(record.dir).is_absolute() ? fs::path(record.dir) : report_dir / record.dir;
      std::error_code ec;
      if (!fs::exists(dir / "result.json", ec))
        return refuse(report_dir, fmt::format("{}'s folder {} has no result.json: the report is incomplete",
                                              record.test, dir.string()));
    }
    TIDEMARK_CHECK(unchanged(report_dir, record.file, record.scenario_hash, record.test));
  }
  return {};
}

// A file a rebase would write among the report's own (its summary, HTML, JUnit, run folders) is
// refused: the report is the evidence the change is made from, and a baseline of the report's
// own folder rewrote its summary and dropped the links to its run folders.
Status outside_report(const fs::path& report_dir, const fs::path& file, std::string_view option) {
  std::error_code ec;
  auto resolved = [&](const fs::path& path) {
    fs::path out = fs::weakly_canonical(fs::absolute(path), ec).lexically_normal();
    return out.filename().empty() ? out.parent_path() : out;
  };
  const fs::path report = resolved(report_dir), target = resolved(file);
  if (std::mismatch(report.begin(), report.end(), target.begin(), target.end()).first != report.end()) return {};
  return refuse(report_dir, fmt::format("{} {}: expected a file outside the report being read, found {}, one of its "
                                        "own",
                                        option, file.string(), target.string()));
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The baseline folder's summary becomes the report's runs; the diff names every gauge that moved.
Result<FileChange> baseline_change(const report::Summary& summary, const fs::path& folder,
                                   std::vector<report::RunRecord>& records) {
  records = summary.results;
  for (auto& record : records) {
    record.baseline.reset();
    record.dir.clear();  // the baseline is gauges and verdicts; the report's folders stay where they were
    for (auto& check : record.checks) check.artifacts.clear();
  }
  FileChange change{folder / "summary.json", {}};
  std::error_code ec;
  if (!fs::exists(folder / "summary.json", ec)) {
    change.diff.push_back(fmt::format("+ a new baseline of {} runs", records.size()));
    return change;
  }
  TIDEMARK_TRY(old, report::read_summary(folder / "summary.json"));
  std::vector<report::RunRecord> judged = records;
  const report::BaselineOrigin held = report::hold_to_baseline(
      judged, summary.origin, {.summary = std::move(old), .source = folder.string(), .tolerances = {}});
  for (const auto& record : judged) {
    if (record.baseline->movement == report::Movement::New) change.diff.push_back("+ " + record.test);
    for (const auto& move : record.baseline->moves)
      change.diff.push_back(fmt::format("~ {}: {} {} -> {} ({})", record.test, move.gauge, move.baseline, move.now,
                                        report::change_text(move.baseline, move.now)));
  }
  for (const auto& test : held.gone) change.diff.push_back("- " + test);
  return change;
}

// "gauge=old" as a whole word of the line's fields (before its '#') replaced by "gauge=new".
std::optional<std::string> replace_value(const std::string& line, const std::string& gauge, int64_t old, int64_t now) {
  const std::string from = fmt::format("{}={}", gauge, old);
  const size_t body = line.find('#');
  for (size_t at = line.find(from); at != std::string::npos && at < body; at = line.find(from, at + 1)) {
    const bool starts = at == 0 || line[at - 1] == ' ' || line[at - 1] == '\t';
    const size_t end = at + from.size();
    const bool ends = end == line.size() || line[end] == ' ' || line[end] == '\t' || line[end] == '\r';
    if (starts && ends) return line.substr(0, at) + fmt::format("{}={}", gauge, now) + line.substr(end);
  }
  return std::nullopt;
}

// The measured values of every expectations line a known failure of the report matched.
Result<std::optional<std::pair<FileChange, std::string>>> expectations_change(const fs::path& report_dir,
                                                                              const report::Summary& summary,
                                                                              const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "expectations"));
  TIDEMARK_TRY(expectations, runner::parse_expectations(text, file));
  struct Update {
    int64_t value;
    std::string test;
  };
  std::map<const runner::Expectation*, std::map<std::string, Update>> updates;
  for (const auto& record : summary.results) {
    if (record.verdict != report::Verdict::ExpectedRed || !record.mutant.empty()) continue;
    const std::string& backend = record.column.backend;
    const std::string build =
        record.column.build.empty() ? record.driver.substr(0, record.driver.find(':')) : record.column.build;
    const std::string scenario = report::subject_id(record);
    const runner::Expectation* line = runner::find_expectation(expectations, backend, scenario, build);
    if (!line) continue;
    for (const auto& [gauge, old] : line->values) {
      const std::optional<int64_t> now = report::gauge_value(record, gauge);
      if (!now) continue;
      auto [known, added] = updates[line].try_emplace(gauge, Update{*now, record.test});
      if (!added && known->second.value != *now)
        return refuse(report_dir,
                      fmt::format("{}: the runs disagree on {} ({} in {}, {} in {}): give each driver build "
                                  "its own line (BACKEND@BUILD)",
                                  format_location(line->where), gauge, known->second.value, known->second.test, *now,
                                  record.test));
    }
  }
  std::vector<std::string> lines = split_lines(text);
  FileChange change{file, {}};
  for (const auto& [line, gauges] : updates) {
    const size_t index = static_cast<size_t>(line->where.line - 1);
    std::string rewritten = lines.at(index);
    for (const auto& [gauge, old] : line->values) {
      const int64_t now = gauges.contains(gauge) ? gauges.at(gauge).value : old;
      if (now == old) continue;
      auto replaced = replace_value(rewritten, gauge, old, now);
      if (!replaced)
        return refuse(report_dir,
                      fmt::format("{}: cannot find {}={} in the line", format_location(line->where), gauge, old));
      rewritten = *replaced;
    }
    if (rewritten == lines[index]) continue;
    change.diff.push_back(fmt::format("- {}:{}: {}", file.string(), index + 1, lines[index]));
    change.diff.push_back(fmt::format("+ {}:{}: {}", file.string(), index + 1, rewritten));
    lines[index] = rewritten;
  }
  if (change.diff.empty()) return std::optional<std::pair<FileChange, std::string>>();
  std::string out;
  for (const auto& line : lines) out += line + '\n';
  return std::optional(std::pair(std::move(change), std::move(out)));
}

// The ledger lines of what red-once.json measured, in the lanes it ran, in place of the old ones.
Result<std::optional<std::pair<FileChange, std::string>>> ledger_change(const fs::path& report_dir,
                                                                        const report::RedOnceDocument& document,
                                                                        const fs::path& file) {
  std::vector<runner::RedOnceReport> measured;
  std::vector<std::string> lines;
  for (const auto& record : document.scenarios) {
    if (!record.problems.empty())
      return refuse(report_dir, fmt::format("red-once of {} had problems ({}): only a report whose controls all went "
                                            "red as named is rebased",
                                            record.scenario, fmt::join(record.problems, "; ")));
    TIDEMARK_CHECK(unchanged(report_dir, record.file, record.scenario_hash, record.scenario));
    measured.push_back({.scenario = record.scenario, .lanes = record.lanes});
    for (const auto& line : record.lines)
      if (line.find_first_of("\r\n") != std::string::npos)
        return refuse(report_dir, fmt::format("red-once.json: {}: expected ledger lines of one line each, found one "
                                              "holding a line break ({}): it would be rows of its own",
                                              record.scenario, nlohmann::json(line).dump()));
    lines.insert(lines.end(), record.lines.begin(), record.lines.end());
  }
  TIDEMARK_TRY(ledger, runner::read_ledger(file));
  std::vector<std::string> updated = runner::replace_ledger_lines(ledger, measured, std::move(lines));
  std::set<std::string> before(ledger.begin(), ledger.end()), after(updated.begin(), updated.end());
  FileChange change{file, {}};
  for (const auto& line : before)
    if (!after.contains(line)) change.diff.push_back("- " + line);
  for (const auto& line : after)
    if (!before.contains(line)) change.diff.push_back("+ " + line);
  if (change.diff.empty()) return std::optional<std::pair<FileChange, std::string>>();
  return std::optional(std::pair(std::move(change), runner::ledger_text(std::move(updated))));
}

// Each golden image whose scenario's runs drew otherwise becomes what they drew.
Result<std::vector<std::pair<FileChange, std::string>>> golden_changes(const fs::path& report_dir,
                                                                       const report::Summary& summary) {
  std::map<std::string, std::vector<const report::RunRecord*>> by_file;
  for (const auto& record : summary.results)
    if (record.mutant.empty() && !record.dir.empty() && !record.pixel_hash.empty())
      by_file[record.file].push_back(&record);
  std::vector<std::pair<FileChange, std::string>> changes;
  for (const auto& [file, records] : by_file) {
    TIDEMARK_TRY(scenario, scenario::load(file));
    std::vector<fs::path> goldens;
    for (const auto& check : scenario.expect.pixels)
      if (const auto* golden = std::get_if<scenario::GoldenCheck>(&check)) goldens.push_back(golden->file);
    if (goldens.empty()) continue;
    for (const auto* record : records)
      if (record->pixel_hash != records.front()->pixel_hash)
        return refuse(report_dir,
                      fmt::format("the runs of {} drew different images ({} and {}): rebase its goldens from "
                                  "a report of one backend",
                                  scenario.id(), records.front()->test, record->test));
    const fs::path dir = fs::path(records.front()->dir).is_absolute() ? fs::path(records.front()->dir)
                                                                      : report_dir / records.front()->dir;
    TIDEMARK_TRY(actual, check::read_png(dir / "actual.png"));
    TIDEMARK_TRY(png, read_given_file(dir / "actual.png", "image"));
    for (const auto& golden : goldens) {
      TIDEMARK_TRY(old, check::read_png(golden));
      if (old.width == actual.width && old.height == actual.height && old.pixels == actual.pixels) continue;
      size_t differ = 0;
      if (old.width == actual.width && old.height == actual.height)
        for (size_t k = 0; k + 3 < old.pixels.size(); k += 4)
          differ += !std::equal(&old.pixels[k], &old.pixels[k] + 4, &actual.pixels[k]);
      FileChange change{golden, {}};
      change.diff.push_back(fmt::format("- {}x{} golden", old.width, old.height));
      change.diff.push_back(fmt::format(
          "+ {}x{} as {} drew it ({} pixels differ)", actual.width, actual.height, records.front()->test,
          old.width == actual.width && old.height == actual.height ? fmt::format("{}", differ) : std::string("all")));
      changes.emplace_back(std::move(change), png);
    }
  }
  return changes;
}

}  // namespace

Result<std::vector<FileChange>> rebase(const fs::path& report_dir, const Targets& targets) {
  std::error_code ec;
  const bool has_summary = fs::exists(report_dir / "summary.json", ec);
  const bool has_red_once = fs::exists(report_dir / "red-once.json", ec);
  if (!fs::is_directory(report_dir, ec) || (!has_summary && !has_red_once))
    return fail(ErrorKind::BadInput, fmt::format("rebase {}: expected a report folder with summary.json (tidemark run, "
                                                 "compare, merge) or red-once.json (tidemark red-once), found neither",
                                                 report_dir.string()));
  if (targets.baseline.empty() && targets.expectations.empty() && targets.ledger.empty() && !targets.goldens)
    return fail(ErrorKind::BadInput,
                "rebase: expected at least one of --baseline, --expectations, --ledger, --goldens");
  std::optional<report::Summary> summary;
  if (has_summary) {
    TIDEMARK_TRY(read, report::read_summary(report_dir / "summary.json"));
    summary = std::move(read);
    TIDEMARK_CHECK(check_summary(report_dir, *summary));
  }
  auto needs_summary = [&](const char* what) -> Status {
    if (!summary)
      return refuse(report_dir, fmt::format("{} needs the runs of a summary.json, and the folder has none", what));
    return {};
  };

  for (const auto& [file, option] :
       {std::pair{targets.expectations, "--expectations"},
        {targets.ledger, "--ledger"},
        {targets.baseline.empty() ? fs::path() : targets.baseline / "summary.json", "--baseline"}})
    if (!file.empty()) TIDEMARK_CHECK(outside_report(report_dir, file, option));

  // Every change is worked out before anything is written, and written as one batch: every file
  // or none (a baseline that cannot be written leaves the expectations as they were).
  std::vector<FileChange> changes;
  FileBatch writes;
  auto add = [&](std::pair<FileChange, std::string> change) {
    writes.add(change.first.file, std::move(change.second));
    changes.push_back(std::move(change.first));
  };
  if (!targets.expectations.empty()) {
    TIDEMARK_CHECK(needs_summary("--expectations"));
    TIDEMARK_TRY(change, expectations_change(report_dir, *summary, targets.expectations));
    if (change) add(std::move(*change));
  }
  if (!targets.ledger.empty()) {
    if (!has_red_once)
      return refuse(report_dir, "--ledger needs red-once.json (tidemark red-once --report), and the folder has none");
    TIDEMARK_TRY(document, report::read_red_once_document(report_dir / "red-once.json"));
    TIDEMARK_TRY(change, ledger_change(report_dir, document, targets.ledger));
    if (change) add(std::move(*change));
  }
  if (targets.goldens) {
    TIDEMARK_CHECK(needs_summary("--goldens"));
    TIDEMARK_TRY(goldens, golden_changes(report_dir, *summary));
    for (auto& change : goldens) {
      TIDEMARK_CHECK(outside_report(report_dir, change.first.file, "--goldens"));
      add(std::move(change));
    }
  }
  if (!targets.baseline.empty()) {
    TIDEMARK_CHECK(needs_summary("--baseline"));
    std::vector<report::RunRecord> baseline_records;
    TIDEMARK_TRY(change, baseline_change(*summary, targets.baseline, baseline_records));
    changes.push_back(std::move(change));
    report::add_summary(writes, targets.baseline, summary->origin, std::move(baseline_records));
  }
  // A batch that fails leaves every file as it was.
  if (auto written = targets.dry_run ? writes.check() : writes.commit(); !written)
    return fail(written.error().kind,
                fmt::format("rebase {}: {}; nothing was changed", report_dir.string(), written.error().message));
  return changes;
}

}  // namespace tidemark::rebase
