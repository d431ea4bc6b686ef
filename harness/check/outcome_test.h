// Check tests only: that an outcome names its check.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "check/check.h"

namespace tidemark::check {

// Its kind and index, its text as the report shows it, and where the scenario wrote it.
inline void expect_names(const Outcome& outcome, scenario::CheckKind kind, size_t index, std::string_view text,
                         const SourceLocation& where) {
  EXPECT_EQ(outcome.id.kind, kind);
  EXPECT_EQ(outcome.id.index, index);
  EXPECT_EQ(outcome.text, text);
  EXPECT_EQ(format_location(outcome.where), format_location(where));
}

// An empty folder of the test run's own, `<TempDir>/tidemark-<suite>/<name>`.
inline std::filesystem::path fresh_test_dir(std::string_view suite, std::string_view name) {
  std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("tidemark-" + std::string(suite)) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tidemark::check
