// Check tests only: that an outcome names its check.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
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

}  // namespace tidemark::check
