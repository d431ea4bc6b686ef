#include "runner/verbs/red_once.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/digest.h"
#include "core/files.h"
#include "report/red_once_record.h"
#include "session/builtin_backends.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace tidemark::runner {

namespace {

const report::CheckRecord* find_check(const report::RunRecord& record, const std::string& id) {
  for (const auto& check : record.checks)
    if (check.id == id) return &check;
  return nullptr;
}

std::string failed_list(const report::RunRecord& record) {
  std::vector<std::string> failed;
  for (const auto& check : record.checks)
    if (!check.passed) failed.push_back(fmt::format("`{}` ({})", check.check, check.detail));
  return failed.empty() ? "nothing" : fmt::format("{}", fmt::join(failed, "; "));
}

// The run itself did not complete: a step or its replay failed, a process of it crashed, its
// device was lost, or it passed a time limit.
bool run_failed(report::Verdict verdict) {
  return verdict == report::Verdict::CouldNotRun || verdict == report::Verdict::Crash ||
         verdict == report::Verdict::DeviceLost || verdict == report::Verdict::Timeout;
}

// What a run that is not green says: the error, or what failed.
std::string not_green(const report::RunRecord& record) {
  if (run_failed(record.verdict) || record.verdict == report::Verdict::NotJudged)
    return fmt::format("{}: {}", report::verdict_name(record.verdict), record.why);
  return failed_list(record);
}

// The lanes a subject's controls run in: the asked ones, or none of Tidemark's for a replay.
std::vector<std::string> lanes_of(const Subject& subject, const RedOnceOptions& options) {
  std::vector<std::string> lanes;
  if (!subject.info().in_lanes) return {std::string(kNoLane)};
  for (Lane lane : options.lanes) lanes.emplace_back(lane_name(lane));
  return lanes;
}

RunOptions run_options_for(const RedOnceOptions& options, const std::string& lane, const std::string& folder) {
  RunOptions run_options = options.run;
  run_options.report_dir = options.run.report_dir.empty() ? std::filesystem::path() : options.run.report_dir / folder;
  if (auto parsed = parse_lane(lane)) run_options.column.lane.lane = *parsed;
  return run_options;
}

}  // namespace

std::vector<std::string> turned_red(const report::RunRecord& red, const report::RunRecord& green) {
  std::vector<std::string> failed = failed_checks(red);
  if (green.verdict != report::Verdict::ExpectedRed) return failed;
  const std::vector<std::string> known = failed_checks(green);
  if (red.verdict == report::Verdict::Red && failed == known) return failed;  // "known failure got worse"
  std::erase_if(failed,
                [&](const std::string& id) { return std::find(known.begin(), known.end(), id) != known.end(); });
  return failed;
}

std::vector<std::string> checks_to_turn(const std::vector<std::string>& named, const std::vector<std::string>& turned,
                                        const report::RunRecord& green) {
  const std::vector<std::string> known =
      green.verdict == report::Verdict::ExpectedRed ? failed_checks(green) : std::vector<std::string>();
  std::vector<std::string> wanted;
  for (const std::string& id : named)
    if (std::find(turned.begin(), turned.end(), id) != turned.end() ||
        std::find(known.begin(), known.end(), id) == known.end())
      wanted.push_back(id);
  return wanted;
}

namespace {

// The effect of one control's run against what it must turn red; `measured` gets the ledger
// values (red and green) of each expected check when it went red as named.
void judge(const Result<report::RunRecord>& red, const report::RunRecord& green, const SubjectControl& control,
           ControlRun& control_run) {
  if (!red) {
    control_run.effect = ControlRun::Effect::WrongRed;
    control_run.detail = "the run could not start: " + red.error().message;
    return;
  }
  const bool stopped = run_failed(red->verdict) || red->verdict == report::Verdict::NotJudged;
  if (control.run_fails) {  // the run itself must not complete: it failed, or hung until its limit
    if (run_failed(red->verdict)) {
      control_run.effect = ControlRun::Effect::RedAsNamed;
      control_run.detail = "red: " + red->why;
      control_run.measured.push_back(
          fmt::format("replay | red {} | green {}", red->why, report::verdict_name(green.verdict)));
    } else {
      control_run.effect = stopped ? ControlRun::Effect::WrongRed : ControlRun::Effect::StayedGreen;
      control_run.detail = fmt::format("expected the run to fail, found {}", not_green(*red));
    }
    return;
  }
  if (stopped) {
    control_run.effect = ControlRun::Effect::WrongRed;
    control_run.detail = "the run failed instead of a check: " + red->why;
    return;
  }
  std::vector<std::string> failed = turned_red(*red, green);
  if (failed.empty()) {
    control_run.effect = ControlRun::Effect::StayedGreen;
    control_run.detail = red->verdict == report::Verdict::ExpectedRed
                             ? "stayed at its known failure (no check beyond the expectations line's red, none worse "
                               "than its values)"
                             : "stayed green";
    return;
  }
  const std::vector<std::string> named = checks_to_turn(control.fails, failed, green);
  std::vector<std::string> wanted = named;
  std::sort(failed.begin(), failed.end());
  std::sort(wanted.begin(), wanted.end());
  if (failed != wanted) {
    control_run.effect = ControlRun::Effect::WrongRed;
    control_run.detail =
        fmt::format("expected exactly {} to fail, but failed: {}", fmt::join(named, ", "), failed_list(*red));
    return;
  }
  control_run.effect = ControlRun::Effect::RedAsNamed;
  std::vector<std::string> values;
  for (const auto& id : named) {
    const report::CheckRecord* red_check = find_check(*red, id);
    const report::CheckRecord* green_check = find_check(green, id);
    values.push_back(red_check->detail);
    // A check the green run failed as a known failure: its green value is the line's, held.
    const std::string green_value = !green_check          ? "(not run)"
                                    : green_check->passed ? green_check->detail
                                                          : "known failure: " + green_check->detail;
    control_run.measured.push_back(
        fmt::format("{} | red {} | green {}", red_check->check, red_check->detail, green_value));
  }
  control_run.detail = fmt::format("red: {}", fmt::join(values, "; "));
}

// One control in one lane: skipped with its reason, or run and judged.
ControlRun run_control(const Subject& subject, const SubjectControl& control, const std::string& lane,
                       const report::RunRecord& green, const RedOnceOptions& options) {
  ControlRun control_run;
  control_run.control = control.label;
  control_run.lane = lane;
  if (auto skip = control.skip_lanes.find(control_run.lane); skip != control.skip_lanes.end()) {
    control_run.effect = ControlRun::Effect::Skipped;
    control_run.detail = "skipped: " + skip->second;
    control_run.measured.push_back(control_run.detail);
    return control_run;
  }
  std::string folder = control_run.control;
  std::replace_if(
      folder.begin(), folder.end(),
      [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_'; }, '-');
  RunOptions run_options = run_options_for(options, lane, folder);
  run_options.variant = control.variant;
  if (!control.build.empty()) run_options.column.build = control.build;
  run_options.repeat = 1;
  judge(run(subject, run_options), green, control, control_run);
  if (control_run.effect == ControlRun::Effect::WrongRed)
    control_run.measured.push_back("wrong red: " + control_run.detail);
  if (control_run.effect == ControlRun::Effect::StayedGreen) control_run.measured.push_back("stayed green");
  return control_run;
}

}  // namespace

std::string_view effect_label(ControlRun::Effect effect) {
  switch (effect) {
    case ControlRun::Effect::RedAsNamed:
      return "RED (as required)";
    case ControlRun::Effect::StayedGreen:
      return "stayed green";
    case ControlRun::Effect::WrongRed:
      return "WRONG RED";
    case ControlRun::Effect::Skipped:
      return "skipped";
  }
  return "?";
}

Result<RedOnceReport> red_once(const Subject& subject, const RedOnceOptions& options) {
  RedOnceReport report;
  // The column names the ledger's lines: "group/name" on the subject's own backend, else
  // "group/name@gl@virgl-zink-22.3.6" as its test names end.
  const std::string own = subject.info().backends.front();
  const std::string backend = options.run.column.backend.empty() ? own : options.run.column.backend;
  TIDEMARK_TRY(build, build_of(options.run));
  report.scenario = subject.info().id + column_suffix(own, backend, build);
  report.backend = report::Column{backend, build}.text();
  const api::BackendRegistry& registry =
      options.run.column.lane.backends ? *options.run.column.lane.backends : session::builtin_backends();
  const api::BackendEntry* entry = registry.find(backend);
  const std::string stands_for = stands_for_among(subject.info().backends, backend, entry ? entry->stands_for : "");
  std::vector<SubjectControl> controls = subject.info().controls;
  std::erase_if(controls, [&](const auto& control) { return !control_applies(control, backend, stands_for); });
  if (controls.empty()) {
    const auto unproven = subject.info().unproven;
    auto why = unproven.find(backend);
    if (why == unproven.end()) why = unproven.find(stands_for);
    if (why != unproven.end())
      report.unproven = why->second;
    else
      report.problems.push_back(
          fmt::format("{}: no control proves its checks on {} (a green that never went red "
                      "proves nothing): name one, or the backend under unproven: with why",
                      report.scenario, report.backend));
  }
  report.lanes = lanes_of(subject, options);
  std::map<std::string, report::RunRecord> green_by_lane;
  for (const auto& lane : report.lanes) {
    RunOptions green_options = run_options_for(options, lane, "green");
    green_options.repeat = 1;
    TIDEMARK_TRY(green, run(subject, green_options));
    // A known failure's green run is its expectations line, held: the reference its controls worsen.
    if (green.verdict != report::Verdict::Green && green.verdict != report::Verdict::ExpectedRed) {
      report.green_ok = false;
      report.problems.push_back(fmt::format("{} [{}]: the green run is red: {}", report.scenario, lane,
                                            green.why.empty() ? failed_list(green) : green.why));
    }
    report.greens.push_back(green);
    green_by_lane.emplace(lane, std::move(green));
  }
  for (const auto& control : controls) {
    bool killed = false;
    for (const auto& lane : report.lanes) {
      ControlRun control_run = run_control(subject, control, lane, green_by_lane.at(lane), options);
      killed = killed || control_run.effect == ControlRun::Effect::RedAsNamed;
      if (control_run.effect == ControlRun::Effect::WrongRed)
        report.problems.push_back(fmt::format("{} [{}] {}: wrong red: {}", report.scenario, control_run.lane,
                                              control_run.control, control_run.detail));
      report.runs.push_back(std::move(control_run));
    }
    if (!killed)
      report.problems.push_back(fmt::format("{} {}: went red in no lane — the checks it names never failed under it",
                                            report.scenario, control.label));
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

Result<RedOnceSet> red_once_set(const Subjects& subjects, const RedOnceSetOptions& options) {
  TIDEMARK_TRY(ledger, read_ledger(options.ledger));
  RedOnceSet set{.scenarios = subjects.size()};
  std::vector<std::string> updated;
  std::vector<RedOnceReport> measured;  // subject and lanes only: which ledger lines were measured again
  report::RedOnceDocument document;     // red-once.json: what `rebase` brings a ledger up to
  const std::filesystem::path& report_dir = options.red_once.run.report_dir;
  for (const auto& subject : subjects) {
    if (options.on_start) options.on_start(*subject);
    RedOnceReport report;
    report::RedOnceRecord& record = document.scenarios.emplace_back();
    record.file = subject->info().file.string();
    TIDEMARK_TRY(hash, content_hash(subject->info()));
    record.scenario_hash = std::move(hash);
    if (subject->info().controls.empty()) {
      report.scenario = subject->info().id;
      report.problems.push_back("no controls (a green that never went red proves nothing)");
      record.problems = report.problems;
    } else {
      TIDEMARK_TRY(ran, red_once(*subject, options.red_once));
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
    set.greens.insert(set.greens.end(), report.greens.begin(), report.greens.end());
    if (!report.passed()) ++set.failed;
    if (report.passed() && !report.unproven.empty()) ++set.unproven;
    if (options.on_done) options.on_done(report);
  }
  if (!report_dir.empty()) {
    TIDEMARK_CHECK(make_directories(report_dir));
    TIDEMARK_CHECK(report::write_red_once_document(report_dir / "red-once.json", document));
  }
  if (options.update_ledger) {
    TIDEMARK_CHECK(write_ledger(options.ledger, replace_ledger_lines(ledger, measured, std::move(updated))));
    set.ledger_written = true;
  }
  return set;
}

}  // namespace tidemark::runner
