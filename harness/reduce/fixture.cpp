#include "reduce/fixture.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/files.h"
#include "reduce/scenario_text.h"
#include "runner/verbs/fixture.h"
#include "runner/verbs/red_once.h"
#include "wire/recording.h"

namespace tidemark::reduce {

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
std::string control_section(const Bug& bug, const std::vector<std::string>& red) {
  std::string out = "controls:\n";
  std::string lead = "  - ";
  if (!bug.mutant.empty()) {
    out += lead + "mutant: " + bug.mutant + "\n";
    lead = "    ";
  }
  if (!bug.knobs.empty()) {
    std::vector<std::string> pairs;
    for (const auto& [name, value] : bug.knobs) pairs.push_back(fmt::format("{}: {}", name, value));
    out += lead + fmt::format("knobs: {{{}}}\n", fmt::join(pairs, ", "));
    lead = "    ";
  }
  std::vector<std::string> fails;
  for (const auto& check : red) fails.push_back(yaml_quoted(check));
  out += lead + fmt::format("fails: [{}]\n", fmt::join(fails, ", "));
  return out;
}

std::string bug_words(const Bug& bug) {
  std::vector<std::string> parts;
  if (!bug.mutant.empty()) parts.push_back(fmt::format("`{}`", bug.mutant));
  for (const auto& [name, value] : bug.knobs) parts.push_back(fmt::format("`{}={}`", name, value));
  return fmt::format("{}", fmt::join(parts, " and "));
}

// The input's name as the fixture's comment and README show it: quoted with escapes when it holds
// a control character, so a newline in a file name cannot start a YAML key or a Markdown block.
std::string shown_name(const std::string& input) {
  const bool plain =
      std::ranges::none_of(input, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  return plain ? input : fmt::format("{:?}", input);
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

}  // namespace

Result<std::string> fixture_text(const Reduction& reduced, const std::string& input, const Bug& bug,
                                 const std::string& check) {
  TIDEMARK_TRY(body, ScenarioText::parse(reduced.text));
  std::string text = fmt::format(
      "# Reduced by `tidemark reduce` from {}\n# ({} steps, {} calls; now {} steps, {} calls). Under {}\n"
      "# the check `{}` is red; without it the whole run is green.\n",
      shown_name(input), reduced.steps_before, reduced.calls_before, reduced.done.steps, reduced.done.calls,
      bug_words(bug), shown_name(check));
  text += reduced.text.substr(body.leading_comments().end);
  if (!text.ends_with("\n")) text += "\n";
  return text + control_section(bug, reduced.red_checks);
}

Status check_fixture_folder(const fs::path& out, const std::string& name) {
  std::error_code error;
  const auto status = fs::status(out, error);
  if (!fs::exists(status)) return {};
  if (!fs::is_directory(status))
    return fail(ErrorKind::BadInput,
                fmt::format("reduce: --out {}: expected a folder for the fixture, found a file", out.string()));
  const fs::path yaml = out / (name + ".yaml");
  if (fs::exists(yaml, error))
    return fail(ErrorKind::BadInput, fmt::format("reduce: {} exists already", yaml.string()));
  for (const auto& entry : fs::directory_iterator(out, error)) {
    const fs::path& file = entry.path();
    if (file.extension() == ".yaml" || file.extension() == ".yml" || file.filename() == "ledger.txt")
      return fail(ErrorKind::BadInput,
                  fmt::format("reduce: --out {}: expected a new folder for the fixture {}, found another fixture's "
                              "files there ({}): nothing of it is overwritten",
                              out.string(), name, file.filename().string()));
  }
  return {};
}

Status write_fixture(const fs::path& out, const std::string& text, const scenario::Scenario& fixture,
                     const Reduction& reduced, const std::string& input, const Bug& bug,
                     const std::vector<std::string>& ledger_rows, const fs::path& ledger) {
  TIDEMARK_CHECK(check_fixture_folder(out, fixture.name));
  const fs::path yaml = out / (fixture.name + ".yaml");
  TIDEMARK_CHECK(make_directories(out));
  std::string ledger_text, reds;
  for (const auto& row : ledger_rows) {
    ledger_text += row + "\n";
    reds += "    " + row + "\n";
  }
  TIDEMARK_CHECK(write_file_atomically(yaml, text));
  TIDEMARK_CHECK(write_file_atomically(out / "ledger.txt", ledger_text));
  if (!fs::exists(out / "README.md")) {
    std::string mechanism = fmt::format(
        "Reduced by `tidemark reduce` from `{}` ({} steps, {} calls) to\n{} steps ({} calls) that stay red under the "
        "bug and green under the fix:\n\n{}\n<why each step is needed>",
        shown_name(input), reduced.steps_before, reduced.calls_before, reduced.done.steps, reduced.done.calls,
        step_lines(fixture));
    std::string red = fmt::format("Under {}, {} fails in every lane (the ledger's rows):\n\n{}", bug_words(bug),
                                  fmt::join(reduced.red_checks, ", "), reds);
    red.pop_back();  // the template ends the section's line
    TIDEMARK_CHECK(
        write_file_atomically(out / "README.md", runner::fixture_readme(out.filename().string(), mechanism, red)));
  }
  if (ledger.empty()) return {};
  TIDEMARK_TRY(lines, runner::read_ledger(ledger));
  const std::string subject = fixture.id() + " | ";
  std::vector<std::string> merged;
  for (const auto& line : lines)
    if (!line.starts_with(subject)) merged.push_back(line);
  merged.insert(merged.end(), ledger_rows.begin(), ledger_rows.end());
  return runner::write_ledger(ledger, merged);
}

Result<scenario::Scenario> recorded_scenario(const fs::path& recording, const std::string& given) {
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

}  // namespace tidemark::reduce
