// The tables of docs/scenarios.md are the registries of steps (scenario/steps.h) and check
// kinds (scenario/check_kinds.h), both ways: every entry has one row, with its doc, and no row
// names something the registry lacks.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

#include "scenario/scenario.h"

namespace tidemark::scenario {
namespace {

std::vector<std::string> page_lines() {
  std::ifstream page(TIDEMARK_SCENARIOS_PAGE);
  EXPECT_TRUE(page) << TIDEMARK_SCENARIOS_PAGE;
  std::vector<std::string> lines;
  for (std::string line; std::getline(page, line);) lines.push_back(line);
  return lines;
}

// The rows of every table whose header line starts with `header`, up to the blank line after it.
std::vector<std::string> table_rows(std::string_view header) {
  std::vector<std::string> rows;
  bool in_table = false;
  for (const auto& line : page_lines()) {
    if (line.starts_with(header)) {
      in_table = true;
      continue;
    }
    if (!line.starts_with("|")) in_table = false;  // a table ends at its first line that is not a row
    if (in_table && !line.starts_with("|---")) rows.push_back(line);
  }
  return rows;
}

// The page's step tables (`| step | fields | ... |`): step name -> the fields of each row
// naming it. A row may name several steps (`| `flush`, `finish`, `present` | none | ... |`).
std::map<std::string, std::vector<std::string>> page_steps() {
  static const std::regex kRow(R"(^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| (.+?) \| .+ \|$)");
  static const std::regex kName("`([a-z_]+)`");
  std::map<std::string, std::vector<std::string>> steps;
  for (const auto& row : table_rows("| step | fields |")) {
    std::smatch match;
    EXPECT_TRUE(std::regex_match(row, match, kRow)) << "not a step row: " << row;
    if (match.empty()) continue;
    std::string names = match[1];
    for (std::sregex_iterator it(names.begin(), names.end(), kName), end; it != end; ++it)
      steps[(*it)[1]].push_back(match[2]);
  }
  return steps;
}

TEST(Registry, EveryStepHasOneReadmeRowWithItsFields) {
  auto page = page_steps();
  for (const auto& doc : kStepDocs) {
    auto row = page.find(std::string(doc.name));
    ASSERT_NE(row, page.end()) << "no docs/scenarios.md row for step " << doc.name;
    ASSERT_EQ(row->second.size(), 1u) << "step " << doc.name << " has " << row->second.size() << " rows on the page";
    EXPECT_EQ(row->second.front(), doc.fields) << "the fields of step " << doc.name;
  }
}

TEST(Registry, EveryReadmeStepRowNamesARegisteredStep) {
  for (const auto& [name, rows] : page_steps()) {
    bool registered = false;
    for (const auto& doc : kStepDocs) registered |= doc.name == name;
    EXPECT_TRUE(registered) << "docs/scenarios.md documents a step the registry lacks: " << name;
  }
}

TEST(Registry, EveryStepOfTheVariantIsRegistered) {
  EXPECT_EQ(std::size(kStepDocs), std::variant_size_v<StepKind>);  // the registry's rows and Repeat
}

// The rows a table of the page must have: one per registry entry, `| `name` | second | third |`.
template <class Docs, class Second, class Third>
std::vector<std::string> expected_rows(const Docs& docs, Second second, Third third) {
  std::vector<std::string> rows;
  for (const auto& doc : docs)
    rows.push_back("| `" + std::string(doc.name) + "` | " + std::string(doc.*second) + " | " + std::string(doc.*third) +
                   " |");
  return rows;
}

// Every step row's target decides whether a scenario of that step alone (also inside a repeat)
// uses the kernel model: a kernel step left out would silently lose its kernel gauges.
template <size_t... I>
void expect_kernel_use_follows_the_target(std::index_sequence<I...>) {
  auto one = [](auto kind) {
    using Kind = decltype(kind);
    if constexpr (!std::is_same_v<Kind, Repeat>) {
      Scenario alone, repeated;
      alone.workload.push_back(Step{std::make_shared<StepKind>(kind), {}, "step"});
      Repeat repeat;
      repeat.steps = alone.workload;
      repeated.workload.push_back(Step{std::make_shared<StepKind>(repeat), {}, "repeat"});
      const bool kernel = targets_kernel(kStepTarget<Kind>);
      EXPECT_EQ(alone.uses_kernel(), kernel) << typeid(Kind).name();
      EXPECT_EQ(repeated.uses_kernel(), kernel) << typeid(Kind).name();
    }
  };
  (one(std::variant_alternative_t<I, StepKind>{}), ...);
}

TEST(Registry, AScenarioUsesTheKernelModelExactlyWhenItHasAStepWhoseRowTargetsIt) {
  expect_kernel_use_follows_the_target(std::make_index_sequence<std::variant_size_v<StepKind>>{});
  EXPECT_EQ(kStepTarget<KmdSubmit>, StepTarget::KernelDriver);
  EXPECT_EQ(kStepTarget<GpuAlloc>, StepTarget::KernelMemory);
  EXPECT_EQ(kStepTarget<Draw>, StepTarget::Device);
  EXPECT_EQ(kStepTarget<CounterSampleStep>, StepTarget::Trace);
}

TEST(Registry, TheReadmeCheckTableIsTheCheckRegistry) {
  EXPECT_EQ(table_rows("| check | written as | what must hold |"),
            expected_rows(kCheckDocs, &CheckDoc::written, &CheckDoc::meaning));
}

TEST(Registry, TheReadmePixelTableIsThePixelCheckRegistry) {
  EXPECT_EQ(table_rows("| check | fields | default |"),
            expected_rows(kPixelCheckDocs, &PixelCheckDoc::fields, &PixelCheckDoc::defaults));
}

TEST(Registry, EveryCheckKindIsNamedByTheRegistry) {
  size_t kinds = 0;
  for (const auto& doc : kCheckDocs) {
    EXPECT_EQ(to_string(static_cast<CheckKind>(kinds)), doc.name);
    ++kinds;
  }
  EXPECT_EQ(kinds, static_cast<size_t>(CheckKind::Determinism) + 1);
}

}  // namespace
}  // namespace tidemark::scenario
