// The `vulkan` backend on lavapipe through the client API, beside a real model host (a
// session from the registry): wait semantics, errors as values, gauges, the run trace, and
// that the validation layer really reports.
#include "backend/vulkan_backend.h"

#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <vector>

#include "backend/device.h"
#include "session/builtin_backends.h"
#include "session/session.h"
#include "tracer/importer.h"

namespace tidemark::backend {
namespace {

using api::BufferId;
using api::FenceId;

std::unique_ptr<api::Session> make_session(KnobValues knobs = {}) {
  api::SessionConfig config{.width = 8, .height = 8, .knobs = knobs};
  auto session = session::open_session(config, session::builtin_backends(), nullptr);
  EXPECT_TRUE(session) << session.error().error.message;
  return session ? std::move(*session) : nullptr;
}

std::vector<uint8_t> colour_bytes(size_t size, std::array<uint8_t, 4> rgba) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = rgba[i % 4];
  return bytes;
}

// Check that the Khronos layer is really active when asked for: an invalid call is reported.
TEST(BackendVulkan, ValidationLayerReportsAnInvalidCall) {
  auto device = Device::create(/*validation=*/true);
  ASSERT_TRUE(device) << device.error().message;
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 0;  // VUID-VkBufferCreateInfo-size-00912
  info.usage = VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkResult created = vkCreateBuffer((*device)->device(), &info, nullptr, &buffer);
  if (created == VK_SUCCESS) vkDestroyBuffer((*device)->device(), buffer, nullptr);
  auto messages = (*device)->validation_messages();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages.front().find("VUID-VkBufferCreateInfo-size-00912"), std::string::npos) << messages.front();
}

// Check that a draw lands with the uniform store's colour, and read back sees it.
TEST(BackendVulkan, DrawPaintsTheUniformColour) {
  auto session = make_session();
  ASSERT_TRUE(session);
  api::Device* backend = &session->device();
  BufferId colour = backend->create_buffer().value();
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(16, {10, 20, 30, 255})));
  ASSERT_TRUE(backend->draw({colour, 0, {0, 0, 4, 8}}));
  auto image = backend->read_pixels();
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->at(0, 0), (Rgba{10, 20, 30, 255}));
  EXPECT_EQ(image->at(3, 7), (Rgba{10, 20, 30, 255}));
  EXPECT_EQ(image->at(4, 0), (Rgba{0, 0, 0, 255}));  // outside the rectangle: cleared black
}

// Check that a fence's status follows only real waits: timeout 0 never polls, and a positive
// timeout is measured in the kernel model's time (the driver sees a fence 17 us after the
// submit: 5 us of ioctl, 2 us of engine, 10 us of interrupt), never the wall clock.
TEST(BackendVulkan, ClientWaitReportsOnlyWhatAWaitObserved) {
  auto session = make_session();
  ASSERT_TRUE(session);
  api::Device* backend = &session->device();
  BufferId colour = backend->create_buffer().value();
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(16, {1, 2, 3, 255})));
  ASSERT_TRUE(backend->draw({colour, 0, {0, 0, 8, 8}}));
  FenceId fence = backend->fence_sync().value();
  EXPECT_EQ(backend->client_wait(fence, false, 1'000'000'000).value(), WaitStatus::TimeoutExpired);
  EXPECT_EQ(backend->client_wait(fence, true, 0).value(), WaitStatus::TimeoutExpired);
  EXPECT_EQ(backend->client_wait(fence, false, 1'000).value(), WaitStatus::TimeoutExpired);
  EXPECT_EQ(backend->client_wait(fence, false, 1'000'000).value(), WaitStatus::ConditionSatisfied);
  EXPECT_EQ(backend->client_wait(fence, false, 0).value(), WaitStatus::AlreadySignaled);
}

// Check that misuse is an error value naming the operation, not a crash.
TEST(BackendVulkan, MisuseIsAnErrorValue) {
  auto session = make_session();
  ASSERT_TRUE(session);
  api::Device* backend = &session->device();
  BufferId colour = backend->create_buffer().value();
  auto no_store = backend->draw({colour, 0, {0, 0, 8, 8}});
  ASSERT_FALSE(no_store);
  EXPECT_EQ(no_store.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(no_store.error().message,
            "draw: uniform buffer 1 has no store (never specified, or specified with size 0)");

  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(16, {1, 2, 3, 4})));
  auto outside = backend->buffer_sub_data(colour, 12, colour_bytes(8, {0, 0, 0, 0}));
  ASSERT_FALSE(outside);
  EXPECT_EQ(outside.error().message, "buffer_sub_data: bytes 12..20 are outside the 16-byte store");
  EXPECT_FALSE(backend->buffer_data(99, {}));
  EXPECT_FALSE(backend->client_wait(7, false, 0));
}

// Check that the gauges count records, stores, parked bytes and device memory, and that
// the applied knob is published.
TEST(BackendVulkan, GaugesFollowTheWorkload) {
  auto session = make_session({{"wire_deferred_mb", 8}});
  ASSERT_TRUE(session);
  api::Device* backend = &session->device();
  Gauges before = backend->gauges().value();
  BufferId colour = backend->create_buffer().value();
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(4096, {1, 2, 3, 255})));
  ASSERT_TRUE(backend->draw({colour, 0, {0, 0, 8, 8}}));
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(4096, {4, 5, 6, 255})));  // parks the drawn store
  Gauges g = backend->gauges().value();
  EXPECT_EQ(g.wbufs, 1);
  EXPECT_EQ(g.wlive, 2);
  EXPECT_EQ(g.wdefn, 1);
  EXPECT_EQ(g.wdefpk, 4096);
  EXPECT_EQ(g.wdefmb, 8);
  EXPECT_EQ(g.dsets, 1);
  EXPECT_EQ(g.devallocs, before.devallocs + 2);
  EXPECT_GE(g.devbytes, before.devbytes + 2 * 4096);
  EXPECT_EQ(gauge_line(g), "wbuf[wbufs=1 wlivepk=2 wdefpk=4096 wdefsync=0]");

  ASSERT_TRUE(backend->present());
  g = backend->gauges().value();
  EXPECT_EQ(g.wdefn, 0);
  EXPECT_EQ(g.wlive, 1);
  EXPECT_EQ(g.dsets, 0);
  EXPECT_EQ(g.wlivepk, 2);  // a running maximum survives the boundary
}

// Check that the run's trace shows what the gauges and the kernel map say, as Trace Processor
// would import it: the process's "GPU Memory" track ends at the map's entry for the pid, the
// "Device bytes" counter at the device-bytes gauge, and "Parked bytes" shows the orphaned
// store at the flush's submit and 0 after the present swept it.
TEST(BackendVulkan, TheRunTraceAgreesWithTheGaugesAndTheKernelMap) {
  auto session = make_session();
  ASSERT_TRUE(session);
  api::Device* backend = &session->device();
  BufferId colour = backend->create_buffer().value();
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(4096, {1, 2, 3, 255})));
  ASSERT_TRUE(backend->draw({colour, 0, {0, 0, 8, 8}}));
  ASSERT_TRUE(backend->buffer_data(colour, colour_bytes(8192, {4, 5, 6, 255})));  // parks the first store
  ASSERT_TRUE(backend->flush());  // a submit: the counters are sampled, 4096 bytes parked
  ASSERT_TRUE(backend->present());
  Gauges gauges = backend->gauges().value();
  KernelGauges kernel = session->model().kernel_gauges().value();
  auto bytes = session->model().run_trace();
  ASSERT_TRUE(bytes) << bytes.error().message;
  tracer::ImportedTrace trace = tracer::import_trace(*bytes);
  EXPECT_EQ(trace.stats, tracer::ImportStats{.packets = trace.stats.packets});
  const tracer::Track* memory = trace.find("GPU Memory (gpu 0, pid 1000)");
  const tracer::Track* device = trace.find("Device bytes (gpu 0)");
  const tracer::Track* parked = trace.find("Parked bytes (gpu 0)");
  ASSERT_TRUE(memory && device && parked) << tracer::describe(trace);
  EXPECT_EQ(memory->rows.back().value, static_cast<double>(kernel.kpid));
  EXPECT_EQ(device->rows.back().value, static_cast<double>(gauges.devbytes));
  EXPECT_EQ(parked->rows.back().value, 0.0);
  bool parked_the_first_store = false;
  for (const auto& row : parked->rows) parked_the_first_store |= row.value == 4096.0;
  EXPECT_TRUE(parked_the_first_store) << tracer::describe(trace);
}

}  // namespace
}  // namespace tidemark::backend
