#include "core/testing/scratch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace tidemark::test_support {
namespace {

namespace fs = std::filesystem;

// Check that two scratch folders of one name are two folders, and that each goes with what it
// holds when its value goes.
TEST(ScratchDir, TwoOfOneNameAreTwoFoldersAndEachGoesWithItsValue) {
  fs::path left;
  {
    const ScratchDir first("same"), second("same");
    EXPECT_NE(first.path(), second.path());
    EXPECT_TRUE(fs::is_directory(first.path()));
    EXPECT_TRUE(first.path().filename().string().starts_with("same-")) << first.path();
    std::ofstream(first / "held") << "held";
    left = first.path();
  }
  EXPECT_FALSE(fs::exists(left));
}

// Check that a scratch file holds its text byte for byte under the name it was given.
TEST(ScratchFile, HoldsItsTextByteForByteUnderItsName) {
  const std::string text("a\0b\n", 4);
  fs::path left;
  {
    const ScratchFile file("ledger.txt", text);
    EXPECT_EQ(file.path().filename(), "ledger.txt");
    std::ifstream in(file.path(), std::ios::binary);
    std::stringstream read;
    read << in.rdbuf();
    EXPECT_EQ(read.str(), text);
    left = file.path();
  }
  EXPECT_FALSE(fs::exists(left));
}

}  // namespace
}  // namespace tidemark::test_support
