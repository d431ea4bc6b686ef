#include "runner/pipeline/expectations.h"
#include "runner/verbs/lint.h"
#include "runner/kinds/scenario_subject.h"

#include "session/builtin_backends.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark::runner {
namespace {

test_support::ScratchFile written(const std::string& name, const std::string& text) { return {name, text}; }

// A scenario reclaim/<name> on `backends`, with one gauge check and its control.
// The scenario as the one subject of a set.
Subjects set_of(scenario::Scenario scenario) {
  Subjects subjects;
  subjects.push_back(
      std::make_unique<ScenarioSubject>(std::make_shared<const scenario::Scenario>(std::move(scenario))));
  return subjects;
}

Result<scenario::Scenario> listing(const std::string& name, const std::string& backends) {
  return scenario::load_text("name: " + name + "\ngroup: reclaim\nbackends: [" + backends +
                                 "]\ntarget: {width: 8, height: 8}\nbuffers: [color]\nworkload:\n"
                                 "  - buffer_data: {buffer: color, size: 64}\nexpect: {gauges: [\"wlivepk <= 4\"]}\n"
                                 "controls:\n  - knobs: {wire_deferred_mb: 0}\n    fails: [\"wlivepk <= 4\"]\n",
                             name + ".yaml");
}

// Check that a file saved with CRLF line ends reads as the same lines, blank ones included.
TEST(Expectations, CrlfLineEndsReadAsTheSameLines) {
  auto file = written("crlf.txt", "# known failures\r\n\r\ngl reclaim/bands gauge[0] # wlivepk = 9, bound 4\r\n");
  auto loaded = load_expectations(file);
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].scenario, "reclaim/bands");
  EXPECT_EQ((*loaded)[0].reason, "wlivepk = 9, bound 4");
  EXPECT_EQ((*loaded)[0].where.line, 3);
}

// Check that a second line for one backend and scenario names the first one's line.
TEST(Expectations, ASecondLineForOneBackendAndScenarioNamesTheFirst) {
  auto file =
      written("twice.txt",
              "gl reclaim/bands gauge[0] # a\nvulkan reclaim/bands gauge[0] # b\ngl reclaim/bands pixels[0] # c\n");
  auto loaded = load_expectations(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message, file.string() +
                                        ":3:1: expected one line per backend (and build) and scenario, found gl "
                                        "reclaim/bands again (first on line 1)");
}

TEST(Expectations, MeasuredValuesAndDriverBuildsAreRead) {
  auto file = written("values.txt",
                      "gl reclaim/bands gauge[0] devbytespk=218103808 wlivepk=3007 # any build\n"
                      "gl@mesa-25.0.7 reclaim/bands gauge[0] devbytespk=213909504 # 25 parks two fewer\n");
  auto loaded = load_expectations(file);
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].build, "");
  EXPECT_EQ((*loaded)[0].values,
            (std::vector<std::pair<std::string, int64_t>>{{"devbytespk", 218103808}, {"wlivepk", 3007}}));
  EXPECT_EQ((*loaded)[1].backend, "gl");
  EXPECT_EQ((*loaded)[1].build, "mesa-25.0.7");
  auto scenario = listing("bands", "gl");
  ASSERT_TRUE(scenario) << scenario.error().message;
  EXPECT_EQ(find_expectation(*loaded, "gl", *scenario, "mesa-25.0.7"), &(*loaded)[1]);
  EXPECT_EQ(find_expectation(*loaded, "gl", *scenario, "mesa-22.3.6"), &(*loaded)[0]);
  EXPECT_EQ(find_expectation(*loaded, "gl", *scenario, ""), &(*loaded)[0]);
  EXPECT_EQ(find_expectation(*loaded, "vulkan", *scenario, ""), nullptr);
}

TEST(Expectations, BadMeasuredValuesAndBuildsNameTheirColumn) {
  const std::pair<const char*, const char*> cases[] = {
      {"gl reclaim/bands gauge[0] nosuch=1 # x\n",
       ":1:27: expected a measured value as GAUGE=VALUE with a gauge of the catalogues, found 'nosuch=1'"},
      {"gl reclaim/bands gauge[0] wlivepk # x\n", ":1:27: expected a measured value as GAUGE=VALUE"},
      {"gl reclaim/bands gauge[0] wlivepk=3k # x\n", ":1:35: expected a whole number for wlivepk, found '3k'"},
      {"gl reclaim/bands gauge[0] wlivepk=1 wlivepk=2 # x\n", ":1:37: expected each gauge once, found wlivepk again"},
      {"gl@ reclaim/bands gauge[0] # x\n", ":1:1: expected BACKEND or BACKEND@BUILD, found 'gl@'"},
      {"gl@a reclaim/bands gauge[0] # x\ngl@a reclaim/bands gauge[1] # y\n",
       ":2:1: expected one line per backend (and build)"},
  };
  for (const auto& [text, message] : cases) {
    auto loaded = load_expectations(written("bad-values.txt", text));
    ASSERT_FALSE(loaded) << text;
    EXPECT_NE(loaded.error().message.find(message), std::string::npos) << loaded.error().message;
  }
}

// Check that lint takes a line for a backend that stands in for one the scenario lists (gl-native
// for gl: README's step 4) and `not-judged` in place of check ids, and refuses a backend Tidemark
// does not have and one the scenario does not list.
TEST(Expectations, LintTakesStandInsAndNotJudgedAndRefusesUnknownBackends) {
  auto scenario = listing("bands", "vulkan, gl");
  ASSERT_TRUE(scenario) << scenario.error().message;
  auto check = [&](const std::string& line) -> std::string {
    auto loaded = load_expectations(written("lint.txt", line + "\n"));
    if (!loaded) return loaded.error().message;
    auto checked = check_expectations(*loaded, set_of(*scenario), session::builtin_backends());
    return checked ? "clean" : checked.error().message;
  };
  EXPECT_EQ(check("gl-native reclaim/bands gauge[0] # yours keeps them: wlivepk = 9"), "clean");
  EXPECT_EQ(check("gl-llvmpipe reclaim/bands not-judged # no device gauges there"), "clean");
  EXPECT_EQ(check("vulkan reclaim/bands crash # the driver dies at its 3000th call"), "clean");
  EXPECT_EQ(check("vulkan reclaim/bands device-lost # the driver loses its device"), "clean");
  EXPECT_EQ(check("vulkan reclaim/bands timeout # the driver hangs at its 40th call"), "clean");
  EXPECT_NE(check("nope reclaim/bands gauge[0] # x").find(":1:1: expected a backend Tidemark has, found 'nope'"),
            std::string::npos);
  auto listed_only = listing("kept", "gl");
  ASSERT_TRUE(listed_only) << listed_only.error().message;
  auto loaded = load_expectations(written("unlisted.txt", "vulkan reclaim/kept gauge[0] # x\n"));
  ASSERT_TRUE(loaded);
  auto checked = check_expectations(*loaded, set_of(*listed_only), session::builtin_backends());
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("expected a backend reclaim/kept lists (gl), found vulkan"), std::string::npos)
      << checked.error().message;
}

// Check that a line naming `crash` makes a crash an expected red (its reason and the crash's words
// kept), a run that no longer crashes an unexpected pass, and a red still red; and that a crash no
// line names stays a crash.
TEST(Expectations, ACrashALineNamesIsExpectedAndOneThatStoppedIsAnUnexpectedPass) {
  auto loaded = parse_expectations("vulkan reclaim/bands crash # ID-9: the driver dies at its 3000th call\n", "e.txt");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Expectation& line = loaded->front();
  auto judged = [&](report::Verdict verdict, std::vector<std::string> failed = {}) {
    std::string why = "the child (pid 9) killed by signal 11";
    judge_against(line, {.verdict = verdict, .why = why, .failed = std::move(failed), .gauge = {}});
    return std::pair(verdict, why);
  };
  auto [expected, why] = judged(report::Verdict::Crash);
  EXPECT_EQ(expected, report::Verdict::ExpectedRed);
  EXPECT_EQ(why,
            "crashed, as e.txt:1:1 says (ID-9: the driver dies at its 3000th call): the child (pid 9) killed by "
            "signal 11");
  auto [stopped, stale] = judged(report::Verdict::Green);
  EXPECT_EQ(stopped, report::Verdict::UnexpectedPass);
  EXPECT_NE(stale.find("e.txt:1:1: expected red on crash"), std::string::npos) << stale;
  EXPECT_EQ(judged(report::Verdict::Red, {"gauge[0]"}).first, report::Verdict::Red);
  auto other = parse_expectations("vulkan reclaim/bands gauge[0] # x\n", "e.txt");
  ASSERT_TRUE(other);
  report::Verdict verdict = report::Verdict::Crash;
  std::string text = "died";
  judge_against(other->front(), {.verdict = verdict, .why = text, .failed = {}, .gauge = {}});
  EXPECT_EQ(verdict, report::Verdict::Crash);
}

// Check that a line naming `device-lost` makes a lost device an expected red, a run whose device
// is no longer lost an unexpected pass, and a crash stays a crash under it.
TEST(Expectations, ALostDeviceALineNamesIsExpectedAndOneThatStoppedIsAnUnexpectedPass) {
  auto loaded = parse_expectations("vulkan reclaim/bands device-lost # ID-10: lost at its first submit\n", "e.txt");
  ASSERT_TRUE(loaded) << loaded.error().message;
  auto judged = [&](report::Verdict verdict) {
    std::string why = "vkQueueSubmit answered VK_ERROR_DEVICE_LOST";
    judge_against(loaded->front(), {.verdict = verdict, .why = why, .failed = {}, .gauge = {}});
    return std::pair(verdict, why);
  };
  auto [expected, why] = judged(report::Verdict::DeviceLost);
  EXPECT_EQ(expected, report::Verdict::ExpectedRed);
  EXPECT_EQ(why,
            "device lost, as e.txt:1:1 says (ID-10: lost at its first submit): vkQueueSubmit answered "
            "VK_ERROR_DEVICE_LOST");
  EXPECT_EQ(judged(report::Verdict::Green).first, report::Verdict::UnexpectedPass);
  EXPECT_EQ(judged(report::Verdict::Crash).first, report::Verdict::Crash);
  EXPECT_TRUE(names_a_verdict(loaded->front()));
}

// Check that a line naming `timeout` makes a timeout an expected red, a run that no longer times out
// an unexpected pass, and a crash still a crash (the line names another verdict).
TEST(Expectations, ATimeoutALineNamesIsExpectedAndOneThatStoppedIsAnUnexpectedPass) {
  auto loaded =
      parse_expectations("vulkan reclaim/bands timeout # ID-10: the driver hangs at its 40th call\n", "e.txt");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const Expectation& line = loaded->front();
  auto judged = [&](report::Verdict verdict) {
    std::string why = "passed its inactivity limit of 2 s";
    judge_against(line, {.verdict = verdict, .why = why, .failed = {}, .gauge = {}});
    return std::pair(verdict, why);
  };
  auto [expected, why] = judged(report::Verdict::Timeout);
  EXPECT_EQ(expected, report::Verdict::ExpectedRed);
  EXPECT_EQ(why,
            "timed out, as e.txt:1:1 says (ID-10: the driver hangs at its 40th call): passed its inactivity "
            "limit of 2 s");
  auto [stopped, stale] = judged(report::Verdict::Green);
  EXPECT_EQ(stopped, report::Verdict::UnexpectedPass);
  EXPECT_NE(stale.find("e.txt:1:1: expected red on timeout"), std::string::npos) << stale;
  EXPECT_EQ(judged(report::Verdict::Crash).first, report::Verdict::Crash);
}

// Check that a line naming `flaky` makes a flaky run an expected red, leaves a green run green (a
// flake need not strike) and a red one red; and that `skip` and `flaky` are read as verdict words.
TEST(Expectations, AFlakeALineNamesIsExpectedAndAGreenUnderItStaysGreen) {
  auto loaded =
      parse_expectations("vulkan reclaim/bands flaky # ID-7: fails cold\nvulkan reclaim/other skip # hangs\n", "e.txt");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_TRUE(names_a_verdict(loaded->at(0)));
  EXPECT_TRUE(says(loaded->at(1), kSkip));
  auto judged = [&](report::Verdict verdict) {
    std::string why = "failed, then green";
    judge_against(loaded->front(), {.verdict = verdict, .why = why, .failed = {"gauge[0]"}, .gauge = {}});
    return std::pair(verdict, why);
  };
  auto [known, why] = judged(report::Verdict::Flaky);
  EXPECT_EQ(known, report::Verdict::ExpectedRed);
  EXPECT_EQ(why, "flaky, as e.txt:1:1 says (ID-7: fails cold): failed, then green");
  EXPECT_EQ(judged(report::Verdict::Green).first, report::Verdict::Green);
  EXPECT_EQ(judged(report::Verdict::Red).first, report::Verdict::Red);
}

}  // namespace
}  // namespace tidemark::runner
