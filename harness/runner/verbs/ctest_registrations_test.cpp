#include "runner/verbs/ctest_registrations.h"

#include <gtest/gtest.h>

#include "runner/kinds/scenario_subject.h"

namespace tidemark::runner {
namespace {

scenario::Scenario two_backend_scenario() {
  scenario::Scenario scenario;
  scenario.name = "bands";
  scenario.group = "reclaim";
  scenario.file = "/s/reclaim/bands.yaml";
  scenario.backends = {"vulkan", "gl"};
  return scenario;
}

Subjects two_backend_subjects() {
  Subjects subjects;
  subjects.push_back(
      std::make_unique<ScenarioSubject>(std::make_shared<const scenario::Scenario>(two_backend_scenario())));
  return subjects;
}

// A subject in no lane, as a capture fixture is (capture/ builds on the runner, not the reverse).
class ReplaySubject final : public Subject {
 public:
  ReplaySubject()
      : Subject({.id = "acme-driver/respecify",
                 .kind = "capture fixture",
                 .group = "acme-driver",
                 .file = "/c/respecify.capture.yaml",
                 .test_family = "Capture",
                 .test_stem = "AcmeDriver.respecify",
                 .labels = {"capture", "integration-magma-acme-driver"},
                 .in_lanes = false,
                 .starts_builds = true,
                 .backends = {"gl"},
                 .checks = {{"gauge[0]", {}}},
                 .controls = {{.label = "fault=hold_frees"}},
                 .red_once_test_name = "RedOnce.Capture.AcmeDriver.respecify",
                 .red_once_labels = {"red-once", "capture"}}) {}
  Result<std::unique_ptr<SubjectRun>> prepare(const RunOptions&, report::RunRecord&) const override {
    return fail(ErrorKind::BadInput, "registrations never run a subject");
  }
};

size_t count(const std::string& text, const std::string& part) {
  size_t found = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++found;
  return found;
}

// Check that a bracket is longer than any closer inside the text, also one the text ends with.
TEST(Bracket, NoTextClosesItEarly) {
  EXPECT_EQ(*bracket("plain"), "[[plain]]");
  EXPECT_EQ(*bracket("a]]b"), "[=[a]]b]=]");
  EXPECT_EQ(*bracket("x]]\nadd_test(evil)"), "[=[x]]\nadd_test(evil)]=]");
  EXPECT_EQ(*bracket("/l]"), "[=[/l]]=]");  // the text's end and the closer would make "]]"
  EXPECT_FALSE(bracket("\nstarts with a line break"));
}

// Check that every lane and backend is one test, with the labels a user selects by, and that
// lanes, backends and labels given narrow and extend them.
TEST(CtestRegistrations, OneTestPerLaneAndBackendLabelledAsTheSuiteIs) {
  const Subjects scenarios = two_backend_subjects();
  auto all = ctest_registrations(scenarios, {.tidemark = "/bin/tidemark", .report_root = "/r"});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(count(*all, "add_test("), 8u);  // 4 lanes x 2 backends, no ledger: no red-once test
  EXPECT_NE(all->find("add_test([[Magma.Tcp.Reclaim.bands@gl]] [[/bin/tidemark]] run --shard 1/1 --lane tcp "
                      "--backend [[gl]] --report [[/r/Magma.Tcp.Reclaim.bands@gl]] [[/s/reclaim/bands.yaml]])"),
            std::string::npos)
      << *all;
  EXPECT_NE(all->find("integration-magma-reclaim"), std::string::npos);

  auto narrowed = ctest_registrations(scenarios, {.tidemark = "t",
                                                  .report_root = "/r",
                                                  .lanes = {"spawn", "spawn"},
                                                  .backends = {"gl-llvmpipe"},
                                                  .labels = {"nightly"}});
  ASSERT_TRUE(narrowed) << narrowed.error().message;
  EXPECT_EQ(count(*narrowed, "add_test("), 1u);
  EXPECT_NE(narrowed->find("Magma.Spawn.Reclaim.bands@gl-llvmpipe"), std::string::npos);
  EXPECT_NE(narrowed->find(";nightly]]"), std::string::npos) << *narrowed;
}

// Check that a capture fixture is one test whatever the lanes and backends (they do not apply to
// its replay), in its group's label, and with a ledger a red-once test of its own.
TEST(CtestRegistrations, ACaptureFixtureIsOneTestAndOneRedOnce) {
  Subjects captures;
  captures.push_back(std::make_unique<ReplaySubject>());
  auto out = ctest_registrations(captures, {.tidemark = "t",
                                            .report_root = "/r",
                                            .ledger = "",
                                            .expectations = "",
                                            .lanes = {"spawn"},
                                            .backends = {},
                                            .labels = {"nightly"}});
  ASSERT_TRUE(out) << out.error().message;
  EXPECT_EQ(count(*out, "add_test("), 1u);
  EXPECT_NE(
      out->find("add_test([[Capture.AcmeDriver.respecify]] [[t]] run --report [[/r/Capture.AcmeDriver.respecify]] "
                "[[/c/respecify.capture.yaml]])"),
      std::string::npos)
      << *out;
  EXPECT_NE(out->find("LABELS [[capture;integration-magma-acme-driver;nightly]]"), std::string::npos) << *out;
  auto with_ledger = ctest_registrations(captures, {.tidemark = "t", .report_root = "/r", .ledger = "/no/ledger.txt"});
  ASSERT_TRUE(with_ledger) << with_ledger.error().message;
  EXPECT_EQ(count(*with_ledger, "add_test("), 2u);
  EXPECT_NE(with_ledger->find("add_test([[RedOnce.Capture.AcmeDriver.respecify]] [[t]] red-once --ledger "
                              "[[/no/ledger.txt]] --report [[/r/RedOnce.Capture.AcmeDriver.respecify]] "
                              "[[/c/respecify.capture.yaml]])"),
            std::string::npos)
      << *with_ledger;
}

// Check that what tidemark_add_scenarios passes on is checked before anything is written.
TEST(CtestRegistrations, BadLanesBackendsLabelsAndFilesAreRefused) {
  const Subjects scenarios = two_backend_subjects();
  auto refused = [&](RegistrationRequest request) {
    auto out = ctest_registrations(scenarios, request);
    EXPECT_FALSE(out);
    return out ? std::string() : out.error().message;
  };
  EXPECT_EQ(refused({.lanes = {"fast"}}), "--lane: expected monolith, split, spawn or tcp, found \"fast\"");
  EXPECT_EQ(refused({.backends = {"nope"}}).rfind("--backend: ", 0), 0u);
  EXPECT_EQ(refused({.labels = {"a;b"}}), "--label: expected letters, digits, '-', '_' or '.', found \"a;b\"");
  EXPECT_NE(refused({.expectations = "/no/such/expectations.txt"}).find("/no/such/expectations.txt"),
            std::string::npos);
}

}  // namespace
}  // namespace tidemark::runner
