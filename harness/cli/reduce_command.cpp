// `tidemark reduce`: a long red scenario cut down and written as a fixture — the scenario, the
// ledger rows of its reds (verified in every lane by red-once) and a README to fill in.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "cli/commands.h"
#include "core/files.h"
#include "core/mutants.h"
#include "reduce/lift.h"
#include "reduce/reducer.h"
#include "reduce/scenario_text.h"
#include "runner/red_once.h"
#include "wire/recording.h"

namespace tidemark::cli {

namespace fs = std::filesystem;

namespace {

std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// The control the result is proven by: the bug, and every check it turns red.
std::string control_section(const ReduceArgs& args, const std::map<std::string, int64_t>& knobs,
                            const std::vector<std::string>& red) {
  std::string out = "controls:\n";
  std::string lead = "  - ";
  if (!args.mutant.empty()) {
    out += lead + "mutant: " + args.mutant + "\n";
    lead = "    ";
  }
  if (!knobs.empty()) {
    std::vector<std::string> pairs;
    for (const auto& [name, value] : knobs) pairs.push_back(fmt::format("{}: {}", name, value));
    out += lead + fmt::format("knobs: {{{}}}\n", fmt::join(pairs, ", "));
    lead = "    ";
  }
  std::vector<std::string> fails;
  for (const auto& check : red) fails.push_back(yaml_quoted(check));
  out += lead + fmt::format("fails: [{}]\n", fmt::join(fails, ", "));
  return out;
}

std::string bug_words(const ReduceArgs& args, const std::map<std::string, int64_t>& knobs) {
  std::vector<std::string> parts;
  if (!args.mutant.empty()) parts.push_back(fmt::format("`{}`", args.mutant));
  for (const auto& [name, value] : knobs) parts.push_back(fmt::format("`{}={}`", name, value));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// What the reduced workload does, one line a step, for the README's mechanism.
std::string step_lines(const scenario::Scenario& scenario) {
  std::string out;
  auto walk = [&](auto& self, const std::vector<scenario::Step>& steps, int depth) -> void {
    for (const auto& step : steps) {
      out += fmt::format("{}- `{}` (line {})\n", std::string(2 * depth, ' '), step.label, step.where.line);
      if (const auto* loop = std::get_if<scenario::Repeat>(step.kind.get())) self(self, loop->steps, depth + 1);
    }
  };
  walk(walk, scenario.workload, 0);
  return out;
}

// The scenario a recording was made from: --scenario, or the file under scenarios/ or
// fixtures/ (from here) whose group/name its header gives.
Result<scenario::Scenario> recording_scenario(const fs::path& recording, const std::string& given) {
  if (!given.empty()) return scenario::load(given);
  TIDEMARK_TRY(reader, wire::RecordingReader::open(recording));
  const std::string& made_from = reader.header().scenario;
  std::vector<fs::path> roots;
  for (const char* root : {"scenarios", "fixtures"})
    if (fs::is_directory(root)) roots.push_back(root);
  TIDEMARK_TRY(files, scenario::collect_files(roots));
  for (const auto& file : files) {
    auto loaded = scenario::load(file);
    if (loaded && loaded->id() == made_from) return loaded;
  }
  return fail(ErrorKind::BadInput, fmt::format("{}: expected the scenario it was made from ({}) under scenarios/ or "
                                               "fixtures/, found none: name it with --scenario",
                                               recording.string(), made_from));
}

}  // namespace

int reduce_command(const ReduceArgs& args) {
  auto knobs = parse_knobs(args.knobs);
  if (!knobs) return report_error(knobs.error());
  if (auto ok = check_mutant_name(args.mutant); !ok) return report_error(ok.error());
  reduce::ReduceOptions options;
  options.check = args.check;
  options.mutant = args.mutant;
  options.knobs = *knobs;
  options.name = args.name;
  options.jobs = args.jobs;
  // Progress on stderr, a line each time the best candidate shrinks or the phase changes.
  std::string last_phase;
  size_t last_steps = 0;
  options.progress = [&](const reduce::Progress& p) {
    if (p.phase == last_phase && p.steps == last_steps) return;
    last_phase = p.phase;
    last_steps = p.steps;
    fmt::print(stderr, "reduce: {:<17} {} steps ({} calls); {} candidates, {} ill-formed (not run), {} runs; {:.1f} s\n",
               p.phase, p.steps, p.calls, p.tried, p.ill_formed, p.runs, p.seconds);
  };
  // A recording is lifted back to its scenario's file, one step a call; a scenario is read.
  const fs::path input(args.input);
  fs::path anchor = input;  // what the text's relative paths are relative to
  std::string source;
  if (input.extension() == ".tdrec") {
    auto made_from = recording_scenario(input, args.scenario);
    if (!made_from) return report_error(made_from.error());
    auto text = read_given_file(made_from->file, "scenario");
    if (!text) return report_error(text.error());
    auto lifted = reduce::lift_recording(input, *made_from, *text);
    if (!lifted) return report_error(lifted.error());
    source = std::move(*lifted);
    anchor = made_from->file;
  } else {
    auto text = read_given_file(input, "scenario");
    if (!text) return report_error(text.error());
    source = std::move(*text);
  }
  auto reduced = reduce::reduce(std::move(source), anchor, options);
  if (!reduced) return report_error(reduced.error());

  // The fixture's file: a header saying where it came from, the reduced body, its control.
  auto body = reduce::ScenarioText::parse(reduced->text);
  if (!body) return report_error(body.error());
  std::string text = fmt::format(
      "# Reduced by `tidemark reduce` from {}\n# ({} steps, {} calls; now {} steps, {} calls). Under {}\n"
      "# the check `{}` is red; without it the whole run is green.\n",
      input.filename().string(), reduced->steps_before, reduced->calls_before, reduced->done.steps,
      reduced->done.calls, bug_words(args, *knobs), args.check);
  text += reduced->text.substr(body->leading_comments().end);
  if (!text.ends_with("\n")) text += "\n";
  text += control_section(args, *knobs, reduced->red_checks);
  auto fixture = scenario::load_text(text, anchor);
  if (!fixture) return report_error({ErrorKind::Fatal, "reduce: the result does not load: " + fixture.error().message});

  // Proven in every lane before anything is written.
  runner::RedOnceOptions proving;
  proving.report_dir = default_report_dir() / "reduce";
  auto proven = runner::red_once(*fixture, proving);
  if (!proven) return report_error(proven.error());
  for (const auto& run : proven->runs) fmt::print("  [{}] {}: {}\n", run.lane, run.control, run.detail);
  if (!proven->passed()) {
    fmt::print("REDUCE FAIL {}/{}: the result is not red-once in every lane\n", fixture->group, fixture->name);
    for (const auto& problem : proven->problems) fmt::print("  {}\n", problem);
    fmt::print("{}", text);
    return kRed;
  }

  const fs::path out = args.out.empty() ? fs::path("fixtures") / fixture->name : fs::path(args.out);
  const fs::path yaml = out / (fixture->name + ".yaml");
  if (fs::exists(yaml)) return report_error({ErrorKind::BadInput, fmt::format("reduce: {} exists already", yaml.string())});
  if (auto made = make_directories(out); !made) return report_error(made.error());
  auto lines = runner::ledger_lines(*proven);
  std::string ledger_text;
  for (const auto& line : lines) ledger_text += line + "\n";
  if (auto wrote = write_file_atomically(yaml, text); !wrote) return report_error(wrote.error());
  if (auto wrote = write_file_atomically(out / "ledger.txt", ledger_text); !wrote) return report_error(wrote.error());
  if (!fs::exists(out / "README.md")) {
    std::string reds;
    for (const auto& line : lines) reds += "    " + line + "\n";
    std::string readme = fmt::format(
        "# {}: <the behaviour the fix guarantees, as a sentence>\n\n"
        "**What the review found.** <the defect, where, and why no test saw it>\n\n"
        "**Mechanism (the fixture's steps).** Reduced by `tidemark reduce` from `{}` ({} steps, {} calls) to\n"
        "{} steps ({} calls) that stay red under the bug and green under the fix:\n\n{}\n<why each step is needed>\n\n"
        "**The fix.** <what changed>\n\n"
        "**What red looks like.** Under {}, {} fails in every lane (the ledger's rows):\n\n{}",
        out.filename().string(), input.filename().string(), reduced->steps_before, reduced->calls_before,
        reduced->done.steps, reduced->done.calls, step_lines(*fixture), bug_words(args, *knobs),
        fmt::join(reduced->red_checks, ", "), reds);
    if (auto wrote = write_file_atomically(out / "README.md", readme); !wrote) return report_error(wrote.error());
  }
  if (!args.ledger.empty()) {
    auto ledger = runner::read_ledger(args.ledger);
    if (!ledger) return report_error(ledger.error());
    std::vector<std::string> merged;
    for (const auto& line : *ledger)
      if (!line.starts_with(proven->scenario + " | ")) merged.push_back(line);
    merged.insert(merged.end(), lines.begin(), lines.end());
    if (auto wrote = runner::write_ledger(args.ledger, merged); !wrote) return report_error(wrote.error());
  }
  fmt::print("REDUCED {}: {} steps ({} calls) from {} ({} calls); {} candidates ({} ill-formed, not run), {} runs, "
             "{:.1f} s; red-once in every lane; wrote {}\n",
             proven->scenario, reduced->done.steps, reduced->done.calls, reduced->steps_before, reduced->calls_before,
             reduced->done.tried, reduced->done.ill_formed, reduced->done.runs, reduced->done.seconds, yaml.string());
  return kGreen;
}

}  // namespace tidemark::cli
