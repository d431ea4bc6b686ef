#include "runner/verbs/red_once.h"
#include "runner/kinds/scenario_subject.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark::runner {
namespace {

RedOnceReport report_with(std::vector<std::string> measured) {
  RedOnceReport report;
  report.scenario = "reclaim/s";
  report.lanes = {"monolith", "spawn"};
  ControlRun run;
  run.control = "mutant=reclaim.frame_bucket";
  run.lane = "spawn";
  run.effect = ControlRun::Effect::RedAsNamed;
  run.measured = std::move(measured);
  report.runs.push_back(run);
  return report;
}

// Check that a control is described by what it sets, mutant first, knobs sorted.
// The labels red-once prints for each control's run, as its output has always read: a reader of
// CI's log looks for these words, and no two effects may read alike.
TEST(RedOnce, EachControlEffectHasALabelOfItsOwn) {
  EXPECT_EQ(effect_label(ControlRun::Effect::RedAsNamed), "RED (as required)");
  EXPECT_EQ(effect_label(ControlRun::Effect::StayedGreen), "stayed green");
  EXPECT_EQ(effect_label(ControlRun::Effect::WrongRed), "WRONG RED");
  EXPECT_EQ(effect_label(ControlRun::Effect::Skipped), "skipped");
}

TEST(RedOnce, ControlsAreDescribedByWhatTheySet) {
  scenario::Control control;
  control.mutant = "reclaim.frame_bucket";
  control.knobs = {{"wire_deferred_mb", 0}, {"retire_lag", 2}};
  EXPECT_EQ(describe_control(control), "mutant=reclaim.frame_bucket knobs=retire_lag:2,wire_deferred_mb:0");
}

// Check that ledger lines carry scenario, control, lane and the measured values.
TEST(RedOnce, LedgerLinesNameScenarioControlAndLane) {
  auto lines = ledger_lines(report_with({"wlivepk <= 4 | red wlivepk = 1025 | green wlivepk = 1"}));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "reclaim/s | mutant=reclaim.frame_bucket | spawn | wlivepk <= 4 | red wlivepk = 1025 | green wlivepk = 1");
}

// Check that drift is found both ways, and other scenarios' lines and lanes not run are ignored.
TEST(RedOnce, DriftIsFoundBothWaysAndOnlyForThisScenarioInTheLanesRun) {
  auto report = report_with({"wlivepk <= 4 | red wlivepk = 1026 | green wlivepk = 1"});
  std::vector<std::string> ledger = {
      "reclaim/s | mutant=reclaim.frame_bucket | spawn | wlivepk <= 4 | red wlivepk = 1025 | green wlivepk = 1",
      "reclaim/other | mutant=x.y | tcp | anything",
      "reclaim/s | mutant=reclaim.frame_bucket | tcp | wlivepk <= 4 | red wlivepk = 9 | green wlivepk = 1"};
  auto drift = ledger_drift(report, ledger);
  ASSERT_EQ(drift.size(), 2u);
  EXPECT_EQ(drift[0].rfind("not in the ledger: ", 0), 0u);
  EXPECT_NE(drift[0].find("1026"), std::string::npos);
  EXPECT_EQ(drift[1].rfind("in the ledger, not measured: ", 0), 0u);
  EXPECT_NE(drift[1].find("1025"), std::string::npos);

  EXPECT_TRUE(ledger_drift(report_with({"wlivepk <= 4 | red wlivepk = 1025 | green wlivepk = 1"}), ledger).empty());
}

// Check that a scenario without controls fails the set without running, and that rewriting the
// ledger keeps the lines of scenarios it did not measure.
TEST(RedOnce, ASetFailsAScenarioWithoutControlsAndAnUpdateKeepsOtherLines) {
  const std::string other = "reclaim/other | mutant=x.y | tcp | anything";
  const test_support::ScratchFile ledger_file("ledger.txt", other + "\n");
  const std::filesystem::path& ledger = ledger_file.path();
  scenario::Scenario bare;
  bare.group = "reclaim";
  bare.name = "no-controls";
  std::vector<RedOnceReport> done;
  RedOnceSetOptions options{.ledger = ledger, .update_ledger = true};
  options.on_done = [&](const RedOnceReport& report) { done.push_back(report); };
  Subjects subjects;
  subjects.push_back(std::make_unique<ScenarioSubject>(std::make_shared<const scenario::Scenario>(bare)));
  auto set = red_once_set(subjects, options);
  ASSERT_TRUE(set) << set.error().message;
  EXPECT_EQ(set->scenarios, 1u);
  EXPECT_EQ(set->failed, 1u);
  EXPECT_TRUE(set->ledger_written);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].scenario, "reclaim/no-controls");
  ASSERT_EQ(done[0].problems.size(), 1u);
  EXPECT_EQ(done[0].problems[0], "no controls (a green that never went red proves nothing)");
  auto kept = read_ledger(ledger);
  ASSERT_TRUE(kept) << kept.error().message;
  EXPECT_EQ(*kept, std::vector<std::string>{other});
}

// Check that a backend the subject lists by name takes only the controls that name it (gl-llvmpipe
// beside gl: not the layer's fault, which nothing beneath llvmpipe reaches), and one it does not
// list takes those of the backend it stands in for.
TEST(RedOnce, ABackendListedByNameTakesOnlyTheControlsNamingIt) {
  SubjectControl layer_fault{.label = "knobs=layer_drop_draw:1", .backends = {"gl"}};
  SubjectControl gl_fault{.label = "knobs=gl_drop_draw:1", .backends = {"gl-llvmpipe"}};
  const std::vector<std::string> listed = {"vulkan", "gl", "gl-llvmpipe"};
  const std::string on_llvmpipe = stands_for_among(listed, "gl-llvmpipe", "gl");
  EXPECT_EQ(on_llvmpipe, "");
  EXPECT_FALSE(control_applies(layer_fault, "gl-llvmpipe", on_llvmpipe));
  EXPECT_TRUE(control_applies(gl_fault, "gl-llvmpipe", on_llvmpipe));
  const std::string on_native = stands_for_among({"vulkan", "gl"}, "gl-native", "gl");
  EXPECT_EQ(on_native, "gl");
  EXPECT_TRUE(control_applies(layer_fault, "gl-native", on_native));
}

// A run with a verdict and gauge[0] passed or failed.
report::RunRecord run_with(report::Verdict verdict, bool passed) {
  report::RunRecord record;
  record.verdict = verdict;
  record.checks.push_back({.id = "gauge[0]", .kind = "gauge", .check = "wlivepk <= 17", .passed = passed});
  return record;
}

// Check that a known failure counts as turned red only when the control made it worse than its
// expectations line (the run red, not expected-red), and that a green column counts every failure.
TEST(RedOnce, AKnownFailureIsProvenOnlyByGettingWorseThanItsLine) {
  using report::Verdict;
  const report::RunRecord known = run_with(Verdict::ExpectedRed, false);
  EXPECT_EQ(turned_red(run_with(Verdict::Red, false), known), std::vector<std::string>{"gauge[0]"});
  EXPECT_TRUE(turned_red(run_with(Verdict::ExpectedRed, false), known).empty());
  report::RunRecord other_red = run_with(Verdict::Red, false);
  other_red.checks.push_back({.id = "pixels[0]", .kind = "pixels", .check = "pixels[0]", .passed = false});
  EXPECT_EQ(turned_red(other_red, known), std::vector<std::string>{"pixels[0]"});
  EXPECT_EQ(turned_red(run_with(Verdict::Red, false), run_with(Verdict::Green, true)),
            std::vector<std::string>{"gauge[0]"});
}

// Check that a control is held to the checks it names less the column's known failures that
// stayed where their line has them (a waits or kmd check has no value to go worse than), and that
// a known failure it made worse, or any check on a green column, stays required.
TEST(RedOnce, AControlIsNotHeldToTurnAKnownFailureThatCannotGetWorse) {
  using report::Verdict;
  report::RunRecord known = run_with(Verdict::ExpectedRed, true);
  known.checks.push_back({.id = "waits", .kind = "waits", .check = "waits", .passed = false});
  const std::vector<std::string> named = {"gauge[0]", "waits"};
  EXPECT_EQ(checks_to_turn(named, {"gauge[0]"}, known), std::vector<std::string>{"gauge[0]"});
  EXPECT_EQ(checks_to_turn(named, {"gauge[0]", "waits"}, known), named);  // the known one got worse
  EXPECT_EQ(checks_to_turn(named, {"gauge[0]"}, run_with(Verdict::Green, true)), named);
}

}  // namespace
}  // namespace tidemark::runner
