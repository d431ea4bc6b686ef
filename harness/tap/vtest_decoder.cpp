#include "tap/vtest_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tidemark::tap {
namespace {

// What the server answers a command with, once the protocol version decides its shape.
enum class Reply : uint8_t {
  None,
  Dwords,  // a header, then `reply_dwords` dwords
  Caps,    // a header whose id is the caps set (1 or 2) and whose length counts the caps' bytes + 1
  Capset,  // a header, then as many dwords as its length says
  Data,    // TRANSFER_GET: the data alone, no header, when it moves any
  Create,  // before version 3 the storage's fd alone (if it has storage); since, a header and the id
};
// The bytes after a command's arguments, passed through counted.
enum class Payload : uint8_t {
  None,
  Stream,  // the rest of its length (a command stream or syncs): bounded by kVtestMaxStreamBytes
  Data,    // as many bytes as its data argument says
  Name,    // its length counts the bytes of a renderer's name, not dwords
};
// What a command does to the connection's resources, as the tap counts them.
enum class Resources : uint8_t { None, Creates, Destroys, Uses };

constexpr int64_t kFree = -1;
constexpr int kNone = -1;

// One row a command: its name; its length in dwords where the protocol fixes it, else kFree and
// the least it may be; the dwords of it the decoder reads (the rest pass through); its reply; and
// the argument naming its resource and the one naming the bytes it makes or moves.
struct Command {
  std::string_view name;
  int64_t exact;
  uint64_t at_least;
  uint32_t args;
  Payload payload;
  Reply reply;
  uint32_t reply_dwords;
  bool reply_fd;  // a byte carrying a file descriptor follows the reply
  Resources resources;
  int resource_arg;
  int data_arg;
};

// Row 0 is no command. Facts from vtest_protocol.h and vtest_renderer.c.
constexpr std::array<Command, kVcmdLast + 1> kCommands = {{
    {"", kFree, 0, 0, Payload::None, Reply::None, 0, false, Resources::None, kNone, kNone},
    {"VCMD_GET_CAPS", 0, 0, 0, Payload::None, Reply::Caps, 0, false, Resources::None, kNone, kNone},
    {"VCMD_RESOURCE_CREATE", 10, 0, 10, Payload::None, Reply::Create, 0, false, Resources::Creates, kNone, kNone},
    {"VCMD_RESOURCE_UNREF", 1, 0, 1, Payload::None, Reply::None, 0, false, Resources::Destroys, 0, kNone},
    {"VCMD_TRANSFER_GET", 11, 0, 11, Payload::None, Reply::Data, 0, false, Resources::Uses, 0, 10},
    {"VCMD_TRANSFER_PUT", kFree, 11, 11, Payload::Data, Reply::None, 0, false, Resources::Uses, 0, 10},
    {"VCMD_SUBMIT_CMD", kFree, 0, 0, Payload::Stream, Reply::None, 0, false, Resources::None, kNone, kNone},
    {"VCMD_RESOURCE_BUSY_WAIT", 2, 0, 2, Payload::None, Reply::Dwords, 1, false, Resources::None, kNone, kNone},
    {"VCMD_CREATE_RENDERER", kFree, 0, 0, Payload::Name, Reply::None, 0, false, Resources::None, kNone, kNone},
    {"VCMD_GET_CAPS2", 0, 0, 0, Payload::None, Reply::Caps, 0, false, Resources::None, kNone, kNone},
    {"VCMD_PING_PROTOCOL_VERSION", 0, 0, 0, Payload::None, Reply::Dwords, 0, false, Resources::None, kNone, kNone},
    {"VCMD_PROTOCOL_VERSION", 1, 0, 1, Payload::None, Reply::Dwords, 1, false, Resources::None, kNone, kNone},
    {"VCMD_RESOURCE_CREATE2", 11, 0, 11, Payload::None, Reply::Create, 0, false, Resources::Creates, kNone, 10},
    {"VCMD_TRANSFER_GET2", 10, 0, 10, Payload::None, Reply::None, 0, false, Resources::Uses, 0, 8},
    // 10, or 10 + its data's dwords (Mesa's); the data itself goes through shared memory.
    {"VCMD_TRANSFER_PUT2", kFree, 10, 10, Payload::None, Reply::None, 0, false, Resources::Uses, 0, 8},
    {"VCMD_GET_PARAM", 1, 0, 1, Payload::None, Reply::Dwords, 2, false, Resources::None, kNone, kNone},
    {"VCMD_GET_CAPSET", 2, 0, 2, Payload::None, Reply::Capset, 0, false, Resources::None, kNone, kNone},
    {"VCMD_CONTEXT_INIT", 1, 0, 1, Payload::None, Reply::None, 0, false, Resources::None, kNone, kNone},
    {"VCMD_RESOURCE_CREATE_BLOB", 6, 0, 6, Payload::None, Reply::Dwords, 1, true, Resources::Creates, kNone, kNone},
    {"VCMD_SYNC_CREATE", 2, 0, 2, Payload::None, Reply::Dwords, 1, false, Resources::None, kNone, kNone},
    {"VCMD_SYNC_UNREF", 1, 0, 1, Payload::None, Reply::None, 0, false, Resources::None, kNone, kNone},
    {"VCMD_SYNC_READ", 1, 0, 1, Payload::None, Reply::Dwords, 2, false, Resources::None, kNone, kNone},
    {"VCMD_SYNC_WRITE", 3, 0, 3, Payload::None, Reply::None, 0, false, Resources::None, kNone, kNone},
    // 2 + 3 dwords a sync; answered with a pollable fd.
    {"VCMD_SYNC_WAIT", kFree, 0, 2, Payload::Stream, Reply::Dwords, 0, true, Resources::None, kNone, kNone},
    // the batch count, the batches, their streams
    {"VCMD_SUBMIT_CMD2", kFree, 1, 1, Payload::Stream, Reply::None, 0, false, Resources::None, kNone, kNone},
}};

uint64_t dwords_of(uint64_t bytes) { return (bytes + 3) / 4; }

}  // namespace

std::string vtest_command_name(uint32_t id) {
  if (id >= 1 && id <= kVcmdLast) return std::string(kCommands[id].name);
  return fmt::format("VCMD_0x{:x}", id);
}

std::vector<WireEvent> VtestDecoder::take_events() { return std::exchange(events_, {}); }

uint32_t VtestDecoder::word(const Cursor& cursor, size_t index) const {
  uint32_t value = 0;
  std::memcpy(&value, cursor.buffer.data() + 4 * index, 4);  // the wire is the host's order
  return value;
}

std::unexpected<Error> VtestDecoder::client_error(std::string_view fault, std::string_view detail) const {
  const bool in_command = client_.stage != Stage::Header;
  const std::string where = in_command ? fmt::format("client command {} ({}) at byte {}", client_.ordinal,
                                                     vtest_command_name(client_.id), client_.start)
                                       : fmt::format("client stream at byte {}", client_.offset - client_.have);
  return fail(ErrorKind::Fatal, fmt::format("vtest: {}: {}: {}", fault, where, detail));
}

std::unexpected<Error> VtestDecoder::server_error(std::string_view fault, std::string_view detail) const {
  const std::string where =
      owed_.empty() ? fmt::format("server stream at byte {}", server_.offset)
                    : fmt::format("reply to client command {} ({}) at byte {} of the server's stream",
                                  owed_.front().ordinal, vtest_command_name(owed_.front().command), server_.start);
  return fail(ErrorKind::Fatal, fmt::format("vtest: {}: {}: {}", fault, where, detail));
}

std::unexpected<Error> VtestDecoder::stop(std::unexpected<Error> error) {
  error_ = error.error();
  return error;
}

void VtestDecoder::emit(Direction direction, uint32_t command, std::optional<uint32_t> resource, uint64_t payload,
                        uint32_t fds, uint64_t data) {
  events_.push_back({.sequence = sequence_++,
                     .direction = direction,
                     .kind = vtest_command_name(command),
                     .resource = resource,
                     .payload_bytes = payload,
                     .fds = fds,
                     .data_bytes = data,
                     .greeting = direction == Direction::ToServer && command == kVcmdCreateRenderer});
}

Status VtestDecoder::owe(Owed owed) {
  if (owed_.size() >= kVtestMaxOwed)
    return client_error("too much owed",
                        fmt::format("{} replies owed at once; the bound is {}", owed_.size(), kVtestMaxOwed));
  owed_.push_back(owed);
  return {};
}

Status VtestDecoder::created(uint32_t id) {
  if (alive_.size() >= kVtestMaxAlive)
    return fail(ErrorKind::Fatal, fmt::format("vtest: too many resources: {} alive on one connection; the bound is {}",
                                              alive_.size(), kVtestMaxAlive));
  if (!alive_.insert(id).second) return {};  // the server refuses a live id again
  ++gauges_.wire_resources_created;
  gauges_.wire_resources = static_cast<int64_t>(alive_.size());
  gauges_.wire_resources_peak = std::max(gauges_.wire_resources_peak, gauges_.wire_resources);
  return {};
}

Status VtestDecoder::feed(Direction direction, std::span<const std::byte> bytes, size_t fds) {
  if (error_) return std::unexpected(*error_);
  if (direction == Direction::ToServer) {
    gauges_.wire_bytes_to_server += bytes.size();
    gauges_.wire_fds_to_server += fds;
    if (fds > 0)
      return stop(client_error("stray file descriptor",
                               fmt::format("{} passed by the client; no vtest command carries one", fds)));
    return feed_client(bytes);
  }
  gauges_.wire_bytes_to_client += bytes.size();
  gauges_.wire_fds_to_client += fds;
  return feed_server(bytes);
}

// --- client -> server ---------------------------------------------------------------------------

Status VtestDecoder::feed_client(std::span<const std::byte> bytes) {
  Cursor& c = client_;
  size_t at = 0;
  while (at < bytes.size()) {
    if (c.stage == Stage::Payload) {
      const uint64_t take = std::min<uint64_t>(c.skip, bytes.size() - at);
      c.skip -= take;
      at += take;
      c.offset += take;
      if (c.skip == 0) c = Cursor{.offset = c.offset, .ordinal = c.ordinal};
      continue;
    }
    const size_t take = std::min(c.need - c.have, bytes.size() - at);
    std::memcpy(c.buffer.data() + c.have, bytes.data() + at, take);
    c.have += take;
    at += take;
    c.offset += take;
    if (c.have < c.need) break;
    Status done = c.stage == Stage::Header ? client_header() : client_args();
    if (!done) return stop(std::unexpected(done.error()));
  }
  return {};
}

Status VtestDecoder::client_header() {
  Cursor& c = client_;
  c.length = word(c, 0);
  c.id = word(c, 1);
  c.start = c.offset - 8;
  ++c.ordinal;
  c.stage = Stage::Args;  // from here errors name the command
  if (c.ordinal == 1 && c.id != kVcmdCreateRenderer)
    return client_error("bad order", "a connection opens with VCMD_CREATE_RENDERER");
  if (c.ordinal > 1 && c.id == kVcmdCreateRenderer)
    return client_error("bad order", "VCMD_CREATE_RENDERER only opens a connection");
  // Its payload is the client's process name (its length in bytes, not dwords).
  if (c.id == kVcmdCreateRenderer) gauges_.wire_greeting_bytes = 8 + static_cast<uint64_t>(c.length);
  if (c.id == 0 || c.id > kVcmdLast)
    return client_error("unknown command", fmt::format("id {} is no vtest command (1 to {})", c.id, kVcmdLast));
  const Command& command = kCommands[c.id];
  const uint64_t length = c.length;
  auto bad = [&](std::string_view expected) {
    return client_error("bad length", fmt::format("expected a length of {}, found {}", expected, length));
  };
  if (command.exact != kFree && length != static_cast<uint64_t>(command.exact))
    return bad(fmt::format("{} dwords", command.exact));
  if (command.payload == Payload::Name && length > kVtestMaxNameBytes)
    return bad(fmt::format("at most {} bytes (a renderer's name)", kVtestMaxNameBytes));
  if (command.payload == Payload::Stream && length * 4 > kVtestMaxStreamBytes)
    return bad(fmt::format("at most {} dwords (a stream of 256 MiB)", kVtestMaxStreamBytes / 4));
  if (length < command.at_least)
    return bad(fmt::format("at least {} dword{}", command.at_least, command.at_least == 1 ? "" : "s"));
  if (c.id == kVcmdSyncWait && (length < 2 || (length - 2) % 3 != 0)) return bad("2 + 3 a sync dwords");
  c.have = 0;
  c.need = 4 * command.args;
  return c.need == 0 ? client_args() : Status{};
}

Status VtestDecoder::client_args() {
  Cursor& c = client_;
  const Command& command = kCommands[c.id];
  std::optional<uint32_t> resource;
  if (command.resource_arg != kNone) resource = word(c, command.resource_arg);
  // The storage it makes or the data it moves, as the command names it.
  const uint64_t data = command.data_arg == kNone ? 0 : word(c, command.data_arg);
  uint64_t payload = 0;  // bytes after the arguments, passed through
  switch (command.payload) {
    case Payload::None:
      break;
    case Payload::Stream:
      payload = (uint64_t{c.length} - command.args) * 4;
      break;
    case Payload::Data:
      payload = data;
      break;
    case Payload::Name:
      payload = c.length;
      break;
  }
  // The rules of a row of their own.
  switch (c.id) {
    case kVcmdProtocolVersion:
      ++versions_owed_;
      break;
    case kVcmdTransferPut:
      if (c.length != 11 + dwords_of(payload))
        return client_error("bad length",
                            fmt::format("expected a length of {} dwords (11 and {} bytes of data), found {}",
                                        11 + dwords_of(payload), payload, c.length));
      break;
    case kVcmdTransferPut2:
      if (c.length != 10 && c.length != 10 + dwords_of(data))
        return client_error("bad length", fmt::format("expected a length of 10 or {} dwords (10 and {} bytes of data), "
                                                      "found {}",
                                                      10 + dwords_of(data), data, c.length));
      break;
    case kVcmdSubmitCmd2: {
      const uint64_t batches = word(c, 0);
      if (1 + 8 * batches > c.length)
        return client_error("bad length", fmt::format("{} batches need at least {} dwords, found a length of {}",
                                                      batches, 1 + 8 * batches, c.length));
      break;
    }
    default:
      break;
  }
  if (command.resources == Resources::Destroys && alive_.erase(*resource) > 0) {
    ++gauges_.wire_resources_destroyed;
    gauges_.wire_resources = static_cast<int64_t>(alive_.size());
  }
  switch (command.reply) {
    case Reply::None:
      break;
    case Reply::Dwords:
    case Reply::Caps:
    case Reply::Capset:
      TIDEMARK_CHECK(owe({.command = c.id, .ordinal = c.ordinal, .fd = command.reply_fd}));
      break;
    case Reply::Data:
      if (data > 0) TIDEMARK_CHECK(owe({.command = c.id, .ordinal = c.ordinal, .raw_bytes = data}));
      break;
    case Reply::Create: {
      // Since version 3 the server names the resource in a reply; before, the client's handle is
      // it. Either way a create with storage (CREATE2's data size) is answered with its fd.
      // A client's own handle is its id from the command on (from version 3 the server refuses
      // one), even while the version is still unanswered.
      const uint32_t handle = word(c, 0);
      if (handle != 0) {
        resource = handle;
        TIDEMARK_CHECK(created(handle));
      }
      Owed owed{
          .command = c.id, .ordinal = c.ordinal, .handle = handle, .fd = data > 0, .decided = versions_owed_ == 0};
      if (owed.decided && version_ < 3) {
        if (handle == 0) TIDEMARK_CHECK(created(handle));
        if (!owed.fd) break;
      }
      TIDEMARK_CHECK(owe(owed));
      break;
    }
  }
  ++gauges_.wire_commands;
  ++gauges_.wire_commands_by_kind[vtest_command_name(c.id)];
  emit(Direction::ToServer, c.id, resource, uint64_t{command.args} * 4 + payload, 0, data);
  if (payload > 0) {
    c.stage = Stage::Payload;
    c.skip = payload;
  } else {
    c = Cursor{.offset = c.offset, .ordinal = c.ordinal};
  }
  return {};
}

// --- server -> client ---------------------------------------------------------------------------

// Owed replies whose shape waited for the version are decided, and those that owe nothing leave
// the front of the queue.
void VtestDecoder::settle_owed() {
  while (!owed_.empty() && owed_.front().decided && owed_.front().nothing) owed_.pop_front();
}

Status VtestDecoder::feed_server(std::span<const std::byte> bytes) {
  Cursor& s = server_;
  size_t at = 0;
  while (at < bytes.size()) {
    Status step;
    if (s.stage == Stage::Header && s.have == 0 && s.need == 8 && s.id == 0) {
      step = server_begin();  // a reply begins: its shape is the front owed's
    } else if (s.stage == Stage::Payload) {
      const uint64_t take = std::min<uint64_t>(s.skip, bytes.size() - at);
      s.skip -= take;
      at += take;
      s.offset += take;
      if (s.skip == 0) step = server_body();
    } else if (s.stage == Stage::FdByte) {
      ++at;
      ++s.offset;
      step = server_fd_byte();
    } else {
      const size_t take = std::min(s.need - s.have, bytes.size() - at);
      std::memcpy(s.buffer.data() + s.have, bytes.data() + at, take);
      s.have += take;
      at += take;
      s.offset += take;
      if (s.have == s.need) step = s.stage == Stage::Header ? server_header() : server_body();
    }
    if (!step) return stop(std::unexpected(step.error()));
  }
  return {};
}

Status VtestDecoder::server_begin() {
  Cursor& s = server_;
  settle_owed();
  if (owed_.empty()) return server_error("unexpected reply", "the server wrote with no command awaiting a reply");
  const Owed& owed = owed_.front();
  s.start = s.offset;
  s.id = owed.command;  // marks the reply begun
  s.have = 0;
  const Reply reply = kCommands[owed.command].reply;
  if (reply == Reply::Data) {
    s.stage = Stage::Payload;
    s.skip = owed.raw_bytes;
  } else if (reply == Reply::Create && version_ < 3) {
    s.stage = Stage::FdByte;  // before version 3 a create's only answer is its storage's fd
  } else {
    s.stage = Stage::Header;
    s.need = 8;
    s.headed = true;
  }
  return {};
}

Status VtestDecoder::server_header() {
  Cursor& s = server_;
  const Owed& owed = owed_.front();
  s.length = word(s, 0);
  const uint32_t id = word(s, 1);
  // The caps replies carry the caps set's number (1 or 2), and their length counts bytes + 1.
  const uint32_t expected = owed.command == kVcmdGetCaps ? 1 : owed.command == kVcmdGetCaps2 ? 2 : owed.command;
  if (id != expected)
    return server_error("unexpected reply", fmt::format("expected a header with id {}, found id {}", expected, id));
  const uint64_t length = s.length;
  auto exact = [&](uint64_t dwords) -> Status {
    if (length != dwords)
      return server_error("bad length", fmt::format("expected a length of {} dwords, found {}", dwords, length));
    s.stage = Stage::Args;
    s.have = 0;
    s.need = 4 * dwords;
    return s.need == 0 ? server_body() : Status{};
  };
  auto pass = [&](uint64_t bytes) -> Status {
    if (bytes > kVtestMaxCapsBytes)
      return server_error("bad length",
                          fmt::format("a caps reply of {} bytes is past the bound of {}", bytes, kVtestMaxCapsBytes));
    s.stage = Stage::Payload;
    s.skip = bytes;
    return bytes == 0 ? server_body() : Status{};
  };
  const Command& command = kCommands[owed.command];
  switch (command.reply) {
    case Reply::Caps:
      if (length < 1)
        return server_error("bad length", "expected a length of at least 1 (the caps' bytes + 1), found 0");
      return pass(length - 1);
    case Reply::Capset:
      if (length < 1) return server_error("bad length", "expected a length of at least 1 dword, found 0");
      return pass(length * 4);
    case Reply::Dwords:
      return exact(command.reply_dwords);
    default:  // a create since version 3: the resource's id
      return exact(1);
  }
}

Status VtestDecoder::server_body() {
  Cursor& s = server_;
  Owed& owed = owed_.front();
  if (kCommands[owed.command].resources == Resources::Creates) {
    owed.handle = word(s, 0);  // the server's name for it
    TIDEMARK_CHECK(created(owed.handle));
  }
  if (owed.command == kVcmdProtocolVersion) {
    version_ = word(s, 0);
    --versions_owed_;
    if (versions_owed_ == 0) {
      for (Owed& later : owed_) {  // creates sent before the answer: their shape is known now
        if (later.decided) continue;
        later.decided = true;
        if (version_ >= 3) continue;
        if (later.handle == 0) TIDEMARK_CHECK(created(later.handle));
        later.nothing = !later.fd;
      }
    }
  }
  if (owed.fd) {
    s.stage = Stage::FdByte;
    return {};
  }
  server_complete();
  return {};
}

Status VtestDecoder::server_fd_byte() {
  // vtest sends a descriptor with one byte of its own (sendmsg): that byte's file descriptor
  // must have come with it or before it.
  if (gauges_.wire_fds_to_client <= fd_bytes_)
    return server_error("missing file descriptor", "its byte came without a file descriptor");
  ++fd_bytes_;
  server_complete();
  return {};
}

void VtestDecoder::server_complete() {
  Cursor& s = server_;
  const Owed owed = owed_.front();
  owed_.pop_front();
  std::optional<uint32_t> resource;
  if (kCommands[owed.command].resources == Resources::Creates) resource = owed.handle;
  ++gauges_.wire_replies;
  emit(Direction::ToClient, owed.command, resource, s.offset - s.start - (s.headed ? 8 : 0), owed.fd ? 1 : 0);
  s = Cursor{.offset = s.offset};
  settle_owed();
}

Status VtestDecoder::finish() {
  if (error_) return std::unexpected(*error_);
  const Cursor& c = client_;
  if (c.stage != Stage::Header)
    return stop(client_error("truncated", fmt::format("the connection closed {} bytes into it", c.offset - c.start)));
  if (c.have > 0)
    return stop(client_error("truncated",
                             fmt::format("the connection closed {} bytes into a command's 8-byte header", c.have)));
  settle_owed();
  if (server_.id != 0)
    return stop(server_error("truncated",
                             fmt::format("the connection closed {} bytes into it", server_.offset - server_.start)));
  if (!owed_.empty())
    return stop(server_error("truncated", fmt::format("the connection closed with {} replies owed", owed_.size())));
  if (gauges_.wire_fds_to_client != fd_bytes_)
    return stop(server_error("stray file descriptor",
                             fmt::format("the server passed {} file descriptors; its replies carried {}",
                                         gauges_.wire_fds_to_client, fd_bytes_)));
  return {};
}

}  // namespace tidemark::tap
