// The digests file one build saves and another compares with: what is written reads back, and
// a bad line is bad input at its line.
#include "runner/verbs/parity.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark::runner {
namespace {

std::filesystem::path write_digests_file(const std::string& name, const std::string& text) {
  static const test_support::ScratchDir scratch("parity");
  auto file = scratch / name;
  std::ofstream(file) << text;
  return file;
}

TEST(Digests, WhatIsSavedReadsBackSubjectBySubject) {
  const std::map<std::string, std::string> saved{{"reclaim/a", "0123456789abcdef"},
                                                 {"portable/b@gl", "fedcba9876543210"}};
  auto file = write_digests_file("tidemark-digests-test.txt", digests_text(saved));
  auto read = read_digests(file);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, saved);
  std::filesystem::remove(file);
}

TEST(Digests, ABadLineOrASubjectTwiceIsBadInputAtItsLine) {
  auto file = write_digests_file("tidemark-digests-bad.txt", "# saved\nreclaim/a 01\nreclaim/a 02\n");
  auto twice = read_digests(file);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().kind, ErrorKind::BadInput);
  EXPECT_NE(twice.error().message.find(":3:1: expected each scenario once, found reclaim/a again"), std::string::npos);
  write_digests_file("tidemark-digests-bad.txt", "reclaim/a 01 extra\n");
  auto bad = read_digests(file);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find(":1:1: expected 'group/name digest', found 'reclaim/a 01 extra'"),
            std::string::npos);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace tidemark::runner
