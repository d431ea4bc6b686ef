// The subjects a command's paths name: each file once, each test name from one file only.
#include "subjects/subjects.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark::subjects {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScenario = R"(name: one-counter-sample
group: counters
target: {width: 8, height: 8}
counters:
  specs:
    - {id: 3, name: Fragment / Second, units: [pixel], per: [second], direction: forwards}
workload:
  - counter_sample: {at: 10, values: {3: 640}}
expect:
  trace:
    - {track: Fragment / Second (gpu 0), unit: Pixel/s, flagged: true}
controls:
  - mutant: tracer.repairs_units
    fails: ["trace[0]"]
)";

constexpr const char* kCapture = R"(name: the-replay-holds-few-buffers
group: captures
capture: app.trace
expect: [vkbufspk <= 16]
controls:
  - fault: shadow_copies
    fails: [vkbufspk <= 16]
)";

class GivenPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* folder : {"a", "b"}) {
      fs::create_directories(dir_ / folder);
      std::ofstream(dir_ / folder / "app.trace") << "at: an apitrace capture's magic";
      std::ofstream(dir_ / folder / "x.capture.yaml") << kCapture;
      std::ofstream(dir_ / folder / "s.yaml") << kScenario;
    }
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> ids(const std::vector<std::string>& paths) const {
    auto loaded = load_subjects(paths);
    EXPECT_TRUE(loaded) << loaded.error().message;
    std::vector<std::string> out;
    if (loaded)
      for (const auto& subject : loaded->subjects) out.push_back(test_name(subject->info(), Lane::Monolith, {}));
    return out;
  }
  const test_support::ScratchDir scratch_{"subjects"};
  const fs::path dir_ = scratch_.path();
};

// Check that one file named twice (again, under its folder, through a link) is one subject, of every kind.
TEST_F(GivenPaths, OneFileNamedTwiceIsOneSubject) {
  fs::create_symlink(dir_ / "a" / "x.capture.yaml", dir_ / "a" / "link.capture.yaml");
  const std::vector<std::string> once = {"Magma.Monolith.Counters.one-counter-sample",
                                         "Capture.Captures.the-replay-holds-few-buffers"};
  EXPECT_EQ(ids({path("a/x.capture.yaml"), path("a/x.capture.yaml"), path("a/s.yaml"), path("a/./s.yaml")}),
            (std::vector<std::string>{once[0], once[1]}));
  EXPECT_EQ(ids({path("a"), path("a/x.capture.yaml"), path("a/s.yaml"), path("a/link.capture.yaml")}),
            (std::vector<std::string>{once[0], once[1]}));
}

// Check that two files with one test name are refused, naming both, whatever kind they are.
TEST_F(GivenPaths, TwoFilesWithOneTestNameAreBadInputNamingBoth) {
  for (const std::string file : {"x.capture.yaml", "s.yaml"}) {
    auto loaded = load_subjects({path("a/" + file), path("b/" + file)});
    ASSERT_FALSE(loaded) << file;
    EXPECT_EQ(loaded.error().kind, ErrorKind::BadInput);
    EXPECT_NE(loaded.error().message.find(path("b/" + file) + ":1:1: expected a test name no other subject has"),
              std::string::npos)
        << loaded.error().message;
    EXPECT_NE(loaded.error().message.find("(first in " + path("a/" + file) + ")"), std::string::npos)
        << loaded.error().message;
  }
  auto folders = load_subjects({path("a"), path("b")});
  ASSERT_FALSE(folders);
  EXPECT_EQ(folders.error().kind, ErrorKind::BadInput);
}

}  // namespace
}  // namespace tidemark::subjects
