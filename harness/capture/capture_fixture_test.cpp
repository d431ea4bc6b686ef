// A capture fixture's file: what it names is checked where it is written.
#include "capture/capture_fixture.h"

#include <gtest/gtest.h>

#include <fstream>

#include "capture/testing/sample_fixture.h"
#include "core/testing/scratch.h"

namespace tidemark::capture {
namespace {

namespace fs = std::filesystem;

class CaptureFile : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(dir_ / "app.trace") << testing::kSampleCapture; }
  Result<CaptureFixture> load(const std::string& text) {
    std::ofstream(dir_ / "x.capture.yaml") << text;
    return load_capture_fixture(dir_ / "x.capture.yaml");
  }
  std::string error(const std::string& text) {
    auto loaded = load(text);
    return loaded ? "loaded" : loaded.error().message.substr(loaded.error().message.find(':') + 1);
  }
  const test_support::ScratchDir scratch_{"capture"};
  const fs::path dir_ = scratch_.path();
};

constexpr const char* kGood = testing::kSampleFixture;

TEST_F(CaptureFile, AFixtureNamesItsCaptureChecksAndControls) {
  auto fixture = load(kGood);
  ASSERT_TRUE(fixture) << fixture.error().message;
  EXPECT_EQ(fixture->id(), "captures/the-replay-holds-few-buffers");
  EXPECT_EQ(fixture->kind, CaptureKind::Apitrace);
  EXPECT_EQ(fixture->capture, dir_ / "app.trace");
  EXPECT_EQ(fixture->checks(), (std::vector<std::string>{"vkbufspk <= 16", "vksubmits > 0"}));
  ASSERT_EQ(fixture->controls.size(), 2u);
  EXPECT_EQ(fixture->controls[1].fault, "fail_allocation=3");
  const Replayer replayer = replayer_for(*fixture);
  EXPECT_EQ(replayer.command, (std::vector<std::string>{"eglretrace", "--headless", (dir_ / "app.trace").string()}));
  EXPECT_TRUE(is_capture_fixture("a/b.capture.yaml"));
  EXPECT_FALSE(is_capture_fixture("a/b.yaml"));
}

TEST_F(CaptureFile, WhatItNamesWrongIsAnErrorAtItsPlace) {
  std::string text = kGood;
  EXPECT_EQ(error(std::string(text).replace(text.find("app.trace"), 9, "app.zip")),
            "3:10: expected an apitrace (.trace) or GFXReconstruct (.gfxr) capture, found 'app.zip'");
  EXPECT_NE(error(std::string(text).replace(text.find("app.trace"), 9, "gone.trace"))
                .find("3:10: expected a capture file beside the fixture, found none at"),
            std::string::npos);
  // Bytes no replayer reads (a truncated download, a file of another kind) would replay nothing.
  std::ofstream(dir_ / "noise.trace") << "\x93\x11random";
  EXPECT_EQ(error(std::string(text).replace(text.find("app.trace"), 9, "noise.trace")),
            "3:10: expected an apitrace capture (starting 'at' or gzip's 1f8b), found " +
                (dir_ / "noise.trace").string() + " starting 93117261");
  std::ofstream(dir_ / "empty.gfxr");
  EXPECT_EQ(error(std::string(text).replace(text.find("app.trace"), 9, "empty.gfxr")),
            "3:10: expected a GFXReconstruct capture (starting 'GFXR'), found " + (dir_ / "empty.gfxr").string() +
                " starting empty");
  EXPECT_EQ(error(std::string(text).replace(text.find("hold_frees"), 10, "completion=real")),
            "7:12: expected one fault of the layer: hold_frees, never_done, shadow_copies or fail_allocation=N, found "
            "'completion=real'");
  EXPECT_EQ(error(std::string(text).replace(text.find("fails: [vkbufspk <= 16]"), 23, "fails: [vkbufspk <= 17]")),
            "8:13: expected a check of the fixture (vkbufspk <= 16; vksubmits > 0) or replay, found 'vkbufspk <= 17'");
  EXPECT_EQ(error("name: a\ngroup: b\ncapture: app.trace\n"),
            "1:1: expected an expect list (each process) or a whole list (the tree), found neither");
  EXPECT_NE(error("name: a\ngroup: b\ncapture: app.trace\nexpect: [wlivepk <= 1]\n")
                .find("4:10: expected a gauge of the layer"),
            std::string::npos);
}

// Check that a fixture's own time limits are read as a scenario's, and refused at their place.
TEST_F(CaptureFile, ItsTimeLimitsAreWholeSecondsAsAScenarios) {
  auto fixture = load(std::string(kGood) + "timeout: 30\ninactivity_timeout: 4\n");
  ASSERT_TRUE(fixture) << fixture.error().message;
  EXPECT_EQ(fixture->time_bounds, (TimeBoundsOverride{.wall = 30.0, .inactivity = 4.0}));
  EXPECT_EQ(load(kGood)->time_bounds, TimeBoundsOverride{});
  EXPECT_EQ(error(std::string(kGood) + "timeout: soon\n"),
            "11:10: expected an integer from 1 to 86400 for the seconds its whole run may take, found 'soon'");
}

TEST_F(CaptureFile, AControlIsAFaultADriverBuildOrASetupCutOneAtATime) {
  std::string text = kGood;
  auto on_build = load(std::string(text).replace(text.find("fault: hold_frees"), 17, "build: mesa-25.0.7"));
  ASSERT_TRUE(on_build) << on_build.error().message;
  EXPECT_EQ(on_build->controls[0].build, "mesa-25.0.7");
  EXPECT_EQ(on_build->controls[0].describe(), "build=mesa-25.0.7");
  EXPECT_EQ(on_build->controls[1].describe(), "fault=fail_allocation=3");
  EXPECT_EQ(
      error(std::string(text).replace(text.find("fault: hold_frees"), 17, "fault: hold_frees\n    build: mesa-25.0.7")),
      "7:5: expected a control with one of fault (a layer fault), build (a driver build) or replay (setup), found "
      "more than one");
  auto cut = load(std::string(text).replace(text.find("fault: hold_frees"), 17, "replay: setup"));
  ASSERT_TRUE(cut) << cut.error().message;
  EXPECT_EQ(cut->controls[0].cut, "setup");
  EXPECT_EQ(cut->controls[0].describe(), "replay=setup");
  EXPECT_EQ(error(std::string(text).replace(text.find("fault: hold_frees"), 17, "replay: all")),
            "7:13: expected setup, found 'all'");
  std::ofstream(dir_ / "app.gfxr") << "GFXR";
  std::string on_gfxr = std::string(text).replace(text.find("fault: hold_frees"), 17, "replay: setup");
  on_gfxr.replace(on_gfxr.find("app.trace"), 9, "app.gfxr");
  EXPECT_EQ(error(on_gfxr),
            "7:13: expected replay: setup on an apitrace capture (a GFXReconstruct one has no cut), found a "
            "GFXReconstruct capture");
}

// Check that the fixture's text, as capture and reduce write it, reads back as written.
TEST_F(CaptureFile, AWrittenFixtureReadsBack) {
  const FixtureDocument document{
      .comment = {"made here"},
      .name = "written-back",
      .group = "captures",
      .capture = "app.trace",
      .expect = {"vkbufspk <= 16"},
      .whole = {"vksubmits > 0"},
      .controls = {{.fault = "", .build = "mesa-25.0.7", .cut = "", .fails = {"vkbufspk <= 16"}, .where = {}},
                   {.fault = "fail_allocation=1", .build = "", .cut = "", .fails = {"replay"}, .where = {}},
                   {.fault = "", .build = "", .cut = "setup", .fails = {"vksubmits > 0"}, .where = {}}}};
  auto fixture = load(fixture_text(document));
  ASSERT_TRUE(fixture) << fixture.error().message;
  EXPECT_EQ(fixture->name, "written-back");
  EXPECT_EQ(fixture->checks(), (std::vector<std::string>{"vkbufspk <= 16", "vksubmits > 0"}));
  ASSERT_EQ(fixture->controls.size(), 3u);
  EXPECT_EQ(fixture->controls[0].build, "mesa-25.0.7");
  EXPECT_EQ(fixture->controls[1].fails, (std::vector<std::string>{"replay"}));
  EXPECT_EQ(fixture->controls[2].describe(), "replay=setup");
}

// Check that a name a command gives (capture --name, reduce --name) is a kebab-case name and never
// a path, so that nothing named after it lands outside the command's own output; a name of
// 120 000 characters is refused too (std::regex's recursion crashed on it).
TEST(FixtureName, OnlyAKebabCaseNameIsTaken) {
  for (const std::string name : {"respecify-2000", "a", "gl4-reduced"})
    EXPECT_TRUE(check_fixture_name(name, "--name")) << name;
  for (const std::string& name :
       std::vector<std::string>{"", "/tmp/users-file", "../../climbed", "a/b", "-a", "a-", "a--b", "Upper", "a b",
                                std::string(101, 'a'), std::string(120000, 'a')}) {
    auto refused = check_fixture_name(name, "--name");
    ASSERT_FALSE(refused) << name;
    EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(refused.error().message.rfind("--name: expected a name in kebab case ([a-z0-9]+(-[a-z0-9]+)*) of at "
                                            "most 100 characters, found '",
                                            0),
              0u);
  }
}

}  // namespace
}  // namespace tidemark::capture
