// lint names what makes a green prove nothing: no control, a check no control names, a mutant
// not in the catalogue, a catalogue mutant nothing uses.
#include "runner/verbs/lint.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/mutants.h"
#include "runner/kinds/scenario_subject.h"

namespace tidemark::runner {
namespace {

scenario::Scenario lint_me(const std::string& controls) {
  auto loaded = scenario::load_text(
      "name: lint-me\ngroup: reclaim\ntarget: {width: 16, height: 16}\nbuffers: [color]\n"
      "workload:\n  - buffer_data: {buffer: color, size: 256}\n  - draw: {uniform: color}\n"
      "expect:\n  gauges: [wbufs >= 0]\n  pixels:\n    - bands: {count: 1, palette: true}\n" +
          controls,
      "lint_test.yaml");
  EXPECT_TRUE(loaded) << loaded.error().message;
  return *loaded;
}

// The scenario as the one subject of a set.
Subjects lone_subject(scenario::Scenario scenario) {
  Subjects subjects;
  subjects.push_back(
      std::make_unique<ScenarioSubject>(std::make_shared<const scenario::Scenario>(std::move(scenario))));
  return subjects;
}

bool has_problem(const std::vector<std::string>& problems, const std::string& part) {
  return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p.find(part) != p.npos; });
}

TEST(Lint, ACheckNoControlNamesAndAnUnusedMutantAreProblems) {
  auto problems =
      lint(lone_subject(lint_me("controls:\n  - knobs: {wire_deferred_mb: 0}\n    fails: [\"pixels[0]\"]\n")));
  EXPECT_TRUE(has_problem(problems, "expected a control naming `wbufs >= 0` under fails:"));
  EXPECT_FALSE(has_problem(problems, "naming `pixels[0]`"));
  // With the mutants compiled out (the release build) the catalogue is empty: nothing to leave unused.
  EXPECT_EQ(has_problem(problems, "is in the catalogue but no scenario's control uses it"),
            !mutant_catalogue().empty());
  EXPECT_TRUE(has_problem(lint(lone_subject(lint_me(""))), "expected at least one control (controls:), found none"));
}

// A scenario on two backends: each check needs a control that proves it on each, unless the
// backend is named unproven with why.
scenario::Scenario on_two_backends(const std::string& rest) {
  auto loaded = scenario::load_text(
      "name: two-backends\ngroup: portable\nbackends: [vulkan, gl]\ntarget: {width: 16, height: 16}\n"
      "buffers: [color]\nworkload:\n  - buffer_data: {buffer: color, size: 256}\n  - draw: {uniform: color}\n"
      "expect:\n  gauges: [wlivepk <= 2]\ncontrols:\n  - mutant: reclaim.frame_bucket\n    backends: [vulkan]\n"
      "    fails: [wlivepk <= 2]\n" +
          rest,
      "lint_test.yaml");
  EXPECT_TRUE(loaded) << loaded.error().message;
  return *loaded;
}

TEST(Lint, EachCheckNeedsAControlOnEveryBackendButThoseNamedUnproven) {
  EXPECT_TRUE(has_problem(lint(lone_subject(on_two_backends(""))),
                          "expected a control naming `wlivepk <= 2` under fails: that proves it on gl"));
  EXPECT_FALSE(has_problem(lint(lone_subject(on_two_backends("unproven: {gl: no fault reaches it}\n"))),
                           "naming `wlivepk <= 2`"));
  EXPECT_FALSE(has_problem(lint(lone_subject(on_two_backends("  - mutant: layer.shadow_copies\n    backends: [gl]\n"
                                                             "    fails: [wlivepk <= 2]\n"))),
                           "naming `wlivepk <= 2`"));
}

TEST(Lint, AControlAppliesOnItsBackendsAndOnWhatStandsInForThem) {
  SubjectControl control;
  EXPECT_TRUE(control_applies(control, "gl", ""));  // none listed: every backend
  control.backends = {"gl"};
  EXPECT_TRUE(control_applies(control, "gl", ""));
  EXPECT_TRUE(control_applies(control, "gl-native", "gl"));
  EXPECT_FALSE(control_applies(control, "vulkan", ""));
}

}  // namespace
}  // namespace tidemark::runner
