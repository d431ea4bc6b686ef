#include "runner/expectations.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace tidemark::runner {
namespace {

std::filesystem::path written(const std::string& name, const std::string& text) {
  auto file = std::filesystem::path(::testing::TempDir()) / (std::to_string(::getpid()) + "-" + name);
  std::ofstream(file, std::ios::binary) << text;
  return file;
}

// Check that a file saved with CRLF line ends reads as the same lines, blank ones included.
TEST(Expectations, CrlfLineEndsReadAsTheSameLines) {
  auto file = written("crlf.txt", "# known failures\r\n\r\ngl reclaim/bands gauge[0] # wlivepk = 9, bound 4\r\n");
  auto loaded = load_expectations(file);
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].scenario, "reclaim/bands");
  EXPECT_EQ((*loaded)[0].reason, "wlivepk = 9, bound 4");
  EXPECT_EQ((*loaded)[0].where.line, 3);
}

// Check that a second line for one backend and scenario names the first one's line.
TEST(Expectations, ASecondLineForOneBackendAndScenarioNamesTheFirst) {
  auto file = written("twice.txt",
                      "gl reclaim/bands gauge[0] # a\nvulkan reclaim/bands gauge[0] # b\ngl reclaim/bands pixels[0] # c\n");
  auto loaded = load_expectations(file);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().message,
            file.string() + ":3:1: expected one line per backend and scenario, found gl reclaim/bands again (first on line 1)");
}

}  // namespace
}  // namespace tidemark::runner
