#include "runner/red_once.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/digest.h"
#include "core/files.h"
#include "report/red_once_record.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace tidemark::runner {

namespace {

const check::Outcome* find_outcome(const RunResult& result, const scenario::CheckId& id) {
  for (const auto& outcome : result.outcomes)
    if (outcome.id == id) return &outcome;
  return nullptr;
}

std::string name_of(const scenario::Scenario& scenario) { return scenario.id(); }

std::string failed_list(const RunResult& result) {
  std::vector<std::string> failed;
  for (const auto& outcome : result.outcomes)
    if (!outcome.passed) failed.push_back(fmt::format("`{}` ({})", outcome.text, outcome.detail));
  return failed.empty() ? "nothing" : fmt::format("{}", fmt::join(failed, "; "));
}

RunOptions run_options_for(const RedOnceOptions& options, Lane lane, const std::string& folder) {
  RunOptions run_options;
  run_options.report_dir = options.report_dir.empty() ? std::filesystem::path() : options.report_dir / folder;
  run_options.lane = options.lane_template;
  run_options.lane.lane = lane;
  return run_options;
}

// The verdict on one control's run against what it must turn red; `measured` gets the ledger
// values (red and green) of each expected check when the verdict is Red.
void judge(const Result<RunResult>& red, const RunResult& green, const std::set<scenario::CheckId>& expected,
           ControlRun& control_run) {
  if (!red) {
    control_run.verdict = ControlRun::Verdict::WrongRed;
    control_run.detail = "the run could not start: " + red.error().message;
    return;
  }
  if (red->error) {
    control_run.verdict = ControlRun::Verdict::WrongRed;
    control_run.detail = "the run failed instead of a check: " + red->error->message;
    return;
  }
  std::set<scenario::CheckId> failed;
  for (const auto& outcome : red->outcomes)
    if (!outcome.passed) failed.insert(outcome.id);
  if (failed.empty()) {
    control_run.verdict = ControlRun::Verdict::StayedGreen;
    control_run.detail = "stayed green";
    return;
  }
  if (failed != expected) {
    std::vector<std::string> wanted;
    for (const auto& id : expected) wanted.push_back(id.str());
    control_run.verdict = ControlRun::Verdict::WrongRed;
    control_run.detail =
        fmt::format("expected exactly {} to fail, but failed: {}", fmt::join(wanted, ", "), failed_list(*red));
    return;
  }
  control_run.verdict = ControlRun::Verdict::Red;
  std::vector<std::string> values;
  for (const auto& id : expected) {
    const check::Outcome* red_outcome = find_outcome(*red, id);
    const check::Outcome* green_outcome = find_outcome(green, id);
    values.push_back(red_outcome->detail);
    control_run.measured.push_back(fmt::format("{} | red {} | green {}", red_outcome->text, red_outcome->detail,
                                               green_outcome ? green_outcome->detail : "(not run)"));
  }
  control_run.detail = fmt::format("red: {}", fmt::join(values, "; "));
}

// One control in one lane: skipped with its reason, or run and judged.
ControlRun run_control(const scenario::Scenario& scenario, const scenario::Control& control, Lane lane,
                       const RunResult& green, const RedOnceOptions& options) {
  ControlRun control_run;
  control_run.control = scenario::describe_control(control);
  control_run.lane = std::string(lane_name(lane));
  if (auto skip = control.skip_lanes.find(control_run.lane); skip != control.skip_lanes.end()) {
    control_run.verdict = ControlRun::Verdict::Skipped;
    control_run.detail = "skipped: " + skip->second;
    control_run.measured.push_back(control_run.detail);
    return control_run;
  }
  std::string folder = control_run.control;
  std::replace_if(
      folder.begin(), folder.end(),
      [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_'; }, '-');
  RunOptions run_options = run_options_for(options, lane, folder);
  run_options.mutant = control.mutant;
  run_options.knob_overrides = control.knobs;
  judge(run(scenario, run_options), green, {control.fails.begin(), control.fails.end()}, control_run);
  if (control_run.verdict == ControlRun::Verdict::WrongRed)
    control_run.measured.push_back("wrong red: " + control_run.detail);
  if (control_run.verdict == ControlRun::Verdict::StayedGreen) control_run.measured.push_back("stayed green");
  return control_run;
}

}  // namespace

std::string_view verdict_label(ControlRun::Verdict verdict) {
  switch (verdict) {
    case ControlRun::Verdict::Red:
      return "RED (as required)";
    case ControlRun::Verdict::StayedGreen:
      return "stayed green";
    case ControlRun::Verdict::WrongRed:
      return "WRONG RED";
    case ControlRun::Verdict::Skipped:
      return "skipped";
  }
  return "?";
}

Result<RedOnceReport> red_once(const scenario::Scenario& scenario, const RedOnceOptions& options) {
  RedOnceReport report;
  report.scenario = name_of(scenario);
  for (Lane lane : options.lanes) report.lanes.emplace_back(lane_name(lane));
  std::map<Lane, RunResult> green_by_lane;
  for (Lane lane : options.lanes) {
    TIDEMARK_TRY(green, run(scenario, run_options_for(options, lane, "green")));
    if (!green.passed()) {
      report.green_ok = false;
      std::string why = green.error ? green.error->message : failed_list(green);
      report.problems.push_back(
          fmt::format("{} [{}]: the green run is red: {}", report.scenario, lane_name(lane), why));
    }
    green_by_lane.emplace(lane, std::move(green));
  }
  for (const auto& control : scenario.controls) {
    bool killed = false;
    for (Lane lane : options.lanes) {
      ControlRun control_run = run_control(scenario, control, lane, green_by_lane.at(lane), options);
      killed = killed || control_run.verdict == ControlRun::Verdict::Red;
      if (control_run.verdict == ControlRun::Verdict::WrongRed)
        report.problems.push_back(fmt::format("{} [{}] {}: wrong red: {}", report.scenario, control_run.lane,
                                              control_run.control, control_run.detail));
      report.runs.push_back(std::move(control_run));
    }
    if (!killed)
      report.problems.push_back(fmt::format("{} {}: went red in no lane — the checks it names never failed under it",
                                            report.scenario, scenario::describe_control(control)));
  }
  return report;
}

std::vector<std::string> ledger_lines(const RedOnceReport& report) {
  std::vector<std::string> lines;
  for (const auto& run : report.runs)
    for (const auto& measured : run.measured)
      lines.push_back(fmt::format("{} | {} | {} | {}", report.scenario, run.control, run.lane, measured));
  std::sort(lines.begin(), lines.end());
  return lines;
}

Result<std::vector<std::string>> read_ledger(const std::filesystem::path& file) {
  TIDEMARK_TRY(text, read_file_if_present(file, "ledger"));
  std::vector<std::string> lines;
  if (!text) return lines;  // no ledger yet: every line is new
  std::istringstream in(std::move(*text));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  return lines;
}

std::string ledger_text(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
  std::string text =
      "# Red-once ledger: scenario | control | lane | check | red value | green value.\n"
      "# Written by `tidemark red-once --update-ledger`; CTest (label red-once) fails on drift.\n";
  for (const auto& line : lines) text += line + '\n';
  return text;
}

Status write_ledger(const std::filesystem::path& file, std::vector<std::string> lines) {
  return write_file_atomically(file, ledger_text(std::move(lines)));
}

bool covers(const RedOnceReport& report, const std::string& ledger_line) {
  // "<scenario> | <control> | <lane> | ..."
  const std::string prefix = report.scenario + " | ";
  if (!ledger_line.starts_with(prefix)) return false;
  const size_t control_end = ledger_line.find(" | ", prefix.size());
  if (control_end == std::string::npos) return false;
  const size_t lane_begin = control_end + 3;
  const size_t lane_end = ledger_line.find(" | ", lane_begin);
  const std::string_view lane = std::string_view(ledger_line).substr(lane_begin, lane_end - lane_begin);
  return std::find(report.lanes.begin(), report.lanes.end(), lane) != report.lanes.end();
}

std::vector<std::string> ledger_drift(const RedOnceReport& report, const std::vector<std::string>& ledger) {
  std::vector<std::string> recorded;
  for (const auto& line : ledger)
    if (covers(report, line)) recorded.push_back(line);
  std::sort(recorded.begin(), recorded.end());
  std::vector<std::string> measured = ledger_lines(report);
  std::vector<std::string> problems;
  for (const auto& line : measured)
    if (!std::binary_search(recorded.begin(), recorded.end(), line)) problems.push_back("not in the ledger: " + line);
  for (const auto& line : recorded)
    if (!std::binary_search(measured.begin(), measured.end(), line))
      problems.push_back("in the ledger, not measured: " + line);
  return problems;
}

std::vector<std::string> replace_ledger_lines(const std::vector<std::string>& ledger,
                                              const std::vector<RedOnceReport>& measured,
                                              std::vector<std::string> lines) {
  for (const auto& line : ledger)
    if (std::none_of(measured.begin(), measured.end(), [&](const auto& again) { return covers(again, line); }))
      lines.push_back(line);
  return lines;
}

Result<RedOnceSet> red_once_set(const std::vector<scenario::Scenario>& scenarios, const RedOnceSetOptions& options) {
  TIDEMARK_TRY(ledger, read_ledger(options.ledger));
  RedOnceSet set{.scenarios = scenarios.size()};
  std::vector<std::string> updated;
  std::vector<RedOnceReport> measured;  // scenario and lanes only: which ledger lines were measured again
  report::RedOnceDocument document;     // red-once.json: what `rebase` brings a ledger up to
  for (const auto& scenario : scenarios) {
    if (options.on_start) options.on_start(scenario);
    RedOnceReport report;
    report::RedOnceRecord& record = document.scenarios.emplace_back();
    record.file = scenario.file.string();
    if (auto text = read_file_if_present(scenario.file, "scenario"); text && *text)
      record.scenario_hash = trace_hash(**text);
    if (scenario.controls.empty()) {
      report.scenario = scenario.id();
      report.problems.push_back("no controls (a green that never went red proves nothing)");
      record.problems = report.problems;
    } else {
      TIDEMARK_TRY(ran, red_once(scenario, options.run));
      report = std::move(ran);
      record.problems = report.problems;  // before drift: a drift is what rebase brings the ledger up to
      if (!options.update_ledger)
        for (auto& drift : ledger_drift(report, ledger)) report.problems.push_back("ledger drift: " + drift);
      auto lines = ledger_lines(report);
      record.lines = lines;
      updated.insert(updated.end(), lines.begin(), lines.end());
      measured.push_back({.scenario = report.scenario, .lanes = report.lanes});
    }
    record.scenario = report.scenario;
    record.lanes = report.lanes;
    if (!report.passed()) ++set.failed;
    if (options.on_done) options.on_done(report);
  }
  if (!options.run.report_dir.empty()) {
    TIDEMARK_CHECK(make_directories(options.run.report_dir));
    TIDEMARK_CHECK(report::write_red_once_document(options.run.report_dir / "red-once.json", document));
  }
  if (options.update_ledger) {
    TIDEMARK_CHECK(write_ledger(options.ledger, replace_ledger_lines(ledger, measured, std::move(updated))));
    set.ledger_written = true;
  }
  return set;
}

}  // namespace tidemark::runner
