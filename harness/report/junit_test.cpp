#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "report/summary.h"

namespace tidemark::report {
namespace {

RunRecord result(std::string test, Verdict verdict, std::string why = {}) {
  return {.test = std::move(test),
          .file = "scenarios/reclaim/s.yaml",
          .series = "run lane=spawn",
          .verdict = verdict,
          .why = std::move(why),
          .seconds = 1.5,
          .digest = "d1"};
}

// Check that a subject that did not run is JUnit's skipped, counted apart and neither passed nor failed.
TEST(JUnit, SkippedAndNotRunAreSkippedNotPassedNorFailed) {
  Summary summary =
      summarize({}, {result("Magma.Spawn.Kmd.ran", Verdict::Green),
                     result("Magma.Spawn.Kmd.hangs", Verdict::Skipped, "skipped: --skip s.txt:3:1: `hangs`"),
                     result("Magma.Spawn.Kmd.later", Verdict::NotRun, "not run: --max-fails 1")});
  EXPECT_EQ(summary.green, 1u);
  EXPECT_EQ(summary.red, 0u);
  EXPECT_EQ(summary.skipped, 2u);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(junit_xml(summary).c_str()));
  pugi::xml_node suites = document.child("testsuites");
  EXPECT_EQ(suites.attribute("tests").as_int(), 3);
  EXPECT_EQ(suites.attribute("skipped").as_int(), 2);
  EXPECT_EQ(suites.attribute("failures").as_int(), 0);
  pugi::xml_node suite = suites.child("testsuite");
  EXPECT_EQ(suite.attribute("skipped").as_int(), 2);
  pugi::xml_node hangs = suite.find_child_by_attribute("testcase", "name", "hangs");
  EXPECT_STREQ(hangs.child("skipped").attribute("message").value(), "skipped: --skip s.txt:3:1: `hangs`");
  EXPECT_FALSE(hangs.child("failure"));
  EXPECT_TRUE(suite.find_child_by_attribute("testcase", "name", "later").child("skipped"));
}

// Check that a red check is a failure naming the check and its value, a run that could not
// complete is an error, an expected failure passes, a stale expectation fails, a crash is a failure
// of type crash, a lost device one of type device-lost, a timeout one of type timeout, and the counts add up.
TEST(JUnit, RedChecksAreFailuresAndErrorsAreErrors) {
  Summary summary;
  summary.results.push_back(result("Magma.Spawn.Reclaim.all-fine", Verdict::Green));
  RunRecord red = result("Magma.Spawn.Reclaim.too-many-stores", Verdict::Red);
  red.checks.push_back({.id = "gauge[0]",
                        .kind = "gauge",
                        .check = "wlivepk <= 4",
                        .passed = false,
                        .detail = "wlivepk = 1025 (<= 4)",
                        .where = "s.yaml:12:5"});
  summary.results.push_back(red);
  summary.results.push_back(result("Magma.Spawn.Reclaim.no-device", Verdict::CouldNotRun, "step draw: no store"));
  summary.results.push_back(result("Magma.Spawn.Reclaim.known-bad", Verdict::ExpectedRed, "ID-7: the fix is pending"));
  summary.results.push_back(
      result("Magma.Spawn.Reclaim.stale", Verdict::UnexpectedPass, "expectations.txt:3:1: mend it"));
  RunRecord crashed = result("Magma.Spawn.Reclaim.crashed", Verdict::Crash, "the child (pid 9) killed by signal 11");
  crashed.crash =
      CrashRecord{.process = CrashedProcess::Subject, .pid = 9, .signal = 11, .ended = "killed by signal 11"};
  summary.results.push_back(crashed);
  RunRecord lost =
      result("Magma.Spawn.Reclaim.lost", Verdict::DeviceLost, "vkQueueSubmit answered VK_ERROR_DEVICE_LOST");
  lost.device_lost = DeviceLostRecord{.call = "vkQueueSubmit", .submit_or_wait = 3, .answers = 2, .last_step = ""};
  summary.results.push_back(lost);
  RunRecord hung = result("Magma.Spawn.Reclaim.hung", Verdict::Timeout, "passed its inactivity limit of 2 s");
  hung.timeout = TimeoutRecord{.limit = TimeLimit::Inactivity, .limit_seconds = 2, .after_seconds = 2.5};
  summary.results.push_back(hung);

  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(junit_xml(summary).c_str()));
  pugi::xml_node suites = document.child("testsuites");
  EXPECT_EQ(suites.attribute("tests").as_int(), 8);
  EXPECT_EQ(suites.attribute("failures").as_int(), 5);
  EXPECT_EQ(suites.attribute("errors").as_int(), 1);
  EXPECT_DOUBLE_EQ(suites.attribute("time").as_double(), 12);
  pugi::xml_node suite = suites.child("testsuite");
  EXPECT_STREQ(suite.attribute("name").value(), "run lane=spawn");
  auto find = [&](const char* name) { return suite.find_child_by_attribute("testcase", "name", name); };
  pugi::xml_node failed = find("too-many-stores");
  EXPECT_STREQ(failed.attribute("classname").value(), "Magma.Spawn.Reclaim");
  EXPECT_STREQ(failed.child("failure").attribute("message").value(), "gauge[0] `wlivepk <= 4`: wlivepk = 1025 (<= 4)");
  EXPECT_NE(std::string(failed.child("failure").text().get()).find("s.yaml:12:5"), std::string::npos);
  EXPECT_STREQ(find("no-device").child("error").attribute("message").value(), "step draw: no store");
  EXPECT_FALSE(find("known-bad").child("failure"));
  EXPECT_NE(std::string(find("known-bad").child("system-out").text().get()).find("ID-7"), std::string::npos);
  EXPECT_STREQ(find("stale").child("failure").attribute("message").value(),
               "unexpected pass: expectations.txt:3:1: mend it");
  EXPECT_FALSE(find("all-fine").child("failure"));
  EXPECT_FALSE(find("all-fine").child("error"));
  // A crash is a failure of its own type, naming the process that took it.
  EXPECT_STREQ(find("crashed").child("failure").attribute("type").value(), "crash");
  EXPECT_STREQ(find("crashed").child("failure").attribute("message").value(), "the child (pid 9) killed by signal 11");
  EXPECT_NE(std::string(find("crashed").child("failure").text().get()).find("process: subject (pid 9)"),
            std::string::npos);
  // So is a lost device, naming the call.
  EXPECT_STREQ(find("lost").child("failure").attribute("type").value(), "device-lost");
  EXPECT_NE(std::string(find("lost").child("failure").text().get()).find("call: vkQueueSubmit (submit or wait 3)"),
            std::string::npos);
  // A timeout too, naming its limit and when it was killed.
  EXPECT_STREQ(find("hung").child("failure").attribute("type").value(), "timeout");
  EXPECT_NE(std::string(find("hung").child("failure").text().get()).find("limit: inactivity (2 s); killed after 2.5 s"),
            std::string::npos);
}

// Check that each series is a test suite of its own.
TEST(JUnit, EachSeriesIsASuite) {
  Summary summary;
  summary.results.push_back(result("Magma.Spawn.Reclaim.a", Verdict::Green));
  RunRecord other = result("Magma.Tcp.Reclaim.a", Verdict::Green);
  other.series = "run lane=tcp";
  summary.results.push_back(other);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(junit_xml(summary).c_str()));
  size_t suites = 0;
  for (pugi::xml_node suite : document.child("testsuites").children("testsuite")) {
    ++suites;
    EXPECT_EQ(suite.attribute("tests").as_int(), 1);
  }
  EXPECT_EQ(suites, 2u);
}

// Check that a flaky run is a failure of type flaky naming its tries, a nondeterministic one a
// failure of its own type, a skipped one <skipped> (counted apart); and that the summary counts
// them apart from green and red and lists the flake with each try's digest.
TEST(JUnit, FlakyNondeterministicAndSkippedRunsHaveTypesOfTheirOwn) {
  RunRecord flaky = result("Magma.Spawn.Reclaim.cold", Verdict::Flaky, "failed, then green: try 1 red, try 2 green");
  flaky.attempts = {{Verdict::Red, "d0"}, {Verdict::Green, "d1"}};
  Summary summary = summarize({.command = "run", .series = "run lane=spawn"},
                              {result("Magma.Spawn.Reclaim.fine", Verdict::Green), flaky,
                               result("Magma.Spawn.Reclaim.two", Verdict::Nondeterministic, "2 runs gave 2 digests"),
                               result("Magma.Spawn.Reclaim.hangs", Verdict::Skipped, "skipped, as e.txt:1:1 says")});
  EXPECT_EQ(summary.green, 1u);
  EXPECT_EQ(summary.red, 1u);
  EXPECT_EQ(summary.flaky, 1u);
  EXPECT_EQ(summary.skipped, 1u);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(junit_xml(summary).c_str()));
  pugi::xml_node suites = document.child("testsuites");
  EXPECT_EQ(suites.attribute("failures").as_int(), 2);
  EXPECT_EQ(suites.attribute("skipped").as_int(), 1);
  std::vector<std::string> types;
  for (pugi::xml_node test : suites.child("testsuite").children("testcase")) {
    if (pugi::xml_node failure = test.child("failure")) types.push_back(failure.attribute("type").as_string());
    if (test.child("skipped")) types.push_back("skipped");
  }
  EXPECT_EQ(types, (std::vector<std::string>{"flaky", "nondeterministic", "skipped"}));
  EXPECT_NE(std::string(junit_xml(summary)).find("try 1: red digest d0"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::report
