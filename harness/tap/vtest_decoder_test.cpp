#include "tap/vtest_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace tidemark::tap {
namespace {

using ::testing::HasSubstr;

// One direction's bytes, built a message at a time, with where its fd-carrying bytes are.
struct Stream {
  std::vector<std::byte> bytes;
  std::vector<size_t> fd_at;

  Stream& words(std::initializer_list<uint32_t> values) {
    for (uint32_t value : values) {
      const size_t at = bytes.size();
      bytes.resize(at + 4);
      std::memcpy(bytes.data() + at, &value, 4);
    }
    return *this;
  }
  Stream& text(std::string_view value) {
    for (char c : value) bytes.push_back(static_cast<std::byte>(c));
    return *this;
  }
  Stream& filler(size_t count) {
    bytes.insert(bytes.end(), count, std::byte{0x5a});
    return *this;
  }
  Stream& fd_byte() {
    fd_at.push_back(bytes.size());
    bytes.push_back(std::byte{0});
    return *this;
  }
  // The descriptors of bytes [begin, end).
  size_t fds_in(size_t begin, size_t end) const {
    size_t count = 0;
    for (size_t at : fd_at) count += at >= begin && at < end;
    return count;
  }
};

Status feed(VtestDecoder& decoder, Direction direction, const Stream& stream, size_t begin, size_t end) {
  return decoder.feed(direction, std::span(stream.bytes).subspan(begin, end - begin), stream.fds_in(begin, end));
}

// The client's stream up to `client_cut`, the server's, then the rest of the client's: the
// client's commands after the cut name resources the server's replies made.
Status feed_all(VtestDecoder& decoder, const Stream& client, const Stream& server, size_t client_cut = SIZE_MAX) {
  const size_t cut = std::min(client_cut, client.bytes.size());
  TIDEMARK_CHECK(feed(decoder, Direction::ToServer, client, 0, cut));
  TIDEMARK_CHECK(feed(decoder, Direction::ToClient, server, 0, server.bytes.size()));
  TIDEMARK_CHECK(feed(decoder, Direction::ToServer, client, cut, client.bytes.size()));
  return decoder.finish();
}

// Mesa's opening: its name, the ping and dummy busy wait that probe for a versioned server, the
// version, both caps sets.
void opening(Stream& client, Stream& server, uint32_t version) {
  client.words({4, kVcmdCreateRenderer}).text(std::string_view("tap\0", 4));
  client.words({0, kVcmdPingProtocolVersion}).words({2, kVcmdResourceBusyWait, 0, 0});
  client.words({1, kVcmdProtocolVersion, 3});
  client.words({0, kVcmdGetCaps2}).words({0, kVcmdGetCaps});
  server.words({0, kVcmdPingProtocolVersion}).words({1, kVcmdResourceBusyWait, 0});
  server.words({1, kVcmdProtocolVersion, version});
  server.words({9, 2}).filler(8);  // caps replies: their length counts bytes + 1
  server.words({5, 1}).filler(4);
}

// Every command of protocol version 3 and the server's replies to them; the client's stream
// runs ahead of the server's (creates sent before the version was answered) up to the returned
// cut, where it unrefs the resources the replies named.
size_t every_command(Stream& client, Stream& server) {
  opening(client, server, 3);
  client.words({1, kVcmdGetParam, 1}).words({2, kVcmdGetCapset, 1, 1}).words({1, kVcmdContextInit, 1});
  client.words({10, kVcmdResourceCreate, 0, 2, 1, 2, 64, 1, 1, 1, 0, 0});
  client.words({11, kVcmdResourceCreate2, 0, 0, 1, 2, 256, 1, 1, 1, 0, 0, 256});
  client.words({6, kVcmdResourceCreateBlob, 1, 1, 4096, 0, 0, 0});
  client.words({11 + 2, kVcmdTransferPut, 1, 0, 0, 0, 0, 0, 0, 6, 1, 1, 6}).filler(6);
  client.words({11, kVcmdTransferGet, 1, 0, 0, 0, 0, 0, 0, 8, 1, 1, 8});
  client.words({10 + 64, kVcmdTransferPut2, 2, 0, 0, 0, 0, 256, 1, 1, 256, 0});
  client.words({10, kVcmdTransferGet2, 2, 0, 0, 0, 0, 256, 1, 1, 256, 0});
  client.words({3, kVcmdSubmitCmd, 1, 2, 3});
  client.words({2, kVcmdSyncCreate, 0, 0}).words({1, kVcmdSyncRead, 1}).words({3, kVcmdSyncWrite, 1, 5, 0});
  client.words({5, kVcmdSyncWait, 0, 100, 1, 5, 0});
  client.words({1 + 8 + 3, kVcmdSubmitCmd2, 1, 0, 9, 2, 11, 0, 0, 0, 0, 7, 7, 0});
  client.words({1, kVcmdSyncUnref, 1});
  const size_t cut = client.bytes.size();
  client.words({1, kVcmdResourceUnref, 1}).words({1, kVcmdResourceUnref, 2}).words({1, kVcmdResourceUnref, 3});
  server.words({2, kVcmdGetParam, 1, 0}).words({3, kVcmdGetCapset, 1, 0, 0});
  server.words({1, kVcmdResourceCreate, 1});
  server.words({1, kVcmdResourceCreate2, 2}).fd_byte();
  server.words({1, kVcmdResourceCreateBlob, 3}).fd_byte();
  server.filler(8);  // TRANSFER_GET's data, headerless
  server.words({1, kVcmdSyncCreate, 1}).words({2, kVcmdSyncRead, 5, 0});
  server.words({0, kVcmdSyncWait}).fd_byte();
  return cut;
}

TEST(VtestDecoder, DecodesEveryCommandAndReply) {
  Stream client, server;
  const size_t cut = every_command(client, server);
  VtestDecoder decoder;
  ASSERT_TRUE(feed_all(decoder, client, server, cut)) << decoder.finish().error().message;
  const WireGauges& gauges = decoder.gauges();
  EXPECT_EQ(decoder.protocol_version(), 3u);
  EXPECT_EQ(gauges.wire_resources_created, 3u);
  EXPECT_EQ(gauges.wire_resources_destroyed, 3u);
  EXPECT_EQ(gauges.wire_resources_peak, 3);
  EXPECT_EQ(gauges.wire_resources, 0);
  EXPECT_EQ(gauges.wire_commands, 26u);
  EXPECT_EQ(gauges.wire_replies, 14u);
  EXPECT_EQ(gauges.wire_fds_to_client, 3u);
  EXPECT_EQ(gauges.wire_bytes_to_server, client.bytes.size());
  EXPECT_EQ(gauges.wire_bytes_to_client, server.bytes.size());
  for (uint32_t id = 1; id <= kVcmdLast; ++id)
    EXPECT_EQ(gauges.wire_commands_by_kind.count(vtest_command_name(id)), 1u) << vtest_command_name(id);
  EXPECT_EQ(gauges.wire_commands_by_kind.at("VCMD_RESOURCE_UNREF"), 3u);

  const std::vector<WireEvent> events = decoder.take_events();
  ASSERT_EQ(events.size(), 26u + 14u);
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].sequence, i);
  EXPECT_EQ(events[0],
            (WireEvent{.sequence = 0, .kind = "VCMD_CREATE_RENDERER", .payload_bytes = 4, .greeting = true}));
  auto find = [&](std::string_view kind, Direction direction) {
    for (const WireEvent& event : events)
      if (event.kind == kind && event.direction == direction) return event;
    return WireEvent{};
  };
  const WireEvent created = find("VCMD_RESOURCE_CREATE2", Direction::ToClient);
  EXPECT_EQ(created.resource, 2u);
  EXPECT_EQ(created.fds, 1u);
  EXPECT_EQ(created.payload_bytes, 5u);  // the id and the fd's byte
  EXPECT_EQ(find("VCMD_TRANSFER_PUT", Direction::ToServer).payload_bytes, 44u + 6u);
  EXPECT_EQ(find("VCMD_TRANSFER_GET", Direction::ToClient).payload_bytes, 8u);
  EXPECT_EQ(find("VCMD_SUBMIT_CMD", Direction::ToServer).payload_bytes, 12u);
  EXPECT_EQ(find("VCMD_GET_CAPS2", Direction::ToClient).payload_bytes, 8u);
  EXPECT_EQ(find("VCMD_RESOURCE_UNREF", Direction::ToServer).resource, 1u);
  // The storage a create makes and the data a transfer moves, as each command names them.
  EXPECT_EQ(find("VCMD_RESOURCE_CREATE2", Direction::ToServer).data_bytes, 256u);
  EXPECT_EQ(find("VCMD_RESOURCE_CREATE", Direction::ToServer).data_bytes, 0u);
  EXPECT_EQ(find("VCMD_TRANSFER_PUT", Direction::ToServer).data_bytes, 6u);
  EXPECT_EQ(find("VCMD_TRANSFER_GET", Direction::ToServer).data_bytes, 8u);
  EXPECT_EQ(find("VCMD_TRANSFER_PUT2", Direction::ToServer).data_bytes, 256u);
  EXPECT_EQ(find("VCMD_TRANSFER_GET2", Direction::ToServer).data_bytes, 256u);
  EXPECT_EQ(find("VCMD_SUBMIT_CMD", Direction::ToServer).data_bytes, 0u);
  EXPECT_FALSE(find("VCMD_CREATE_RENDERER", Direction::ToClient).greeting);
  EXPECT_FALSE(find("VCMD_SUBMIT_CMD", Direction::ToServer).greeting);
  EXPECT_TRUE(decoder.take_events().empty());
}

// Any chunking gives the same figures and events: each part of the conversation cut in two at
// every byte, and every part fed a byte at a time.
TEST(VtestDecoder, ChunkingAtEveryByteChangesNothing) {
  Stream client, server;
  const size_t client_cut = every_command(client, server);
  VtestDecoder whole;
  ASSERT_TRUE(feed_all(whole, client, server, client_cut));
  const std::vector<WireEvent> expected = whole.take_events();
  // The parts in the order they are fed: [begin, end) of a direction's stream.
  struct Part {
    Direction direction;
    const Stream* stream;
    size_t begin, end;
  };
  const Part parts[] = {{Direction::ToServer, &client, 0, client_cut},
                        {Direction::ToClient, &server, 0, server.bytes.size()},
                        {Direction::ToServer, &client, client_cut, client.bytes.size()}};
  for (size_t cut = 0; cut <= client_cut; ++cut) {
    VtestDecoder decoder;
    for (const Part& part : parts) {
      const size_t middle = std::min(part.begin + cut, part.end);
      ASSERT_TRUE(feed(decoder, part.direction, *part.stream, part.begin, middle)) << "cut at " << cut;
      ASSERT_TRUE(feed(decoder, part.direction, *part.stream, middle, part.end)) << "cut at " << cut;
    }
    ASSERT_TRUE(decoder.finish()) << "cut at " << cut;
    ASSERT_EQ(decoder.gauges(), whole.gauges()) << "cut at " << cut;
    ASSERT_EQ(decoder.take_events(), expected) << "cut at " << cut;
  }
  VtestDecoder bytewise;
  for (const Part& part : parts) {
    for (size_t at = part.begin; at < part.end; ++at) {
      ASSERT_TRUE(feed(bytewise, part.direction, *part.stream, at, at + 1)) << "byte " << at;
    }
  }
  ASSERT_TRUE(bytewise.finish()) << bytewise.finish().error().message;
  EXPECT_EQ(bytewise.gauges(), whole.gauges());
  EXPECT_EQ(bytewise.take_events(), expected);
}

// Before version 3 the client names its resources and a create is answered with its storage's
// fd alone, or not at all; GET_CAPS and TRANSFER_GET as a version 0 client uses them.
TEST(VtestDecoder, OlderVersionsNameResourcesOnTheClientsSide) {
  Stream client, server;
  opening(client, server, 2);
  client.words({11, kVcmdResourceCreate2, 7, 0, 1, 2, 256, 1, 1, 1, 0, 0, 256});
  client.words({10, kVcmdResourceCreate, 8, 2, 1, 2, 64, 1, 1, 1, 0, 0});
  client.words({11, kVcmdResourceCreate2, 9, 2, 1, 2, 64, 1, 1, 1, 0, 4, 0});  // multisampled: no storage
  client.words({1, kVcmdResourceUnref, 8});
  client.words({11, kVcmdTransferGet, 7, 0, 0, 0, 0, 0, 0, 4, 1, 1, 16});
  server.fd_byte().filler(16);
  VtestDecoder decoder;
  ASSERT_TRUE(feed_all(decoder, client, server)) << decoder.finish().error().message;
  EXPECT_EQ(decoder.protocol_version(), 2u);
  EXPECT_EQ(decoder.gauges().wire_resources_created, 3u);
  EXPECT_EQ(decoder.gauges().wire_resources, 2);
  EXPECT_EQ(decoder.gauges().wire_resources_peak, 3);
  EXPECT_EQ(decoder.gauges().wire_fds_to_client, 1u);
}

// Each bad stream is its named error, placed; once stopped, the decoder stays stopped.
struct Bad {
  std::string name;
  Stream client, server;
  std::string message;
};

std::vector<Bad> bad_streams() {
  std::vector<Bad> bad;
  auto add = [&](std::string name, std::string message) -> Bad& {
    bad.push_back({std::move(name), {}, {}, std::move(message)});
    bad.back().client.words({4, kVcmdCreateRenderer}).text(std::string_view("tap\0", 4));
    return bad.back();
  };
  add("length",
      "vtest: bad length: client command 2 (VCMD_RESOURCE_CREATE) at byte 12: expected a length of 10 "
      "dwords, found 2")
      .client.words({2, kVcmdResourceCreate, 0, 0});
  add("unknown", "vtest: unknown command: client command 2 (VCMD_0x63) at byte 12: id 99 is no vtest command")
      .client.words({0, 99});
  add("absurd submit",
      "vtest: bad length: client command 2 (VCMD_SUBMIT_CMD) at byte 12: expected a length of at "
      "most 67108864 dwords")
      .client.words({0x40000000, kVcmdSubmitCmd});
  add("put", "expected a length of 13 dwords (11 and 6 bytes of data), found 11")
      .client.words({11, kVcmdTransferPut, 1, 0, 0, 0, 0, 0, 0, 6, 1, 1, 6});
  add("submit2", "3 batches need at least 25 dwords, found a length of 9")
      .client.words({9, kVcmdSubmitCmd2, 3, 0, 0, 0, 0, 0, 0, 0, 0});
  add("sync wait", "expected a length of 2 + 3 a sync dwords, found 3").client.words({3, kVcmdSyncWait, 0, 0, 0});
  add("renderer again", "vtest: bad order: client command 2 (VCMD_CREATE_RENDERER)")
      .client.words({4, kVcmdCreateRenderer})
      .text("tap");
  add("cut header",
      "vtest: truncated: client stream at byte 12: the connection closed 2 bytes into a command's "
      "8-byte header")
      .client.words({0})
      .bytes.resize(14);
  add("cut payload",
      "vtest: truncated: client command 2 (VCMD_SUBMIT_CMD) at byte 12: the connection closed 12 bytes "
      "into it")
      .client.words({3, kVcmdSubmitCmd, 1});
  add("owed",
      "vtest: truncated: reply to client command 2 (VCMD_PING_PROTOCOL_VERSION) at byte 0 of the server's "
      "stream: the connection closed with 1 replies owed")
      .client.words({0, kVcmdPingProtocolVersion});
  add("cut reply",
      "vtest: truncated: reply to client command 2 (VCMD_RESOURCE_BUSY_WAIT) at byte 0 of the server's "
      "stream: the connection closed 10 bytes into it")
      .client.words({2, kVcmdResourceBusyWait, 0, 0});
  bad.back().server.words({1, kVcmdResourceBusyWait}).filler(2);
  add("stray reply", "vtest: unexpected reply: server stream at byte 0: the server wrote with no command awaiting")
      .server.words({0, kVcmdPingProtocolVersion});
  add("wrong reply", "expected a header with id 10, found id 7").client.words({0, kVcmdPingProtocolVersion});
  bad.back().server.words({0, kVcmdResourceBusyWait});
  add("no fd", "vtest: missing file descriptor: reply to client command 2 (VCMD_RESOURCE_CREATE_BLOB) at byte 0")
      .client.words({6, kVcmdResourceCreateBlob, 1, 1, 4096, 0, 0, 0});
  bad.back().server.words({1, kVcmdResourceCreateBlob, 1}).filler(1);
  add("fd to server", "vtest: stray file descriptor: client stream at byte 0: 1 passed by the client").client.fd_byte();
  add("first",
      "vtest: bad order: client command 1 (VCMD_GET_CAPS) at byte 0: a connection opens with "
      "VCMD_CREATE_RENDERER")
      .client = Stream().words({0, kVcmdGetCaps});
  return bad;
}

TEST(VtestDecoder, BadStreamsAreNamedErrors) {
  for (const Bad& bad : bad_streams()) {
    VtestDecoder decoder;
    Status decoded = feed_all(decoder, bad.client, bad.server);
    ASSERT_FALSE(decoded) << bad.name;
    EXPECT_EQ(decoded.error().kind, ErrorKind::Fatal) << bad.name;
    EXPECT_THAT(decoded.error().message, HasSubstr(bad.message)) << bad.name;
    const size_t events = decoder.take_events().size();
    Status again = decoder.feed(Direction::ToServer, std::span(bad.client.bytes), 0);
    ASSERT_FALSE(again) << bad.name;
    EXPECT_EQ(again.error().message, decoded.error().message) << bad.name;
    EXPECT_TRUE(decoder.take_events().empty()) << bad.name << ": " << events << " events before";
  }
}

// A realistic submit (4 MiB, past Mesa's 256 KiB command buffers) passes in pieces, unbuffered;
// too many replies owed at once is an error rather than a queue without end.
TEST(VtestDecoder, LargePayloadsPassAndTheOwedQueueIsBounded) {
  Stream client, server;
  opening(client, server, 3);
  const uint32_t dwords = 1 << 20;
  client.words({dwords, kVcmdSubmitCmd}).filler(size_t{dwords} * 4);
  client.words({1, kVcmdResourceUnref, 5});
  VtestDecoder decoder;
  for (size_t at = 0; at < client.bytes.size(); at += 65536)
    ASSERT_TRUE(feed(decoder, Direction::ToServer, client, at, std::min(at + 65536, client.bytes.size())));
  ASSERT_TRUE(feed(decoder, Direction::ToClient, server, 0, server.bytes.size()));
  ASSERT_TRUE(decoder.finish());
  EXPECT_EQ(decoder.gauges().wire_commands_by_kind.at("VCMD_RESOURCE_UNREF"), 1u);

  Stream pings;
  pings.words({4, kVcmdCreateRenderer}).text(std::string_view("tap\0", 4));
  for (size_t i = 0; i <= kVtestMaxOwed; ++i) pings.words({0, kVcmdPingProtocolVersion});
  VtestDecoder flooded;
  Status fed = feed(flooded, Direction::ToServer, pings, 0, pings.bytes.size());
  ASSERT_FALSE(fed);
  EXPECT_THAT(fed.error().message,
              HasSubstr("vtest: too much owed: client command 65538 (VCMD_PING_PROTOCOL_VERSION)"));
}

}  // namespace
}  // namespace tidemark::tap
