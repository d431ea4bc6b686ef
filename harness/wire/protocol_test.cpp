#include "wire/protocol.h"

#include <gtest/gtest.h>

#include "wire/server.h"

namespace tidemark::wire {
namespace {

std::array<uint8_t, kHeaderBytes> header_of(const Frame& frame) {
  auto bytes = encode(frame);
  std::array<uint8_t, kHeaderBytes> header;
  std::copy_n(bytes.begin(), kHeaderBytes, header.begin());
  return header;
}

// Check that a frame's header round-trips and the payload follows it unchanged.
TEST(Protocol, FrameHeaderRoundTrips) {
  Frame frame{Opcode::BufferData, 77, {1, 2, 3}};
  auto bytes = encode(frame);
  ASSERT_EQ(bytes.size(), kHeaderBytes + 3);
  auto header = decode_header(header_of(frame));
  ASSERT_TRUE(header) << header.error().message;
  EXPECT_EQ(header->op, Opcode::BufferData);
  EXPECT_EQ(header->sequence, 77u);
  EXPECT_EQ(header->length, 3u);
  EXPECT_EQ(bytes[0], 'T');  // the magic reads "TDMK" in a hex dump
  EXPECT_EQ(bytes[3], 'K');
}

// Check that each way a header can be wrong is a protocol error naming what was wrong.
TEST(Protocol, BadHeadersAreRefused) {
  auto header = header_of(Frame{Opcode::Flush, 1, {}});
  auto bad_magic = header;
  bad_magic[0] ^= 0xff;
  EXPECT_NE(decode_header(bad_magic).error().message.find("bad magic"), std::string::npos);

  auto bad_version = header;
  bad_version[4] = 9;
  EXPECT_EQ(decode_header(bad_version).error().message, "protocol: version 9, this side speaks 1");

  auto bad_opcode = header;
  bad_opcode[6] = 0xee;
  EXPECT_EQ(decode_header(bad_opcode).error().message, "protocol: unknown opcode 238");

  auto too_long = header;
  too_long[11] = 0x7f;  // ~2 GiB
  EXPECT_NE(decode_header(too_long).error().message.find("at most 268435456"), std::string::npos);
}

// Check that the handshake carries token, knobs, mutant and target exactly.
TEST(Protocol, HelloAndWelcomeRoundTrip) {
  Hello hello{"secret", {{"wire_deferred_mb", 8}, {"retire_lag", 2}}, "reclaim.frame_bucket", 192, 32, true};
  auto decoded = decode_hello(encode_hello(hello));
  ASSERT_TRUE(decoded) << decoded.error().message;
  EXPECT_EQ(decoded->token, "secret");
  EXPECT_EQ(decoded->knobs, hello.knobs);
  EXPECT_EQ(decoded->mutant, "reclaim.frame_bucket");
  EXPECT_EQ(decoded->width, 192);
  EXPECT_EQ(decoded->height, 32);
  EXPECT_TRUE(decoded->validation);

  Welcome welcome{4242, {{"wire_deferred_mb", 8}}, {"a", "b"}};
  auto back = decode_welcome(encode_welcome(welcome));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->server_pid, 4242);
  EXPECT_EQ(back->knobs, welcome.knobs);
  EXPECT_EQ(back->capabilities, welcome.capabilities);
}

// Check that every truncation of a valid hello is refused, never read past its end.
TEST(Protocol, EveryTruncatedHelloIsRefused) {
  auto payload = encode_hello(Hello{"token", {{"wire_deferred_mb", 8}}, "", 8, 8, false});
  for (size_t length = 0; length < payload.size(); ++length) {
    auto decoded = decode_hello(std::span(payload.data(), length));
    EXPECT_FALSE(decoded) << "length " << length;
  }
  payload.push_back(0);
  EXPECT_EQ(decode_hello(payload).error().message, "protocol: 1 unread payload bytes");
}

TEST(Protocol, HostileSizesAreRefused) {
  auto huge_target = encode_hello(Hello{"", {}, "", 100000, 8, false});
  EXPECT_NE(decode_hello(huge_target).error().message.find("target 100000x8"), std::string::npos);
  auto long_string = Writer().u32(kMaxStringBytes + 1).take();
  long_string.resize(long_string.size() + kMaxStringBytes + 1);
  Reader reader(long_string);
  EXPECT_NE(reader.string().error().message.find("at most 4096"), std::string::npos);
}

Frame hello_frame(std::string token) {
  return Frame{Opcode::Hello, 1, encode_hello(Hello{std::move(token), {}, "", 8, 8, false})};
}

// Check that a session refuses work before the hello and a wrong token, and closes.
TEST(ServerSession, RefusesWorkBeforeHelloAndAWrongToken) {
  ServerSession early(ServerOptions{"right", nullptr});
  Frame reply = early.handle(Frame{Opcode::Flush, 1, {}});
  EXPECT_EQ(reply.op, Opcode::ProtocolError);
  EXPECT_FALSE(early.open());

  ServerSession wrong(ServerOptions{"right", nullptr});
  reply = wrong.handle(hello_frame("wrong"));
  EXPECT_EQ(reply.op, Opcode::ProtocolError);
  Reader reader(reply.payload);
  EXPECT_EQ(reader.string().value(), "session token refused");
  EXPECT_FALSE(wrong.open());
}

// Check that a client cannot make the server treat a reply opcode as a request.
TEST(ServerSession, RefusesRepliesAsRequests) {
  ServerSession session(ServerOptions{"", nullptr});
  EXPECT_EQ(session.handle(Frame{Opcode::Welcome, 1, {}}).op, Opcode::ProtocolError);
}

// Check that an out-of-range knob in the handshake is refused by name.
TEST(ServerSession, RefusesAnOutOfRangeKnob) {
  ServerSession session(ServerOptions{"", nullptr});
  Frame hello{Opcode::Hello, 1, encode_hello(Hello{"", {{"wire_deferred_mb", 70000}}, "", 8, 8, false})};
  Frame reply = session.handle(hello);
  ASSERT_EQ(reply.op, Opcode::ProtocolError);
  Reader reader(reply.payload);
  EXPECT_EQ(reader.string().value(), "handshake wire_deferred_mb: expected 0..65536, found 70000");
}

}  // namespace
}  // namespace tidemark::wire
