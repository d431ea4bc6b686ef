// A backend judges a scenario only with every kind of gauge the scenario's checks read.
#include <gtest/gtest.h>

#include "runner/kinds/scenario_subject.h"

namespace tidemark::runner {
namespace {

const api::BackendEntry kDeviceOnly{.name = "counting", .summary = "", .gauges = {GaugeKind::Device}, .make = {}};
const api::BackendEntry kReclaimModel{
    .name = "model", .summary = "", .gauges = {GaugeKind::Device, GaugeKind::Reclaim}, .make = {}};

scenario::Scenario load(std::string_view checks) {
  std::string text = R"(name: s
group: g
target: {width: 8, height: 8}
buffers: [color]
workload:
  - buffer_data: {buffer: color, size: 16}
expect:
  gauges: )" + std::string(checks) +
                     "\n";
  auto loaded = scenario::load_text(text, "s.yaml");
  EXPECT_TRUE(loaded) << loaded.error().message;
  return loaded.value_or(scenario::Scenario{});
}

// Check that a backend without reclaim-model gauges refuses a scenario whose check reads one,
// naming the check's place, the gauge and what the backend does give.
TEST(BackendJudges, ABackendWithoutAKindRefusesTheScenarioNamingTheGauge) {
  auto scenario = load("[devbytes > 0, wdefpk == 0]");
  auto refused = check_backend_judges(scenario, kDeviceOnly);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(refused.error().message,
            "s.yaml:8:26: expected a gauge the counting backend gives (device), found 'wdefpk', a reclaim-model gauge");
  EXPECT_TRUE(check_backend_judges(scenario, kReclaimModel));
}

// Check that device gauges and knobs need nothing beyond the device kind.
TEST(BackendJudges, DeviceGaugesAndKnobsAreJudgedByAnyBackend) {
  auto scenario = load("[devbytes > 0, wlivepk <= 1, wire_deferred_mb == 64]");
  EXPECT_TRUE(check_backend_judges(scenario, kDeviceOnly));
  EXPECT_EQ(scenario.gauge_uses().count(GaugeKind::Reclaim), 0u);
  EXPECT_EQ(scenario.gauge_uses().at(GaugeKind::Device).name, "devbytes");
}

}  // namespace
}  // namespace tidemark::runner
