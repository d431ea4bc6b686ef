// A run and its replay digest alike: the runner digests what it read back, the replay the replies
// it got, both through RunDigestInputs. A gauge source that one side leaves out, misplaces or
// labels as another fails here.
#include "runner/kinds/digest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "core/gauges.h"
#include "wire/reply_digest.h"

namespace tidemark::runner {
namespace {

// Every gauge of every source a value of its own, so a gauge moved or dropped changes the digest.
check::ReadBack read_back_of_every_source() {
  check::ReadBack read;
  int64_t next = 1;
  for (const auto& spec : kGauges) read.gauges.*spec.field = next++;
  read.kernel_gauges.emplace();
  for (const auto& spec : kKernelGauges) (*read.kernel_gauges).*spec.field = next++;
  read.observed_gauges.emplace();
  for (const auto& spec : kObservedGauges) (*read.observed_gauges).*spec.field = next++;
  read.image = make_image(4, 2, Rgba{10, 20, 30, 255});
  read.trace = "a run trace's bytes";
  return read;
}

// The replies a server gives the reads of `read`, each beside the request it answers.
std::vector<std::pair<wire::Opcode, wire::Frame>> replies_to_reads_of(const check::ReadBack& read) {
  std::vector<std::pair<wire::Opcode, wire::Frame>> replies;
  uint32_t sequence = 1;
  auto reply = [&](wire::Opcode request, const auto& message) {
    replies.emplace_back(request, wire::make_frame(sequence++, message));
  };
  reply(wire::Opcode::ReadPixels,
        wire::Pixels{.width = read.image.width, .height = read.image.height, .bytes = read.image.pixels});
  reply(wire::Opcode::ReadGauges, wire::GaugeValues{.values = named(read.gauges)});
  reply(wire::Opcode::ReadKernelGauges, wire::GaugeValues{.values = named(*read.kernel_gauges)});
  reply(wire::Opcode::ReadObservedGauges, wire::GaugeValues{.values = named(*read.observed_gauges)});
  reply(wire::Opcode::ReadTrace, wire::TraceHash{.hash = trace_hash(read.trace)});
  return replies;
}

std::string replayed_digest(const std::vector<std::pair<wire::Opcode, wire::Frame>>& replies) {
  RunDigestInputs inputs;
  for (const auto& [request, reply] : replies) wire::add_to_run_digest(inputs, request, reply);
  EXPECT_TRUE(inputs.complete());
  return inputs.digest();
}

TEST(RunDigest, TheRunnerAndTheReplayDigestTheSameReadBackAlike) {
  const check::ReadBack read = read_back_of_every_source();
  auto replies = replies_to_reads_of(read);
  EXPECT_EQ(replayed_digest(replies), run_digest(read));
  std::ranges::reverse(replies);  // a recording that read the sources in another order
  EXPECT_EQ(replayed_digest(replies), run_digest(read));
}

// A run that reads no kernel gauges (a backend-only scenario) and its replay, which has no such reply.
TEST(RunDigest, ASourceNotReadIsLeftOutOnBothSides) {
  check::ReadBack read = read_back_of_every_source();
  const std::string with_every_source = run_digest(read);
  read.kernel_gauges.reset();
  auto replies = replies_to_reads_of(read_back_of_every_source());
  std::erase_if(replies, [](const auto& reply) { return reply.first == wire::Opcode::ReadKernelGauges; });
  EXPECT_EQ(replayed_digest(replies), run_digest(read));
  EXPECT_NE(run_digest(read), with_every_source);
}

TEST(RunDigest, EachGaugeReadingRequestNamesItsSource) {
  EXPECT_EQ(wire::gauge_source(wire::Opcode::ReadGauges), GaugeSource::Backend);
  EXPECT_EQ(wire::gauge_source(wire::Opcode::ReadKernelGauges), GaugeSource::KernelModel);
  EXPECT_EQ(wire::gauge_source(wire::Opcode::ReadObservedGauges), GaugeSource::Layer);
  EXPECT_EQ(wire::gauge_source(wire::Opcode::ReadPixels), std::nullopt);
}

}  // namespace
}  // namespace tidemark::runner
