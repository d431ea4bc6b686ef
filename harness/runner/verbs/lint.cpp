#include "runner/verbs/lint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/mutants.h"
#include "session/builtin_backends.h"

namespace tidemark::runner {

Status check_expectations(const std::vector<Expectation>& expectations, const Subjects& subjects,
                          const api::BackendRegistry& backends) {
  for (const auto& e : expectations) {
    const std::string at = format_location(e.where);
    auto found =
        std::find_if(subjects.begin(), subjects.end(), [&](const auto& s) { return s->info().id == e.scenario; });
    if (found == subjects.end())
      return fail(ErrorKind::BadInput, fmt::format("{}: expected a scenario or capture fixture of the set, found "
                                                   "'{}', which no longer exists: remove the line",
                                                   at, e.scenario));
    const Subject& subject = **found;
    if (auto takes = takes_backend(subject.info(), e.backend, backends); !takes)
      return fail(ErrorKind::BadInput, fmt::format("{}: {}", at, takes.error().message));
    if (names_a_verdict(e)) continue;
    const std::vector<std::string> ids = check_ids(subject.info());
    for (const auto& check : e.checks)
      if (std::find(ids.begin(), ids.end(), check) == ids.end())
        return fail(ErrorKind::BadInput, fmt::format("{}: expected a check of {} ({}), found '{}'", at, e.scenario,
                                                     fmt::join(ids, ", "), check));
  }
  return {};
}

std::vector<std::string> lint(const Subjects& subjects, const std::vector<Expectation>* expectations) {
  std::vector<std::string> problems;
  if (expectations)
    if (auto ok = check_expectations(*expectations, subjects, session::builtin_backends()); !ok)
      problems.push_back(ok.error().message);
  std::set<std::string> used;
  for (const auto& subject : subjects) {
    const std::string where = format_location({subject->info().file.string(), 1, 1});
    const std::vector<SubjectControl>& controls = subject->info().controls;
    if (controls.empty())
      problems.push_back(fmt::format("{}: expected at least one control (controls:), found none", where));
    // Every check has a control on every backend the subject runs on (a reclaim-model mutant
    // proves nothing on gl), but those its `unproven:` names with why.
    const std::vector<std::string>& backends = subject->info().backends;
    const std::map<std::string, std::string>& unproven = subject->info().unproven;
    for (const auto& backend : backends) {
      if (unproven.contains(backend)) continue;
      std::set<std::string> named;
      for (const auto& control : controls)
        if (control_applies(control, backend, "")) named.insert(control.fails.begin(), control.fails.end());
      const std::string on = backends.size() > 1 ? " that proves it on " + backend : "";
      for (const auto& check : check_ids(subject->info()))
        if (!named.contains(check))
          problems.push_back(
              fmt::format("{}: expected a control naming `{}` under fails:{} (a check nothing turns red "
                          "proves nothing), found none",
                          where, check_text(subject->info(), check), on));
    }
    for (const auto& control : controls) {
      const MutantChoice& mutant = control.variant.mutant;
      if (mutant.empty()) continue;
      used.insert(mutant.name);
      if (!mutant.id)
        problems.push_back(fmt::format("{}: expected a mutant from the catalogue, found '{}'",
                                       format_location(control.where), mutant.name));
    }
  }
  for (const auto& mutant : mutant_catalogue())
    if (!used.contains(std::string(mutant.name)))
      problems.push_back(fmt::format("mutant {} is in the catalogue but no scenario's control uses it", mutant.name));
  return problems;
}

}  // namespace tidemark::runner
