// The lanes over the fake backend: the session a config describes is opened once, in the
// lane asked for, and a config it cannot open is an error naming why.
#include "lanes/lanes.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include "backend_fake/fake_backend.h"

namespace tidemark::lanes {
namespace {

struct FakeLane {
  fake::FakeBackendLog log;
  api::BackendRegistry backends = fake::fake_backends(log);
  LaneOptions options(Lane lane) {
    LaneOptions options;
    options.lane = lane;
    options.backends = &backends;
    return options;
  }
};

api::SessionConfig fake_config() {
  return {.backend = "fake", .width = 4, .height = 4, .knobs = {{"wire_deferred_mb", 8}}};
}

// Check that the monolith lane opens the config's session in this process, its knobs resolved.
TEST(Lanes, TheMonolithOpensTheConfigsSessionInThisProcess) {
  FakeLane fake;
  auto session = open_lane(fake.options(Lane::Monolith), fake_config(), nullptr);
  ASSERT_TRUE(session) << session.error().message;
  EXPECT_TRUE(fake.log.created);
  EXPECT_EQ(fake.log.config, fake_config());
  EXPECT_EQ(fake.log.knobs.at("wire_deferred_mb"), 8);
  LaneTraffic report = (*session)->report();
  EXPECT_EQ(report.name, "monolith");
  EXPECT_EQ(report.client_pid, ::getpid());
  EXPECT_EQ(report.server_pid, ::getpid());
}

// Check that the monolith lane opens a resolved config's session as resolved, looking nothing up again.
TEST(Lanes, TheMonolithOpensAResolvedSessionAsResolved) {
  FakeLane fake;
  auto resolved = session::resolve_config(fake_config(), fake.backends, "test");
  ASSERT_TRUE(resolved) << resolved.error().message;
  resolved->knobs["wire_deferred_mb"] = 16;  // what was resolved, not what the config names
  auto session = open_lane(fake.options(Lane::Monolith), *resolved, nullptr);
  ASSERT_TRUE(session) << session.error().message;
  EXPECT_EQ(fake.log.knobs.at("wire_deferred_mb"), 16);
}

// Check that the split lane carries the whole config in the handshake and reports the knobs
// the server applied.
TEST(Lanes, TheSplitLaneCarriesTheConfigInTheHandshake) {
  FakeLane fake;
  auto session = open_lane(fake.options(Lane::Split), fake_config(), nullptr);
  ASSERT_TRUE(session) << session.error().message;
  EXPECT_EQ(fake.log.config, fake_config());
  LaneTraffic report = (*session)->report();
  EXPECT_EQ(report.name, "split");
  EXPECT_EQ(report.server_knobs.at("wire_deferred_mb"), 8);
  EXPECT_EQ(report.frames_sent, 1u);
  EXPECT_TRUE((*session)->close());
}

// Check that a config naming a backend the registry lacks opens nothing, in either in-process lane.
TEST(Lanes, AnUnknownBackendOpensNothing) {
  FakeLane fake;
  api::SessionConfig config = fake_config();
  config.backend = "nonesuch";
  auto direct = open_lane(fake.options(Lane::Monolith), config, nullptr);
  ASSERT_FALSE(direct);
  EXPECT_NE(direct.error().message.find("nonesuch"), std::string::npos) << direct.error().message;
  auto split = open_lane(fake.options(Lane::Split), config, nullptr);
  ASSERT_FALSE(split);
  EXPECT_NE(split.error().message.find("the server refused hello: "), std::string::npos) << split.error().message;
  EXPECT_FALSE(fake.log.created);
}

// Check that an in-process lane with no registry to open its session from is refused by name.
TEST(Lanes, AnInProcessLaneNeedsARegistry) {
  auto session = open_lane(LaneOptions{.lane = Lane::Split}, fake_config(), nullptr);
  ASSERT_FALSE(session);
  EXPECT_EQ(session.error().message, "the split lane was given no backend registry");
}

}  // namespace
}  // namespace tidemark::lanes
