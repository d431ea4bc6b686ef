#include "runner/lint.h"

#include <fmt/format.h>

#include <set>

#include "core/mutants.h"
#include "session/builtin_backends.h"

namespace tidemark::runner {

std::vector<std::string> lint(const std::vector<scenario::Scenario>& scenarios,
                              const std::vector<Expectation>* expectations, const std::vector<OtherSubject>& others) {
  std::vector<std::string> problems;
  if (expectations)
    if (auto ok = check_expectations(*expectations, scenarios, session::builtin_backends(), others); !ok)
      problems.push_back(ok.error().message);
  std::set<std::string> used;
  for (const auto& scenario : scenarios) {
    std::string where = format_location({scenario.file.string(), 1, 1});
    if (scenario.controls.empty())
      problems.push_back(fmt::format("{}: expected at least one control (controls:), found none", where));
    std::set<scenario::CheckId> named;
    for (const auto& control : scenario.controls) named.insert(control.fails.begin(), control.fails.end());
    for (const auto& check : scenario.checks())
      if (!named.contains(check))
        problems.push_back(
            fmt::format("{}: expected a control naming `{}` under fails: (a check nothing turns red "
                        "proves nothing), found none",
                        where, scenario.check_text(check)));
    for (const auto& control : scenario.controls) {
      if (control.mutant.empty()) continue;
      used.insert(control.mutant);
      if (!find_mutant(control.mutant))
        problems.push_back(fmt::format("{}: expected a mutant from the catalogue, found '{}'",
                                       format_location(control.where), control.mutant));
    }
  }
  for (const auto& mutant : mutant_catalogue())
    if (!used.contains(std::string(mutant.name)))
      problems.push_back(fmt::format("mutant {} is in the catalogue but no scenario's control uses it", mutant.name));
  return problems;
}

}  // namespace tidemark::runner
