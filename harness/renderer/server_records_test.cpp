// A renderer server's records into a model host at a read-back, with a fake tap feed (wire events
// made here) and a layer folder written here as the server's layer writes it: the trace read back
// with the project's importer holds the wire's events on its connection's track and the server's
// memory under the model's pid, and feeding is the same however often the read-back comes.
#include "renderer/server_records.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/testing/scratch.h"
#include "tracer/importer.h"

namespace tidemark::renderer {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kPid = 4242;

api::ModelConfig config() {
  api::ModelConfig c;
  c.kernel_pid = kPid;
  return c;
}

struct Host {
  host::ModelHost host{config(), MutantId::None, host::ModelHost::Layer::Reports};
  Host() { host.started({}); }
  tracer::ImportedTrace trace() { return tracer::import_trace(host.run_trace().value()); }
};

class ServerRecordsTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(folder_ / "1234"); }
  // Appends records to the server's events file, as its layer writes them.
  void layer_wrote(std::initializer_list<TidemarkLayerEvent> events) {
    std::ofstream out(folder_ / "1234" / "events.bin", std::ios::binary | std::ios::app);
    for (const auto& event : events) out.write(reinterpret_cast<const char*>(&event), sizeof(event));
  }
  const test_support::ScratchDir scratch_{"records"};
  const fs::path folder_ = scratch_.path();
};

tap::WireEvent command(uint64_t sequence, std::string kind, std::optional<uint32_t> resource = std::nullopt,
                       uint64_t data = 0) {
  return {.sequence = sequence, .kind = std::move(kind), .resource = resource, .payload_bytes = 44, .data_bytes = data};
}

// Check the conversion: a command keeps its name, a reply is named as one, only the arguments it
// has are written, and a greeting's length (its process's name) is not.
TEST(WireInstant, NamesTheCommandOrItsReplyAndKeepsItsNumbers) {
  WireInstant create = wire_instant(command(3, "VCMD_RESOURCE_CREATE2", std::nullopt, 256));
  EXPECT_EQ(create.name, "VCMD_RESOURCE_CREATE2");
  EXPECT_EQ(create.arguments,
            (std::vector<tracer::TrackEventArgument>{
                {"sequence", uint64_t{3}}, {"payload_bytes", uint64_t{44}}, {"data_bytes", uint64_t{256}}}));
  tap::WireEvent reply{.sequence = 4,
                       .direction = tap::Direction::ToClient,
                       .kind = "VCMD_RESOURCE_CREATE2",
                       .resource = 7,
                       .payload_bytes = 5,
                       .fds = 1};
  WireInstant answered = wire_instant(reply);
  EXPECT_EQ(answered.name, "VCMD_RESOURCE_CREATE2 reply");
  EXPECT_EQ(
      answered.arguments,
      (std::vector<tracer::TrackEventArgument>{
          {"sequence", uint64_t{4}}, {"resource", uint64_t{7}}, {"payload_bytes", uint64_t{5}}, {"fds", uint64_t{1}}}));
  tap::WireEvent greeting{.kind = "VCMD_CREATE_RENDERER", .payload_bytes = 16, .greeting = true};
  EXPECT_EQ(wire_instant(greeting).arguments, (std::vector<tracer::TrackEventArgument>{{"sequence", uint64_t{0}}}));
}

// Check that one read-back puts the wire's events on their connection's track under the server's
// process track, and the server's memory and submits in the map and the trace under the model's pid.
TEST_F(ServerRecordsTest, AReadBackFeedsTheWireAndTheServersMemoryIntoTheTrace) {
  ServerRecords records("virgl_test_server", "vtest", folder_ / "spill");
  records.saw(command(0, "VCMD_RESOURCE_CREATE2", std::nullopt, 4096));
  records.saw({.sequence = 1, .direction = tap::Direction::ToClient, .kind = "VCMD_RESOURCE_CREATE2", .resource = 1});
  records.saw(command(2, "VCMD_SUBMIT_CMD"));
  records.saw(command(0, "VCMD_RESOURCE_CREATE2", std::nullopt, 64));
  records.saw(command(3, "VCMD_RESOURCE_UNREF", 1));
  layer_wrote({{TIDEMARK_EVENT_DEVICE, 0, 0, 0},
               {TIDEMARK_EVENT_ALLOCATED, 1, 11, 4096},
               {TIDEMARK_EVENT_SUBMITTED, 0, 5, 8192},
               {TIDEMARK_EVENT_ALLOCATED, 1, 12, 1024},
               {TIDEMARK_EVENT_FREED, 1, 11, 4096}});
  Host host;
  ASSERT_TRUE(records.feed(host.host, folder_));
  EXPECT_EQ(host.host.kernel_gauges()->kpid, 1024);
  // The submit reached the kernel's queue live, over the kernel channel: the record adds no packet.
  EXPECT_EQ(host.host.kernel_gauges()->kbsubmits, 0);

  const tracer::ImportedTrace trace = host.trace();
  const tracer::EventTrack* server = trace.find_events("virgl_test_server");
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->pid, kPid);
  const tracer::EventTrack* wire = trace.find_events(wire_track_name("vtest", 0));
  ASSERT_NE(wire, nullptr);
  EXPECT_EQ(wire->parent, kServerTrackUuid);
  EXPECT_EQ(wire->count("VCMD_RESOURCE_CREATE2"), 2u);
  EXPECT_EQ(wire->count("VCMD_RESOURCE_CREATE2 reply"), 1u);
  EXPECT_EQ(wire->count("VCMD_RESOURCE_UNREF"), 1u);
  EXPECT_EQ(wire->instants.front().number("data_bytes"), 4096u);
  EXPECT_EQ(trace.stats.dropped_ftrace, 0);
  const tracer::Track* memory = trace.find("GPU Memory (gpu 0, pid 4242)");
  ASSERT_NE(memory, nullptr);
  std::vector<double> values;
  for (const auto& row : memory->rows) values.push_back(row.value);
  EXPECT_EQ(values, (std::vector<double>{4096, 5120, 1024}));
  // The submit's sample is the layer's own count then (8192), beside the map's entry (4096).
  const tracer::Track* layer_bytes = trace.find("Vulkan bytes (gpu 0)");
  ASSERT_NE(layer_bytes, nullptr);
  ASSERT_FALSE(layer_bytes->rows.empty());
  EXPECT_EQ(layer_bytes->rows.back().value, 8192);
  const tracer::Track* map = trace.find("Map entry (gpu 0)");
  ASSERT_NE(map, nullptr);
  EXPECT_EQ(map->rows.back().value, 4096);
}

// Check that what is fed does not depend on how the records were split between read-backs: the
// same records fed at one read-back or over two leave the same map and the same trace bytes, and a
// read-back with nothing new writes nothing.
TEST_F(ServerRecordsTest, TheSameRecordsGiveTheSameTraceWhateverTheReadBacksBetween) {
  ServerRecords once("virgl_test_server", "vtest", folder_ / "once"),
      twice("virgl_test_server", "vtest", folder_ / "twice");
  Host a, b;
  layer_wrote({{TIDEMARK_EVENT_ALLOCATED, 1, 11, 4096}, {TIDEMARK_EVENT_SUBMITTED, 0, 5, 4096}});
  ASSERT_TRUE(twice.feed(b.host, folder_));
  ASSERT_TRUE(twice.feed(b.host, folder_));  // nothing new: nothing written (a's trace would differ)
  layer_wrote({{TIDEMARK_EVENT_ALLOCATED, 1, 12, 64}, {TIDEMARK_EVENT_SUBMITTED, 0, 5, 4160}});
  ASSERT_TRUE(twice.feed(b.host, folder_));
  ASSERT_TRUE(once.feed(a.host, folder_));
  EXPECT_EQ(a.host.kernel_gauges()->kpid, 4160);
  EXPECT_EQ(b.host.kernel_gauges()->kpid, 4160);
  EXPECT_EQ(std::string(a.host.run_trace().value()), std::string(b.host.run_trace().value()));
}

// Check the bound on waiting events: past kEventsInMemory they go to the spill file a block at a
// time and memory keeps fewer than a block; the read-back feeds every event once, in the order the
// tap saw them (spilled blocks first), and drains the spill, which the next events start afresh.
TEST_F(ServerRecordsTest, EventsPastTheBoundWaitInTheSpillAndReachTheTraceInOrder) {
  const fs::path spill = folder_ / "wire-events.spill";
  ServerRecords records("virgl_test_server", "vtest", spill);
  constexpr uint64_t kEvents = ServerRecords::kEventsInMemory * 5 / 2;
  for (uint64_t k = 0; k < kEvents; ++k)
    records.saw(command(k, k % 2 ? "VCMD_RESOURCE_CREATE2" : "VCMD_SUBMIT_CMD", std::nullopt, k));
  EXPECT_EQ(records.waiting_in_memory(), kEvents - 2 * ServerRecords::kEventsInMemory);
  ASSERT_TRUE(fs::exists(spill));
  EXPECT_GT(fs::file_size(spill), 2 * ServerRecords::kEventsInMemory * 40);
  Host host;
  ASSERT_TRUE(records.feed(host.host, folder_));
  EXPECT_EQ(records.waiting_in_memory(), 0u);
  records.saw(command(kEvents, "VCMD_RESOURCE_UNREF", 9));
  ASSERT_TRUE(records.feed(host.host, folder_));

  const tracer::ImportedTrace trace = host.trace();
  const tracer::EventTrack* wire = trace.find_events(wire_track_name("vtest", 0));
  ASSERT_NE(wire, nullptr);
  ASSERT_EQ(wire->instants.size(), kEvents + 1);
  for (uint64_t k = 0; k < kEvents; ++k) {
    ASSERT_EQ(wire->instants[k].number("sequence"), k) << k;
    ASSERT_EQ(wire->instants[k].name, k % 2 ? "VCMD_RESOURCE_CREATE2" : "VCMD_SUBMIT_CMD") << k;
    ASSERT_EQ(wire->instants[k].number("data_bytes"), k ? std::optional(k) : std::nullopt) << k;
  }
  EXPECT_EQ(wire->instants.back().number("resource"), 9u);
}

}  // namespace
}  // namespace tidemark::renderer
