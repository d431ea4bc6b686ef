// The client and server over the fake backend and the real model host (wire_test.h): the
// handshake, the host's answers and the trace. Each call's own crossing is wire_seam_test.cpp's.
#include <gmock/gmock.h>

#include <fstream>

#include <filesystem>

#include "core/digest.h"
#include "tracer/importer.h"
#include "wire/frame_io.h"
#include "wire/server.h"
#include "wire/wire_test.h"

namespace tidemark::wire {
namespace {

using ::testing::HasSubstr;

// Check that the handshake's config reaches the backend the registry picked by name, whole,
// with its knobs resolved (every known knob present) and its mutant looked up.
TEST_F(WireTest, TheHandshakeConfiguresTheBackend) {
  EXPECT_EQ(log_.config, hello_.config);
  EXPECT_EQ(log_.knobs.at("wire_deferred_mb"), 8);
  EXPECT_EQ(log_.knobs.at("retire_lag"), 0);
  EXPECT_EQ(log_.mutant, MutantId::None);
}

// Check that a handshake naming a backend the server's registry lacks is refused, naming
// the ones it has.
TEST(WireRegistry, AnUnknownBackendIsRefusedByName) {
  FakeServer server;
  auto& log = server.log;
  ServerSession session(server.options());
  auto reply = session.handle(make_frame(1, Hello{.token = "", .config = {.backend = "gl", .width = 4, .height = 4}}));
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->op, Opcode::ProtocolError);
  EXPECT_EQ(decode<ProtocolError>(*reply).value().message, "expected a backend (fake), found 'gl'");
  EXPECT_FALSE(log.created);
}

// Check that a drain with nothing pending sends nothing.
TEST_F(WireTest, ADrainWithNothingPendingSendsNothing) {
  ASSERT_TRUE(client_->drain());
  EXPECT_EQ(requests_sent(), 0u);
  ASSERT_TRUE(client_->finish());
  ASSERT_TRUE(client_->drain());
  EXPECT_EQ(requests_sent(), 2u);  // finish, then one sync
  ASSERT_TRUE(client_->drain());
  EXPECT_EQ(requests_sent(), 2u);
}

// Check that model calls reach the server's model host, not the device, and its gauges come
// back by name: a hand-written tracepoint hit, an allocation and its free, the reader's attach.
TEST_F(WireTest, ModelCallsReachTheHostAndItsGaugesComeBack) {
  ASSERT_TRUE(client_->kernel_event({1, 4321, 65536}));
  ASSERT_TRUE(client_->kernel_allocate(0, 77, MemoryType::Descriptor, 9, 4096));
  EXPECT_EQ(client_->kernel_node(77, MemoryType::Descriptor).value(), "4096");
  ASSERT_TRUE(client_->kernel_free(0, 77, 9));
  EXPECT_EQ(client_->kernel_node(77, MemoryType::Descriptor).value(), std::nullopt);
  ASSERT_TRUE(client_->kernel_attach({.failures = 2, .stop_requested = false}));
  auto gauges = client_->kernel_gauges();
  ASSERT_TRUE(gauges) << gauges.error().message;
  // The fake's 16x4 target (pid 1000 and the GPU's total), the hit, then pid 77's total and
  // the GPU's at the allocation and at the free.
  EXPECT_EQ(gauges->kevents, 7);
  EXPECT_EQ(gauges->kentries, 3);  // pid 1000, the GPU's total, the hit's: the free emptied pid 77
  EXPECT_EQ(gauges->kdeleted, 1);
  EXPECT_EQ(gauges->kglobal, 256);
  EXPECT_EQ(gauges->kreader, 1);
  EXPECT_EQ(gauges->kattach, 3);  // two failures, then the attach that held
  auto freed_twice = client_->kernel_free(0, 77, 9);
  ASSERT_TRUE(freed_twice);  // pipelined: the failure comes with the next reply
  auto drained = client_->drain();
  ASSERT_FALSE(drained);
  EXPECT_EQ(drained.error().message, "gpu_free: pid 77 has no allocation 9 on GPU 0");
}

// Check that the device's memory reaches the host as the handshake's pid: the fake backend's
// stores land in the kernel map, which agrees with its claim after every change.
TEST(WireHost, TheDevicesMemoryReachesTheHostAsTheHandshakesPid) {
  FakeServer server;
  auto channel = in_process_channel(server.options());
  WireClient client(*channel);
  Hello hello{.token = "", .config = {.backend = "fake", .width = 4, .height = 4}};
  hello.config.model.kernel_pid = 4242;
  ASSERT_TRUE(client.hello(hello));
  auto buffer = client.create_buffer().value();
  ASSERT_TRUE(client.buffer_data(buffer, std::vector<uint8_t>(5, 1)));
  ASSERT_TRUE(client.buffer_data(buffer, std::vector<uint8_t>(3, 1)));
  auto gauges = client.kernel_gauges().value();
  EXPECT_EQ(gauges.kpid, 3 + 4 * 4 * 4);  // the store and the 4x4 target
  EXPECT_EQ(gauges.kviews, 3 + 4 * 4 * 4);
  EXPECT_EQ(gauges.kbreaks, 0);
  EXPECT_EQ(client.kernel_node(4242, MemoryType::GlBuffer).value(), "3");
}

// Check that a reply to a frame the client never sent is a protocol error naming both
// frames (here a malformed draw slipped into the channel, refused by the server).
TEST_F(WireTest, AReplyToAFrameTheClientNeverSentIsAProtocolError) {
  ASSERT_TRUE(channel_->send(Frame{Opcode::Draw, 90, {1, 2, 3}}));  // a draw too short to decode
  auto gauges = client_->gauges();
  ASSERT_FALSE(gauges);
  EXPECT_THAT(gauges.error().message, HasSubstr("protocol: read_gauges #2 answered by protocol_error #90"));
}

// Check that the kernel driver's configuration rides the handshake.
TEST(WireKernel, TheHandshakeCarriesTheKernelDriversConfiguration) {
  FakeServer server;
  auto& log = server.log;
  auto channel = in_process_channel(server.options());
  WireClient client(*channel);
  Hello hello{.token = "", .config = {.backend = "fake", .width = 4, .height = 4}};
  hello.config.model.kmd.ring_dwords = 64;
  hello.config.model.kmd.power = kernel::PowerPolicy::Race;
  hello.config.model.kgsl.freq_table_hz = {600'000'000, 300'000'000};
  ASSERT_TRUE(client.hello(hello));
  EXPECT_EQ(log.config.model.kmd, hello.config.model.kmd);
  EXPECT_EQ(log.config.model.kgsl, hello.config.model.kgsl);
}

// Check that scripted kernel operations travel pipelined, in order, and that the report
// (a diagnosis and a node read) comes back field for field from the server's driver.
TEST_F(WireTest, KernelOperationsArePipelinedAndTheReportComesBackWhole) {
  kernel::KmdSubmitOp submit{.commands = {{kernel::CommandKind::Draw, 10'000'000, 0}}, .faults = {}};
  ASSERT_TRUE(client_->kernel_op(submit));
  ASSERT_TRUE(client_->kernel_op(kernel::KmdDiagnoseOp{.name = "heavy", .queue = kernel::Queue::Scene}));
  ASSERT_TRUE(client_->kernel_op(kernel::KgslSampleOp{.busy_us = 50, .total_us = 100, .freq_hz = 292'500'000}));
  ASSERT_TRUE(client_->kernel_op(kernel::KgslReadOp{.node = kernel::KgslNode::GpuLoad, .name = "load"}));
  EXPECT_EQ(replies_received(), 0u);

  auto report = client_->kernel_report();
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->diagnoses.size(), 1u);
  EXPECT_EQ(report->diagnoses[0].name, "heavy");
  EXPECT_EQ(report->diagnoses[0].diagnosis.scene, "heavy_work");  // a 10 ms draw, watched for 1 ms
  EXPECT_EQ(report->diagnoses[0].diagnosis.awaited, 1u);
  ASSERT_EQ(report->reads.size(), 1u);
  EXPECT_EQ(report->reads[0].text, "25\n");  // 50 of 100 at half of 585 MHz
}

// Check that the run's trace comes back whole from the server's host: the fake device's
// store as the pid's GPU memory and its bytes on the device track, sampled at the present.
TEST_F(WireTest, TheRunTraceComesBackWholeFromTheHost) {
  auto buffer = client_->create_buffer().value();
  ASSERT_TRUE(client_->buffer_data(buffer, std::vector<uint8_t>(4096, 7)));
  ASSERT_TRUE(client_->present());
  auto trace = client_->run_trace();
  ASSERT_TRUE(trace) << trace.error().message;
  tracer::ImportedTrace imported = tracer::import_trace(*trace);
  const tracer::Track* memory = imported.find("GPU Memory (gpu 0, pid 1000)");
  const tracer::Track* device = imported.find(std::string(api::kDeviceBytesTrack));
  ASSERT_TRUE(memory && device) << tracer::describe(imported);
  EXPECT_EQ(memory->rows.back().value, 4096.0 + 16 * 4 * 4);  // the store and the target
  EXPECT_EQ(device->rows.back().value, 4096.0);
}

// Check that the trace's hash, read without its bytes, is the hash of the bytes, and is kept up
// as the trace grows: the host hashes only what was written since the last read.
TEST_F(WireTest, TheRunTraceHashIsTheHashOfItsBytes) {
  auto buffer = client_->create_buffer().value();
  ASSERT_TRUE(client_->buffer_data(buffer, std::vector<uint8_t>(4096, 7)));
  ASSERT_TRUE(client_->present());
  auto first = client_->run_trace_hash();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, trace_hash(client_->run_trace().value()));
  ASSERT_TRUE(client_->buffer_data(buffer, std::vector<uint8_t>(8192, 9)));
  ASSERT_TRUE(client_->present());
  auto second = client_->run_trace_hash();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_NE(*second, *first);
  EXPECT_EQ(*second, trace_hash(client_->run_trace().value()));
}

// Check that every seed of the session fuzz target is greeted by the server: a seed whose Hello
// a protocol change left behind fuzzes nothing past the handshake (three such seeds once went
// unnoticed for two protocol versions).
TEST(FuzzSeeds, EverySessionSeedIsGreeted) {
  size_t seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TIDEMARK_SESSION_CORPUS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    FakeServer server;
    ServerConnection connection(server.options());
    MemorySource source(std::move(bytes));
    (void)connection.serve(source, [](const Frame&) -> Status { return {}; });
    EXPECT_TRUE(server.log.created) << entry.path().filename() << ": the handshake was refused";
    ++seeds;
  }
  EXPECT_GE(seeds, 20u);
}

}  // namespace
}  // namespace tidemark::wire
