#include "core/digest.h"

#include <gtest/gtest.h>

namespace tidemark {
namespace {

// The published FNV-1a 64 test vectors: digests are compared across machines and runs,
// so the function must be exactly FNV-1a, not merely stable here.
TEST(Digest, MatchesPublishedFnv1aVectors) {
  EXPECT_EQ(Digest().hex(), "cbf29ce484222325");
  Digest a;
  a.add(std::string_view("a"));
  EXPECT_EQ(a.hex(), "af63dc4c8601ec8c");
  Digest foobar;
  foobar.add(std::string_view("foobar"));
  EXPECT_EQ(foobar.hex(), "85944171f73967e8");
}

// XXH3's published value for no bytes (xxHash's own sanity check), and a change of one byte
// anywhere in a large trace changes its hash.
TEST(TraceHash, IsXxh3OfTheBytes) {
  EXPECT_EQ(trace_hash(""), "2d06800538d394c2");
  std::string trace(1 << 20, '\x5a');
  const std::string whole = trace_hash(trace);
  trace[trace.size() / 2] ^= 1;
  EXPECT_NE(trace_hash(trace), whole);
}

TEST(Digest, IntegersAreHashedLittleEndian) {
  Digest from_int;
  from_int.add(uint64_t{0x0102030405060708});
  Digest from_bytes;
  const uint8_t bytes[] = {8, 7, 6, 5, 4, 3, 2, 1};
  from_bytes.add(std::span<const uint8_t>(bytes));
  EXPECT_EQ(from_int.value(), from_bytes.value());
}

}  // namespace
}  // namespace tidemark
