#include "capture/capture_make.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/testing/scratch.h"

namespace tidemark::capture {
namespace {

namespace fs = std::filesystem;

// Check that a NAME.measure folder capture did not make is refused before anything runs, and
// left with all in it (capture removed it to measure its replay there).
TEST(MakeCapture, AMeasureFolderItDidNotMakeIsRefusedAndKept) {
  const test_support::ScratchDir scratch("capture-make");
  const fs::path out = scratch.path();
  fs::create_directories(out / "mine.measure");
  std::ofstream(out / "mine.measure" / "notes.txt") << "the user's";
  auto refused = make_capture({.command = {"/bin/true"}, .out = out, .name = "mine"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(refused.error().message, "capture: " + fs::absolute(out / "mine.measure").string() +
                                         " is there already: choose another --name or remove it");
  std::ifstream notes(out / "mine.measure" / "notes.txt");
  std::stringstream kept;
  kept << notes.rdbuf();
  EXPECT_EQ(kept.str(), "the user's");
  EXPECT_FALSE(fs::exists(out / "mine.capture.log"));  // the program never ran
}

}  // namespace
}  // namespace tidemark::capture
