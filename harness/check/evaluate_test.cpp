#include "check/evaluate.h"

#include <gtest/gtest.h>

#include <string_view>

namespace tidemark::check {
namespace {

using scenario::CheckKind;

// A gauge over a knob and a gauge, the dump, two nodes and a trace track: every family the
// entry point runs before the runner's own checks.
constexpr std::string_view kScenario = R"(name: every-family
group: check
target: {width: 2, height: 2}
workload:
  - gpu_mem_total: {gpu: 0, pid: 7, size: 4096}
expect:
  gauges: ["devbytes <= retire_lag", "kentries == 1"]
  kernel:
    dump: "map\n"
  trace:
    - {track: Nothing (gpu 0), absent: true}
)";

scenario::Scenario every_family() {
  auto loaded = scenario::load_text(kScenario, "scenarios/check/every-family.yaml");
  EXPECT_TRUE(loaded) << loaded.error().message;
  return loaded ? *loaded : scenario::Scenario{};
}

ReadBack green_read_back() {
  ReadBack read;
  read.gauges.devbytes = 3;
  read.kernel_gauges = KernelGauges{};
  read.kernel_gauges->kentries = 1;
  read.kernel_dump = "map\n";
  return read;
}

std::vector<std::string> ids(const std::vector<Outcome>& outcomes) {
  std::vector<std::string> out;
  for (const auto& outcome : outcomes) out.push_back(outcome.id.str() + (outcome.passed ? " green" : " red"));
  return out;
}

TEST(Evaluate, EveryCheckInReportOrderThenTheRunnersOwn) {
  RunContext context{
      .knobs = {{"retire_lag", 3}},
      .lane = Lane::Split,
      .traffic = {.name = "split", .frames_sent = 1, .frames_received = 1, .client_pid = 5, .server_pid = 5},
      .validation = true,
      .digests = {"aa", "aa"}};
  auto outcomes = evaluate(every_family(), green_read_back(), context);
  ASSERT_TRUE(outcomes) << outcomes.error().message;
  EXPECT_EQ(ids(*outcomes), (std::vector<std::string>{"gauge[0] green", "gauge[1] green", "dump green",
                                                      "trace[0] green", "lane green", "validation green"}));
}

TEST(Evaluate, AGaugeShadowsAKnobOfTheSameNameAndRedsAreKept) {
  ReadBack read = green_read_back();
  read.gauges.devbytes = 4;  // over the knob's 3
  read.kernel_dump = "other\n";
  read.waits = {.checked = 1,
                .mismatched = 1,
                .mismatches = {"line 3 (wait #1) returned timeout_expired, expected already_signaled"}};
  RunContext context{.knobs = {{"retire_lag", 3}, {"kentries", 9}}, .digests = {"aa", "bb"}};
  auto outcomes = evaluate(every_family(), read, context);
  ASSERT_TRUE(outcomes) << outcomes.error().message;
  EXPECT_EQ(ids(*outcomes), (std::vector<std::string>{"gauge[0] red", "gauge[1] green", "waits red", "dump red",
                                                      "trace[0] green", "determinism red"}));
  EXPECT_EQ((*outcomes)[0].detail, "devbytes = 4, bound retire_lag = 3");
}

TEST(Evaluate, ARunThatStoppedAtAnErrorGetsOnlyValidationAndDeterminism) {
  RunContext context{.completed = false, .lane = Lane::Spawn, .validation = true, .digests = {"aa", "bb"}};
  ReadBack read;
  read.validation_messages = {"VUID-x"};
  auto outcomes = evaluate(every_family(), read, context);
  ASSERT_TRUE(outcomes) << outcomes.error().message;
  EXPECT_EQ(ids(*outcomes), (std::vector<std::string>{"validation red", "determinism red"}));
}

TEST(Evaluate, AGaugeCheckNamingNoGaugeIsAnError) {
  auto outcomes = evaluate(every_family(), green_read_back(), RunContext{});  // no retire_lag knob
  ASSERT_FALSE(outcomes);
  EXPECT_EQ(outcomes.error().kind, ErrorKind::BadInput);
}

}  // namespace
}  // namespace tidemark::check
