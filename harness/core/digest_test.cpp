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

// The inputs of a run digest as one run gives them: a gauge of each source, a pixel and a trace hash.
RunDigestInputs one_of_each_source(std::vector<GaugeSource> order) {
  RunDigestInputs inputs;
  for (GaugeSource source : order) {
    if (source == GaugeSource::Backend) inputs.add_gauges(source, {{"wbufs", 1}});
    if (source == GaugeSource::KernelModel) inputs.add_gauges(source, {{"kpid", 7}});
    if (source == GaugeSource::Layer) inputs.add_gauges(source, {{"vkbufs", 2}});
  }
  inputs.set_pixel_hash("0123456789abcdef");
  inputs.set_trace_hash("fedcba9876543210");
  return inputs;
}

// Saved digests are compared across builds: the value is pinned (FNV-1a of each gauge's name and
// little-endian value, backend then kernel model then layer, then the pixel and trace hashes).
TEST(RunDigestInputs, DigestsTheSourcesInTheirFixedOrderWhateverOrderTheyCameIn) {
  const std::string pinned = "4be67b1aad3f2997";
  EXPECT_EQ(one_of_each_source({GaugeSource::Backend, GaugeSource::KernelModel, GaugeSource::Layer}).digest(), pinned);
  EXPECT_EQ(one_of_each_source({GaugeSource::Layer, GaugeSource::Backend, GaugeSource::KernelModel}).digest(), pinned);
  EXPECT_NE(one_of_each_source({GaugeSource::Backend, GaugeSource::Layer}).digest(), pinned);
}

// A gauge at its default (0) is not digested: a gauge added to a catalogue changes only the
// digests of the runs where it reads something, so a new gauge is no unannounced change of every digest.
TEST(RunDigestInputs, AGaugeAtItsDefaultLeavesTheDigestAsWithoutIt) {
  const std::string without = one_of_each_source({GaugeSource::Backend, GaugeSource::Layer}).digest();
  RunDigestInputs with_zero = one_of_each_source({GaugeSource::Backend});
  with_zero.add_gauges(GaugeSource::Layer, {{"vkbufs", 2}, {"vklost", 0}});
  EXPECT_EQ(with_zero.digest(), without);
  RunDigestInputs with_one = one_of_each_source({GaugeSource::Backend});
  with_one.add_gauges(GaugeSource::Layer, {{"vkbufs", 2}, {"vklost", 1}});
  EXPECT_NE(with_one.digest(), without);
}

TEST(RunDigestInputs, IsCompleteOnceGaugesAndPixelsAreIn) {
  RunDigestInputs inputs;
  EXPECT_FALSE(inputs.complete());
  inputs.add_gauges(GaugeSource::KernelModel, {{"kpid", 7}});
  EXPECT_FALSE(inputs.complete());
  inputs.set_pixel_hash("0123456789abcdef");
  EXPECT_TRUE(inputs.complete());
}

}  // namespace
}  // namespace tidemark
