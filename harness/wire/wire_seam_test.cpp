// The wire's seams, one call at a time, as Dawn's WireTest checks them: the real client, the split
// lane's byte channel and the real server session, over strict mocks of the device and the model
// (generated from api/calls.yaml). A call reaches its own mock method with its own arguments, its
// reply comes back as the mock gave it, and a pipelined call crosses only when the wire is
// drained: the test advances the wire itself (a call with a value, or drain()), never by waiting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "calls/mocks.h"
#include "wire/channel.h"
#include "wire/client.h"
#include "wire/server.h"

namespace tidemark::wire {
namespace {

using ::testing::_;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::InSequence;
using ::testing::Lt;
using ::testing::MockFunction;
using ::testing::Return;
using ::testing::StrictMock;
using ::testing::VariantWith;

// A session that is the two mocks.
class MockSession final : public api::Session {
 public:
  MockSession(api::Device& device, api::Model& model) : device_(device), model_(model) {}
  api::Device& device() override { return device_; }
  api::Model& model() override { return model_; }
  const KnobValues& knobs() const override { return knobs_; }

 private:
  api::Device& device_;
  api::Model& model_;
  KnobValues knobs_{{"wire_deferred_mb", 8}};
};

class WireSeam : public ::testing::Test {
 protected:
  void SetUp() override {
    channel_ = in_process_channel(options());
    client_ = std::make_unique<WireClient>(*channel_);
    auto welcome = client_->hello(hello_);
    ASSERT_TRUE(welcome) << welcome.error().message;
  }
  // A server whose sessions are the two mocks.
  ServerOptions options() {
    ServerOptions options;
    options.open_session = [this](const api::SessionConfig&, std::function<void(const std::string&)>) {
      return api::OpenResult(std::make_unique<MockSession>(device_, model_));
    };
    return options;
  }
  // Frames the channel carried each way since the handshake.
  uint64_t requests_sent() const { return channel_->sent - 1; }
  uint64_t replies_received() const { return channel_->received - 1; }
  static std::unexpected<Error> failure(std::string message) {
    return std::unexpected(Error{ErrorKind::Fatal, std::move(message)});
  }

  StrictMock<api::MockDevice> device_;
  StrictMock<api::MockModel> model_;
  // Marks a moment in the sequence of mock calls: what was expected before it has crossed.
  StrictMock<MockFunction<void(std::string)>> moment_;
  Hello hello_{.token = "", .config = {.backend = "mock", .width = 16, .height = 4}};
  std::unique_ptr<Channel> channel_;
  std::unique_ptr<WireClient> client_;
};

// Check that a pipelined call crosses with its arguments, and only when the wire is drained.
TEST_F(WireSeam, APipelinedCallCrossesWithItsArgumentsWhenTheWireIsDrained) {
  InSequence order;
  EXPECT_CALL(moment_, Call("posted"));
  EXPECT_CALL(device_, buffer_sub_data(41, 4000000000ull, ElementsAre(0xaa, 0xbb))).WillOnce(Return(Status{}));
  std::vector<uint8_t> patch{0xaa, 0xbb};
  ASSERT_TRUE(client_->buffer_sub_data(41, 4000000000ull, patch));
  moment_.Call("posted");
  ASSERT_TRUE(client_->drain());
}

// Check that a draw's rectangle and buffers cross whole.
TEST_F(WireSeam, ADrawCrossesWhole) {
  api::DrawCall draw{.uniform = 3, .vertices = 4, .rect = {.x0 = 4, .y0 = 0, .x1 = 8, .y1 = 4}};
  EXPECT_CALL(device_, draw(draw)).WillOnce(Return(Status{}));
  ASSERT_TRUE(client_->draw(draw));
  ASSERT_TRUE(client_->drain());
}

// Check that calls without a value are not answered one by one: they cross together, on the
// next call that has a value, and only that call is answered.
TEST_F(WireSeam, CallsWithoutAValueTravelTogetherAndAreNotAnswered) {
  InSequence order;
  EXPECT_CALL(moment_, Call("posted"));
  EXPECT_CALL(device_, buffer_data(1, ElementsAre(7, 7, 7, 7))).Times(10).WillRepeatedly(Return(Status{}));
  EXPECT_CALL(device_, flush()).WillOnce(Return(Status{}));
  EXPECT_CALL(device_, gauges()).WillOnce(Return(Gauges{.wbufs = 1}));
  std::vector<uint8_t> data{7, 7, 7, 7};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(client_->buffer_data(1, data));
  ASSERT_TRUE(client_->flush());
  moment_.Call("posted");
  EXPECT_EQ(requests_sent(), 11u);
  EXPECT_EQ(replies_received(), 0u);
  auto gauges = client_->gauges();
  ASSERT_TRUE(gauges) << gauges.error().message;
  EXPECT_EQ(gauges->wbufs, 1);
  EXPECT_EQ(replies_received(), 1u);
}

// Check that each value comes back as the device gave it: a buffer's handle, a fence's, a wait's
// status, the pixels, the gauges and the validation messages (a long one cut to what the wire
// carries).
TEST_F(WireSeam, ValuesComeBackAsTheDeviceGaveThem) {
  EXPECT_CALL(device_, create_buffer()).WillOnce(Return(api::BufferId{41}));
  EXPECT_CALL(device_, fence_sync()).WillOnce(Return(api::FenceId{5}));
  EXPECT_CALL(device_, client_wait(5, true, 1000)).WillOnce(Return(WaitStatus::TimeoutExpired));
  Image image = make_image(16, 4, {0, 0, 0, 255});
  image.set(1, 2, {10, 20, 30, 40});
  EXPECT_CALL(device_, read_pixels()).WillOnce(Return(image));
  EXPECT_CALL(device_, gauges()).WillOnce(Return(Gauges{.wdefmb = 8, .submits = 3}));
  EXPECT_CALL(device_, validation_messages())
      .WillOnce(Return(std::vector<std::string>{"first message", std::string(5000, 'x')}));

  EXPECT_EQ(client_->create_buffer().value(), 41u);
  EXPECT_EQ(client_->fence_sync().value(), 5u);
  EXPECT_EQ(client_->client_wait(5, true, 1000).value(), WaitStatus::TimeoutExpired);
  auto pixels = client_->read_pixels();
  ASSERT_TRUE(pixels) << pixels.error().message;
  EXPECT_EQ(pixels->width, 16);
  EXPECT_EQ(pixels->pixels, image.pixels);
  auto gauges = client_->gauges().value();
  EXPECT_EQ(gauges.wdefmb, 8);
  EXPECT_EQ(gauges.submits, 3);
  auto messages = client_->validation_messages().value();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], "first message");
  EXPECT_EQ(messages[1].size(), kMaxStringBytes);
}

// Check that a failure in the 7th pipelined call names it: it comes back with the next reply
// as "5 calls after" (the 12th call is the latest), the calls after it never reach the device
// (the strict mock expects none) and the session goes on.
TEST_F(WireSeam, AFailureInTheSeventhPipelinedCallNamesIt) {
  EXPECT_CALL(device_, draw(Field(&api::DrawCall::uniform, Lt(7u)))).Times(6).WillRepeatedly(Return(Status{}));
  EXPECT_CALL(device_, draw(Field(&api::DrawCall::uniform, 7u)))
      .WillOnce(Return(std::unexpected(Error{ErrorKind::BadInput, "draw: uniform buffer 9 has no store"})));
  EXPECT_CALL(device_, gauges()).WillOnce(Return(Gauges{}));
  for (uint32_t i = 1; i <= 11; ++i) ASSERT_TRUE(client_->draw({.uniform = i}));
  auto fence = client_->fence_sync();
  ASSERT_FALSE(fence);
  EXPECT_EQ(fence.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(fence.error().message, "draw: uniform buffer 9 has no store");
  EXPECT_EQ(fence.error().calls_after, 5u);
  EXPECT_TRUE(client_->gauges());
}

// Check that a pipelined failure is reported once: the drain after it finds the pipe clean.
TEST_F(WireSeam, APipelinedFailureIsReportedOnce) {
  EXPECT_CALL(device_, present()).WillOnce(Return(failure("device lost"))).WillOnce(Return(Status{}));
  ASSERT_TRUE(client_->present());
  auto drained = client_->drain();
  ASSERT_FALSE(drained);
  EXPECT_EQ(drained.error().message, "device lost");
  EXPECT_EQ(drained.error().calls_after, 0u);
  EXPECT_TRUE(client_->drain());
  EXPECT_TRUE(client_->present());
  EXPECT_TRUE(client_->drain());
}

// Check that a call with a value reports its own failure, as its own.
TEST_F(WireSeam, ACallWithAValueReportsItsOwnFailure) {
  EXPECT_CALL(device_, client_wait(5, true, 1000)).WillOnce(Return(failure("submit 13 did not retire")));
  auto status = client_->client_wait(5, true, 1000);
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "submit 13 did not retire");
  EXPECT_EQ(status.error().calls_after, 0u);
}

// Check that the client never leaves more than kMaxPipelinedCalls calls unconfirmed: the call
// past the limit drains the ones before it first.
TEST_F(WireSeam, ThePipeIsDrainedBeforeItHoldsMoreThanTheLimit) {
  constexpr uint32_t limit = api::Device::kMaxPipelinedCalls;
  InSequence order;
  EXPECT_CALL(device_, flush()).Times(limit).WillRepeatedly(Return(Status{}));
  EXPECT_CALL(moment_, Call("past the limit"));
  EXPECT_CALL(device_, flush()).WillOnce(Return(Status{}));
  for (uint32_t i = 0; i < limit; ++i) ASSERT_TRUE(client_->flush());
  EXPECT_EQ(replies_received(), 0u);
  ASSERT_TRUE(client_->flush());
  EXPECT_EQ(replies_received(), 1u);
  moment_.Call("past the limit");
  ASSERT_TRUE(client_->drain());
}

// Check that model calls reach the model, never the device, with their arguments (a tracepoint
// event and an attach script travel as their own fields), and their values come back.
TEST_F(WireSeam, ModelCallsReachTheModelWithTheirArguments) {
  EXPECT_CALL(model_, kernel_event(kernel::GpuMemTotalEvent{1, 4321, 65536})).WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_allocate(0, 77, MemoryType::Descriptor, 9, 4096)).WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_free(0, 77, 9)).WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_attach(AllOf(Field(&kernel::AttachScript::failures, 2u),
                                          Field(&kernel::AttachScript::stop_requested, true))))
      .WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_sample()).WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_walk(ElementsAre(std::pair{2u, kernel::GpuMemTotalEvent{0, 77, 8}})))
      .WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_node(77, MemoryType::Descriptor)).WillOnce(Return(std::optional<std::string>("4096")));
  EXPECT_CALL(model_, kernel_node(78, MemoryType::Descriptor)).WillOnce(Return(std::optional<std::string>()));
  EXPECT_CALL(model_, kernel_dump()).WillOnce(Return(std::string("map: 1 entry\n")));
  EXPECT_CALL(model_, kernel_gauges()).WillOnce(Return(KernelGauges{.kevents = 7}));
  EXPECT_CALL(model_, observed_gauges()).WillOnce(Return(ObservedGauges{.vkbufs = 3}));
  EXPECT_CALL(model_, wire_gauges()).WillOnce(Return(NamedGauges{{"vtest_bytes", 12}}));

  ASSERT_TRUE(client_->kernel_event({1, 4321, 65536}));
  ASSERT_TRUE(client_->kernel_allocate(0, 77, MemoryType::Descriptor, 9, 4096));
  ASSERT_TRUE(client_->kernel_free(0, 77, 9));
  ASSERT_TRUE(client_->kernel_attach({.failures = 2, .stop_requested = true}));
  ASSERT_TRUE(client_->kernel_sample());
  ASSERT_TRUE(client_->kernel_walk({{2u, kernel::GpuMemTotalEvent{0, 77, 8}}}));
  EXPECT_EQ(client_->kernel_node(77, MemoryType::Descriptor).value(), "4096");
  EXPECT_EQ(client_->kernel_node(78, MemoryType::Descriptor).value(), std::nullopt);
  EXPECT_EQ(client_->kernel_dump().value(), "map: 1 entry\n");
  EXPECT_EQ(client_->kernel_gauges().value().kevents, 7);
  EXPECT_EQ(client_->observed_gauges().value().vkbufs, 3);
  EXPECT_THAT(client_->wire_gauges().value(), ElementsAre(std::pair{std::string("vtest_bytes"), int64_t{12}}));
}

// Check that an operation reaches the model as its own alternative of the variant, each on the
// message that carries it, and the report comes back whole.
TEST_F(WireSeam, OperationsReachTheModelAsTheirOwnAlternative) {
  InSequence order;
  EXPECT_CALL(model_, kernel_op(VariantWith<kernel::KgslSampleOp>(Field(&kernel::KgslSampleOp::busy_us, 50u))))
      .WillOnce(Return(Status{}));
  EXPECT_CALL(model_, kernel_op(VariantWith<kernel::KmdDiagnoseOp>(Field(&kernel::KmdDiagnoseOp::name, "heavy"))))
      .WillOnce(Return(Status{}));
  EXPECT_CALL(model_, trace_op(VariantWith<tracer::CounterSampleOp>(Field(&tracer::CounterSampleOp::ts, 1000u))))
      .WillOnce(Return(Status{}));
  kernel::KernelReport report;
  report.diagnoses.push_back({.name = "heavy"});
  EXPECT_CALL(model_, kernel_report()).WillOnce(Return(report));

  ASSERT_TRUE(client_->kernel_op(kernel::KgslSampleOp{.busy_us = 50, .total_us = 100, .freq_hz = 1}));
  ASSERT_TRUE(client_->kernel_op(kernel::KmdDiagnoseOp{.name = "heavy", .queue = kernel::Queue::Scene}));
  ASSERT_TRUE(client_->trace_op(tracer::CounterSampleOp{.ts = 1000, .gpu = 0, .samples = {}}));
  auto back = client_->kernel_report();
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->diagnoses.size(), 1u);
  EXPECT_EQ(back->diagnoses[0].name, "heavy");
}

// Check that the run trace comes back byte for byte from the model's view, and its hash as given.
TEST_F(WireSeam, TheRunTraceComesBackByteForByte) {
  std::string trace = "\x0a\x03\x00\x01\x02 a trace";
  EXPECT_CALL(model_, run_trace()).WillOnce(Return(std::string_view(trace)));
  EXPECT_CALL(model_, run_trace_hash()).WillOnce(Return(std::string("0123abcd")));
  EXPECT_EQ(client_->run_trace().value(), trace);
  EXPECT_EQ(client_->run_trace_hash().value(), "0123abcd");
}

// Check that a request naming a memory type the model does not have is refused at the seam,
// before any mock is called: a protocol error, naming the type, that ends the session.
TEST_F(WireSeam, AnUnknownMemoryTypeIsRefusedAtTheSeam) {
  ServerSession session(options());
  ASSERT_EQ(session.handle(make_frame(1, hello_))->op, Opcode::Welcome);
  Writer writer;
  writer.u32(77).u32(9);  // pid 77, memory type 9 (there are 9, from 0)
  auto refused = session.handle(Frame{Opcode::KernelNode, 2, writer.take()});
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->op, Opcode::ProtocolError);
  EXPECT_THAT(decode<ProtocolError>(*refused).value().message, HasSubstr("memory type 9"));
  EXPECT_FALSE(session.open());
}

}  // namespace
}  // namespace tidemark::wire
