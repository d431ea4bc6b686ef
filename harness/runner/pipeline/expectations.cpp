#include "runner/pipeline/expectations.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "core/files.h"
#include "drivers/driver_builds.h"
#include "core/gauges.h"
#include "runner/pipeline/build_runs.h"
#include "report/baseline.h"

namespace tidemark::runner {

namespace {

std::unexpected<Error> at(const std::filesystem::path& file, int line, size_t column, std::string_view expected,
                          std::string_view found) {
  return fail(ErrorKind::BadInput,
              fmt::format("{}: expected {}, found {}",
                          format_location({file.string(), line, static_cast<int>(column) + 1}), expected, found));
}

}  // namespace

Result<std::vector<Expectation>> load_expectations(const std::filesystem::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "expectations"));
  return parse_expectations(text, file);
}

Result<std::vector<Expectation>> parse_expectations(std::string_view text, const std::filesystem::path& file) {
  std::vector<Expectation> out;
  std::map<std::pair<std::string, std::string>, int> first_line;  // (backend[@build], scenario) -> its line
  std::istringstream lines{std::string(text)};
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with CRLF line ends
    size_t hash = line.find('#');
    std::string body = line.substr(0, hash);
    if (body.find_first_not_of(" \t") == std::string::npos) continue;  // a comment or a blank line
    std::vector<std::pair<std::string, size_t>> words;
    for (size_t at_column = 0; (at_column = body.find_first_not_of(" \t", at_column)) != std::string::npos;) {
      size_t end = body.find_first_of(" \t", at_column);
      words.emplace_back(body.substr(at_column, end - at_column), at_column);
      at_column = end == std::string::npos ? body.size() : end;
    }
    if (words.size() < 3)
      return at(file, number, words.empty() ? 0 : words.back().second,
                "backend, group/name, check ids and any gauge=value measured",
                fmt::format("{} field{}", words.size(), words.size() == 1 ? "" : "s"));
    if (words[1].first.find('/') == std::string::npos)
      return at(file, number, words[1].second, "a scenario as group/name", fmt::format("'{}'", words[1].first));
    std::string reason = hash == std::string::npos ? "" : line.substr(hash + 1);
    reason.erase(0, reason.find_first_not_of(" \t"));
    if (reason.empty()) return at(file, number, line.size(), "'# why', with the value measured", "no reason");
    Expectation e{
        .backend = words[0].first, .scenario = words[1].first, .reason = reason, .where = {file.string(), number, 1}};
    if (e.backend.find('@') != std::string::npos) {
      const report::Column column = report::Column::parse(e.backend);
      e.backend = column.backend;
      e.build = column.build;
      if (e.backend.empty() || e.build.empty() || !drivers::valid_build_name(e.build))
        return at(file, number, words[0].second, "BACKEND or BACKEND@BUILD", fmt::format("'{}'", words[0].first));
    }
    for (size_t k = 3; k < words.size(); ++k) {
      const auto& [word, column] = words[k];
      const size_t equals = word.find('=');
      const std::string gauge = word.substr(0, equals);
      if (equals == std::string::npos || !worse_direction(gauge))
        return at(file, number, column, "a measured value as GAUGE=VALUE with a gauge of the catalogues",
                  fmt::format("'{}'", word));
      int64_t value = 0;
      const char* first = word.data() + equals + 1;
      const char* last = word.data() + word.size();
      auto [end, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || end != last || first == last)
        return at(file, number, column + equals + 1, fmt::format("a whole number for {}", gauge),
                  fmt::format("'{}'", word.substr(equals + 1)));
      if (std::ranges::any_of(e.values, [&](const auto& known) { return known.first == gauge; }))
        return at(file, number, column, "each gauge once", fmt::format("{} again", gauge));
      e.values.emplace_back(gauge, value);
    }
    std::stringstream ids(words[2].first);
    for (std::string id; std::getline(ids, id, ',');)
      // "check[K]": a capture fixture's Kth check as lines named it before captures shared the
      // scenarios' ids (its checks are gauge bounds); no scenario has a check of that name.
      e.checks.push_back(id.starts_with("check[") ? "gauge[" + id.substr(6) : id);
    std::sort(e.checks.begin(), e.checks.end());
    // A map, not a scan of the lines so far: a scan's time grows with the square of the file.
    if (auto [first, added] = first_line.try_emplace({words[0].first, e.scenario}, number); !added)
      return at(file, number, 0, "one line per backend (and build) and scenario",
                fmt::format("{} {} again (first on line {})", words[0].first, e.scenario, first->second));
    out.push_back(std::move(e));
  }
  return out;
}

const Expectation* find_expectation(const std::vector<Expectation>& expectations, const std::string& backend,
                                    const scenario::Scenario& scenario, const std::string& build) {
  return find_expectation(expectations, backend, scenario.id(), build);
}

const Expectation* find_expectation(const std::vector<Expectation>& expectations, const std::string& backend,
                                    const std::string& id, const std::string& build) {
  const Expectation* any_build = nullptr;
  for (const auto& e : expectations) {
    if (e.backend != backend || e.scenario != id) continue;
    if (e.build.empty())
      any_build = &e;
    else if (e.build == build)
      return &e;
  }
  return any_build;
}

namespace {

// An expected red holds its measured values: worse than one of them (the catalogue's direction)
// is red; better, or a work count that moved, is said so that the line can be brought up to date.
void hold_to_measured_values(const Expectation& expected, JudgedRun& result) {
  std::vector<std::string> worse, moved;
  for (const auto& [gauge, value] : expected.values) {
    const std::optional<int64_t> now = result.gauge(gauge);
    if (!now) {
      worse.push_back(fmt::format("{} {} -> not measured by this run", gauge, value));
      continue;
    }
    const report::Movement movement = report::judge_gauge(gauge, value, *now, {});
    const std::string change = fmt::format("{} {} -> {} ({})", gauge, value, *now, report::change_text(value, *now));
    if (movement == report::Movement::Worse)
      worse.push_back(change);
    else if (movement != report::Movement::Same)
      moved.push_back(fmt::format("{} {}", change, report::movement_name(movement)));
  }
  if (!worse.empty()) {
    result.verdict = report::Verdict::Red;
    result.why = fmt::format("known failure got worse: {} ({}: {})", fmt::join(worse, "; "),
                             format_location(expected.where), expected.reason);
  } else if (!moved.empty()) {
    result.why +=
        fmt::format(" [measured values moved: {}; update {}]", fmt::join(moved, "; "), format_location(expected.where));
  }
}

// The verdicts a line may name in place of check ids, and how a run it holds for is told.
struct NamedVerdict {
  report::Verdict verdict;
  std::string_view word;
  std::string_view told;
};
constexpr NamedVerdict kNamedVerdicts[] = {{report::Verdict::NotJudged, kNotJudged, "not judged"},
                                           {report::Verdict::Crash, kCrash, "crashed"},
                                           {report::Verdict::DeviceLost, kDeviceLost, "device lost"},
                                           {report::Verdict::Timeout, kTimeout, "timed out"},
                                           {report::Verdict::Flaky, kFlaky, "flaky"}};

}  // namespace

bool says(const Expectation& expected, std::string_view word) {
  return expected.checks.size() == 1 && expected.checks.front() == word;
}

bool names_a_verdict(const Expectation& expected) {
  // `skip` names no verdict of a run: a run it holds for is never made (runner/pipeline/subject.h's skipped_run).
  return says(expected, kSkip) || std::any_of(std::begin(kNamedVerdicts), std::end(kNamedVerdicts),
                                              [&](const NamedVerdict& named) { return says(expected, named.word); });
}

// An expected failure holds when the run is red on exactly the checks the line names.
void judge_against(const Expectation& expected, JudgedRun result) {
  std::vector<std::string>& failed = result.failed;
  std::sort(failed.begin(), failed.end());
  // A flake need not strike: under a `flaky` line only a flaky run is judged (green stays green, red red).
  if (says(expected, kFlaky) && result.verdict != report::Verdict::Flaky) return;
  auto named = std::find_if(std::begin(kNamedVerdicts), std::end(kNamedVerdicts),
                            [&](const NamedVerdict& each) { return each.verdict == result.verdict; });
  if (named != std::end(kNamedVerdicts)) {
    if (says(expected, named->word)) {
      result.verdict = report::Verdict::ExpectedRed;
      result.why = fmt::format("{}, as {} says ({}): {}", named->told, format_location(expected.where), expected.reason,
                               result.why);
    }
  } else if (result.verdict == report::Verdict::Green) {
    result.verdict = report::Verdict::UnexpectedPass;
    result.why = fmt::format("{}: expected red on {} ({}), found green: remove or mend the line",
                             format_location(expected.where), fmt::join(expected.checks, ", "), expected.reason);
  } else if (result.verdict == report::Verdict::Red && failed == expected.checks) {
    result.verdict = report::Verdict::ExpectedRed;
    result.why = expected.reason;
    hold_to_measured_values(expected, result);
  }
}

}  // namespace tidemark::runner
