#include <gtest/gtest.h>

#include "core/user_pattern.h"
#include "runner/kinds/scenario_subject.h"
#include "runner/pipeline/selection.h"

namespace tidemark::runner {
namespace {

scenario::Scenario scenario_in(std::string group, std::string name = "a-scenario") {
  scenario::Scenario scenario;
  scenario.group = std::move(group);
  scenario.name = std::move(name);
  return scenario;
}

Subjects subjects_of(const std::vector<scenario::Scenario>& scenarios) {
  Subjects subjects;
  for (const auto& scenario : scenarios)
    subjects.push_back(std::make_unique<ScenarioSubject>(std::make_shared<const scenario::Scenario>(scenario)));
  return subjects;
}

// What `ctest -L <regex>` would select from these scenarios registered in every lane.
std::vector<std::string> select(const std::vector<scenario::Scenario>& scenarios, const std::string& regex) {
  std::vector<std::string> selected;
  auto pattern = UserPattern::compile(regex, "-L", "a label");
  EXPECT_TRUE(pattern);
  for (const auto& subject : subjects_of(scenarios))
    for (Lane lane : kAllLanes)
      for (const auto& label : test_labels(subject->info(), lane))
        if (pattern && pattern->found_in(label)) {
          selected.push_back(test_name(subject->info(), lane, ""));
          break;
        }
  return selected;
}

// Check that each lane label selects exactly that lane's copies, and the group label all four.
TEST(Labels, LaneLabelsSelectOneLaneAndGroupLabelsEveryLane) {
  std::vector<scenario::Scenario> scenarios = {scenario_in("reclaim", "one"), scenario_in("wire-buffers", "two")};
  ASSERT_TRUE(check_label_hygiene(subjects_of(scenarios)));
  EXPECT_EQ(select(scenarios, "integration-magma-split"),
            (std::vector<std::string>{"Magma.Split.Reclaim.one", "Magma.Split.WireBuffers.two"}));
  EXPECT_EQ(select(scenarios, "integration-magma-tcp"),
            (std::vector<std::string>{"Magma.Tcp.Reclaim.one", "Magma.Tcp.WireBuffers.two"}));
  EXPECT_EQ(select(scenarios, "integration-magma-reclaim"),
            (std::vector<std::string>{"Magma.Monolith.Reclaim.one", "Magma.Split.Reclaim.one",
                                      "Magma.Spawn.Reclaim.one", "Magma.Tcp.Reclaim.one"}));
}

// Check that a group whose label contains a lane label is refused: -L ...-tcp would pick it
// up in every lane.
TEST(Labels, AGroupNamedLikeALaneIsRefused) {
  auto status = check_label_hygiene(subjects_of({scenario_in("reclaim"), scenario_in("tcp-extras")}));
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::BadInput);
  EXPECT_NE(status.error().message.find("ctest -L integration-magma-tcp would also select "
                                        "Magma.Monolith.TcpExtras.a-scenario"),
            std::string::npos)
      << status.error().message;
}

// Check that one group label may not contain another.
TEST(Labels, AGroupLabelInsideAnotherIsRefused) {
  auto status = check_label_hygiene(subjects_of({scenario_in("reclaim"), scenario_in("reclaim-extra")}));
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find("ctest -L integration-magma-reclaim would also select"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::runner

namespace tidemark::runner {
namespace {

// A summary's series tells runs apart by what they ran, never by the order options were given:
// shards that took their knobs in another order still merge as one run.
TEST(RunSeries, NamesWhatTheRunRanWithTheKnobsSorted) {
  RunOptions options;
  EXPECT_EQ(run_series("monolith", {}, options), "run lane=monolith");
  options.column.backend = "gl";
  options.variant.mutant = MutantChoice::named("reclaim.frame_bucket");
  options.repeat = 20;
  options.validation = true;
  EXPECT_EQ(run_series("spawn", {"wire_deferred_mb=0", "frames=2"}, options),
            "run lane=spawn backend=gl mutant=reclaim.frame_bucket knob=frames=2 knob=wire_deferred_mb=0 repeat=20 "
            "validation");
  EXPECT_EQ(run_series("spawn", {"frames=2", "wire_deferred_mb=0"}, options),
            run_series("spawn", {"wire_deferred_mb=0", "frames=2"}, options));
}

}  // namespace
}  // namespace tidemark::runner
