#include "session/server_records.h"

#include <fmt/format.h>

#include <algorithm>

namespace tidemark::session {

namespace fs = std::filesystem;

uint64_t wire_track_uuid(uint32_t connection) { return kServerTrackUuid + 1 + connection; }

std::string wire_track_name(std::string_view wire, uint32_t connection) {
  return fmt::format("{} wire (connection {})", wire, connection);
}

WireInstant wire_instant(const tap::WireEvent& event) {
  WireInstant instant{.name = event.direction == tap::Direction::ToServer ? event.kind : event.kind + " reply"};
  auto& arguments = instant.arguments;
  arguments.push_back({"sequence", event.sequence});
  if (event.resource) arguments.push_back({"resource", uint64_t{*event.resource}});
  // A greeting's payload is the client's process name: its length is left out, as the wire's
  // gauges leave it out of the bytes sent, so every lane's trace is the same.
  if (!event.greeting) arguments.push_back({"payload_bytes", event.payload_bytes});
  if (event.data_bytes > 0) arguments.push_back({"data_bytes", event.data_bytes});
  if (event.fds > 0) arguments.push_back({"fds", uint64_t{event.fds}});
  return instant;
}

ServerRecords::ServerRecords(std::string server, std::string wire)
    : server_(std::move(server)), wire_(std::move(wire)) {}

void ServerRecords::saw(const tap::WireEvent& event) {
  std::lock_guard lock(mutex_);
  pending_.push_back(event);
}

// The server's process track before anything of the server's (the trace has then seen its pid:
// the GPU Memory events under it are kept).
void ServerRecords::name_server(host::ModelHost& host) {
  if (!std::exchange(server_named_, true))
    host.trace_track({.uuid = kServerTrackUuid, .name = server_, .pid = host.kernel_pid()});
}

// A connection's track, under the server's, at its first event.
void ServerRecords::name_connection(host::ModelHost& host, uint32_t connection) {
  name_server(host);
  if (connections_named_.insert(connection).second)
    host.trace_track(
        {.uuid = wire_track_uuid(connection), .name = wire_track_name(wire_, connection), .parent = kServerTrackUuid});
}

Status ServerRecords::feed(host::ModelHost& host, const fs::path& layer_folder) {
  std::vector<tap::WireEvent> events;
  {
    std::lock_guard lock(mutex_);
    events.swap(pending_);
  }
  for (const tap::WireEvent& event : events) {
    name_connection(host, event.connection);
    const WireInstant instant = wire_instant(event);
    host.trace_instant(wire_track_uuid(event.connection), instant.name, instant.arguments);
  }

  std::error_code ec;
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(layer_folder, ec))
    if (entry.is_directory(ec)) folders.push_back(entry.path().filename().string());
  std::sort(folders.begin(), folders.end());
  for (const std::string& folder : folders) {
    auto& process = processes_[folder];
    if (!process) process = std::make_unique<Process>();
    TIDEMARK_CHECK(process->file.read_new(
        layer_folder / folder / "events.bin", [&](std::span<const TidemarkLayerEvent> records) -> Status {
          for (const TidemarkLayerEvent& event : records) {
            switch (event.kind) {
              case TIDEMARK_EVENT_ALLOCATED:
              case TIDEMARK_EVENT_FREED:
                name_server(host);
                process->replay.memory(host, event);
                break;
              case TIDEMARK_EVENT_SUBMITTED:
                process->replay.submit(host, event);
                host.layer_bytes_sample(static_cast<int64_t>(event.size));  // the layer's own count then
                break;
              case TIDEMARK_EVENT_RETIRED:
                process->replay.retire(host, event);
                break;
              default:
                break;
            }
          }
          return {};
        }));
  }
  return {};
}

}  // namespace tidemark::session
