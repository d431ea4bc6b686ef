// What a tap's decoder is: fed both directions of one client/server connection as the bytes
// arrive, it keeps gauges and an event a command (and a reply). Pluggable, so that a team can put
// its own protocol behind the tap (tap/socket_tap.h); tap/vtest_decoder.h is the first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace tidemark::tap {

enum class Direction : uint8_t { ToServer, ToClient };

// "client->server", "server->client".
std::string_view direction_name(Direction direction);

// One decoded command (ToServer) or reply (ToClient): what a caller writes into a trace.
struct WireEvent {
  uint64_t sequence = 0;    // the connection's commands and replies, in the order decoded, from 0
  uint32_t connection = 0;  // the tap's count of accepted connections, from 0 (set by the tap)
  Direction direction = Direction::ToServer;
  std::string kind;                  // the command's name: "VCMD_RESOURCE_CREATE2"
  std::optional<uint32_t> resource;  // the resource it names or, for a create's reply, made
  uint64_t payload_bytes = 0;        // the bytes after its header
  uint32_t fds = 0;                  // file descriptors it carried
  uint64_t data_bytes = 0;           // a create's storage size, a transfer's data size (0: none named)
  bool greeting = false;             // its payload names the client's process: it differs from process to process
  bool operator==(const WireEvent&) const = default;
};

struct WireGauges {
  int64_t wire_resources = 0;  // alive now: created and not destroyed
  int64_t wire_resources_peak = 0;
  uint64_t wire_resources_created = 0;
  uint64_t wire_resources_destroyed = 0;
  uint64_t wire_bytes_to_server = 0;
  uint64_t wire_greeting_bytes = 0;  // of those, the greeting's: it names the client's process
  uint64_t wire_bytes_to_client = 0;
  uint64_t wire_fds_to_server = 0;
  uint64_t wire_fds_to_client = 0;
  uint64_t wire_commands = 0;                                          // the client's commands
  uint64_t wire_replies = 0;                                           // the server's replies
  std::map<std::string, uint64_t, std::less<>> wire_commands_by_kind;  // "VCMD_SUBMIT_CMD" -> count

  // Adds `other`'s counts (and its alive resources; the peaks' larger).
  void add(const WireGauges& other);
  bool operator==(const WireGauges&) const = default;
};

class WireDecoder {
 public:
  virtual ~WireDecoder() = default;
  // The next `bytes` of `direction` (any chunking: headers and payloads are reassembled across
  // calls) and the file descriptors that came with them. A stream the decoder cannot follow is an
  // error, named and placed; the caller then feeds it no more.
  virtual Status feed(Direction direction, std::span<const std::byte> bytes, size_t fds) = 0;
  // Both directions ended: a command or reply cut off is a truncated stream.
  virtual Status finish() = 0;
  virtual const WireGauges& gauges() const = 0;
  // The events decoded since the last call, moved out in order.
  virtual std::vector<WireEvent> take_events() = 0;
};

using DecoderFactory = std::function<std::unique_ptr<WireDecoder>()>;

}  // namespace tidemark::tap
