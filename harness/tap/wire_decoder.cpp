#include "tap/wire_decoder.h"

#include <algorithm>

namespace tidemark::tap {

std::string_view direction_name(Direction direction) {
  return direction == Direction::ToServer ? "client->server" : "server->client";
}

void WireGauges::add(const WireGauges& other) {
  wire_resources += other.wire_resources;
  wire_resources_peak = std::max(wire_resources_peak, other.wire_resources_peak);
  wire_resources_created += other.wire_resources_created;
  wire_resources_destroyed += other.wire_resources_destroyed;
  wire_bytes_to_server += other.wire_bytes_to_server;
  wire_greeting_bytes += other.wire_greeting_bytes;
  wire_bytes_to_client += other.wire_bytes_to_client;
  wire_fds_to_server += other.wire_fds_to_server;
  wire_fds_to_client += other.wire_fds_to_client;
  wire_commands += other.wire_commands;
  wire_replies += other.wire_replies;
  for (const auto& [kind, count] : other.wire_commands_by_kind) wire_commands_by_kind[kind] += count;
}

}  // namespace tidemark::tap
