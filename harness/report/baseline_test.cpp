#include "report/baseline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tidemark::report {
namespace {

RunRecord record(std::string test, GaugeValues gauges) {
  RunRecord out;
  out.test = std::move(test);
  out.subject = "portable/" + out.test.substr(out.test.rfind('.') + 1);
  out.series = "run lane=direct";
  out.verdict = Verdict::Green;
  out.gauges = std::move(gauges);
  return out;
}

TEST(Baseline, AHigherPeakIsWorseWithBothValuesAndTheChange) {
  const auto judged = judge(record("Magma.Direct.Portable.a", {{"devbytespk", 12582912}}),
                            record("Magma.Direct.Portable.a", {{"devbytespk", 8388608}}), {});
  EXPECT_EQ(judged.movement, Movement::Worse);
  ASSERT_EQ(judged.moves.size(), 1u);
  EXPECT_EQ(describe(judged.moves[0]), "devbytespk 12582912 vs baseline 8388608 (+50%)");
}

TEST(Baseline, ALowerPeakIsImprovedAndAWorkCountThatMovedIsOnlyChanged) {
  const auto better = judge(record("t", {{"wlivepk", 13}}), record("t", {{"wlivepk", 17}}), {});
  EXPECT_EQ(better.movement, Movement::Improved);
  EXPECT_EQ(describe(better.moves.at(0)), "wlivepk 13 vs baseline 17 (-24%)");
  const auto changed = judge(record("t", {{"submits", 5}}), record("t", {{"submits", 4}}), {});
  EXPECT_EQ(changed.movement, Movement::Changed);
  const auto same =
      judge(record("t", {{"submits", 4}, {"wlivepk", 3}}), record("t", {{"submits", 4}, {"wlivepk", 3}}), {});
  EXPECT_EQ(same.movement, Movement::Same);
  EXPECT_TRUE(same.moves.empty());
}

TEST(Baseline, WorseAnywhereOutranksImprovedElsewhere) {
  const auto judged =
      judge(record("t", {{"wlivepk", 1}, {"devbytespk", 9}}), record("t", {{"wlivepk", 2}, {"devbytespk", 8}}), {});
  EXPECT_EQ(judged.movement, Movement::Worse);
  EXPECT_EQ(judged.moves.size(), 2u);
}

TEST(Baseline, AReaderThatStoppedInitialisingIsWorse) {
  RunRecord now = record("t", {}), before = record("t", {});
  now.kernel_gauges = GaugeValues{{"kreader", 0}};
  before.kernel_gauges = GaugeValues{{"kreader", 1}};
  EXPECT_EQ(judge(now, before, {}).movement, Movement::Worse);
}

TEST(Baseline, ATolerancePerGaugeAllowsThatMuchWorseAndNoMore) {
  Tolerances tolerances;
  ASSERT_TRUE(add_tolerance(tolerances, "devbytespk=5%"));
  ASSERT_TRUE(add_tolerance(tolerances, "wlivepk=2"));
  EXPECT_EQ(judge(record("t", {{"devbytespk", 105}}), record("t", {{"devbytespk", 100}}), tolerances).movement,
            Movement::Same);
  EXPECT_EQ(judge(record("t", {{"devbytespk", 106}}), record("t", {{"devbytespk", 100}}), tolerances).movement,
            Movement::Worse);
  EXPECT_EQ(judge(record("t", {{"wlivepk", 12}}), record("t", {{"wlivepk", 10}}), tolerances).movement, Movement::Same);
  EXPECT_EQ(judge(record("t", {{"wlivepk", 13}}), record("t", {{"wlivepk", 10}}), tolerances).movement,
            Movement::Worse);
  // The tolerance of one gauge is not another's.
  EXPECT_EQ(judge(record("t", {{"devallocspk", 101}}), record("t", {{"devallocspk", 100}}), tolerances).movement,
            Movement::Worse);
}

TEST(Baseline, BadTolerancesAreRefusedNamingWhatWasExpected) {
  for (const char* bad : {"devbytespk", "nosuchgauge=1", "submits=1", "devbytespk=-1", "devbytespk=x",
                          "devbytespk=", "devbytespk=5%%", "devbytespk=nan%", "devbytespk=1e3"}) {
    Tolerances tolerances;
    auto added = add_tolerance(tolerances, bad);
    ASSERT_FALSE(added) << bad;
    EXPECT_NE(added.error().message.find("--tolerance: expected"), std::string::npos) << added.error().message;
  }
  Tolerances twice;
  ASSERT_TRUE(add_tolerance(twice, "wlivepk=1"));
  EXPECT_FALSE(add_tolerance(twice, "wlivepk=2%"));
}

TEST(Baseline, RunsAreMatchedByTestMutantAndKnobsAndTheUnmatchedAreNewOrGone) {
  Summary baseline;
  baseline.results = {record("Magma.Direct.Portable.kept", {{"wlivepk", 3}}),
                      record("Magma.Direct.Portable.gone", {{"wlivepk", 3}}),
                      record("Magma.Spawn.Portable.other-series", {{"wlivepk", 3}})};
  baseline.results[2].series = "run lane=spawn";
  RunRecord mutant = record("Magma.Direct.Portable.kept", {{"wlivepk", 9}});
  mutant.mutant = "hold_frees";  // a run under a fault is not the same run
  std::vector<RunRecord> records = {record("Magma.Direct.Portable.kept", {{"wlivepk", 4}}),
                                    record("Magma.Direct.Portable.new", {{"wlivepk", 1}}), mutant};
  const Origin origin{.command = "run", .series = "run lane=direct"};
  const BaselineOrigin held =
      hold_to_baseline(records, origin, {.summary = baseline, .source = "yesterday/summary.json", .tolerances = {}});
  EXPECT_EQ(records[0].baseline->movement, Movement::Worse);
  EXPECT_EQ(records[1].baseline->movement, Movement::New);
  EXPECT_EQ(records[2].baseline->movement, Movement::New);
  EXPECT_EQ(held.source, "yesterday/summary.json");
  EXPECT_EQ(held.gone, std::vector<std::string>{"Magma.Direct.Portable.gone"});
  EXPECT_FALSE(record_passes(records[0]));
  EXPECT_TRUE(record_passes(records[1]));
  EXPECT_EQ(baseline_lines(records, held),
            (std::vector<std::string>{
                "WORSE Magma.Direct.Portable.kept against the baseline", "      worse: wlivepk 4 vs baseline 3 (+33%)",
                "NEW   Magma.Direct.Portable.new (not in the baseline)",
                "NEW   Magma.Direct.Portable.kept (not in the baseline)",
                "GONE  Magma.Direct.Portable.gone (in the baseline, not run now)",
                "baseline yesterday/summary.json: 1 worse, 0 improved, 0 changed, 0 same, 2 new, 1 gone"}));
}

TEST(Baseline, AShardNamesAsGoneOnlyItsOwnScenarios) {
  Summary baseline;
  baseline.results = {record("Magma.Direct.Portable.mine", {}), record("Magma.Direct.Portable.theirs", {})};
  std::vector<RunRecord> records;
  Origin origin{.command = "run", .series = "run lane=direct"};
  origin.shard = ShardOrigin{.index = 1, .total = 2, .members = {"portable/mine"}};
  EXPECT_EQ(hold_to_baseline(records, origin, {.summary = baseline, .source = "b", .tolerances = {}}).gone,
            std::vector<std::string>{"Magma.Direct.Portable.mine"});
}

TEST(Baseline, TheJudgementTravelsThroughTheRecordsCodecAndABadMovementIsRefused) {
  RunRecord worse = record("Magma.Direct.Portable.a", {{"devbytespk", 12}});
  worse.baseline = BaselineJudgement{Movement::Worse, {{"devbytespk", 8, 12, Movement::Worse}}};
  auto back = run_record_from_json(to_json(worse), "here", "");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, worse);
  nlohmann::json bad = to_json(worse);
  bad["baseline"]["moves"][0]["movement"] = "sideways";
  auto refused = run_record_from_json(bad, "here", "results[0]");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("results[0].baseline.moves[0].movement"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace tidemark::report
