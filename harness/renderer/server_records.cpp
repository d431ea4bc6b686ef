#include "renderer/server_records.h"

#include "core/files.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tidemark::renderer {

namespace fs = std::filesystem;

namespace {

// The spill's one codec: a block is its byte count (u32) and its events, each its fixed fields
// little-endian (as this machine writes them: the file never leaves the process that wrote it)
// and its kind's length (u16) and bytes.
template <class T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void encode(std::string& out, const tap::WireEvent& event) {
  put(out, event.sequence);
  put(out, event.connection);
  put(out, static_cast<uint8_t>(event.direction));
  put(out, static_cast<uint8_t>(event.greeting));
  put(out, static_cast<uint8_t>(event.resource.has_value()));
  put(out, event.resource.value_or(0));
  put(out, event.payload_bytes);
  put(out, event.fds);
  put(out, event.data_bytes);
  put(out, static_cast<uint16_t>(event.kind.size()));
  out.append(event.kind);
}

class BlockReader {
 public:
  explicit BlockReader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  bool get(T& value) {
    if (bytes_.size() < sizeof value) return false;
    std::memcpy(&value, bytes_.data(), sizeof value);
    bytes_.remove_prefix(sizeof value);
    return true;
  }
  bool get(std::string& text, size_t size) {
    if (bytes_.size() < size) return false;
    text.assign(bytes_.substr(0, size));
    bytes_.remove_prefix(size);
    return true;
  }
  bool empty() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

bool decode(BlockReader& in, tap::WireEvent& event) {
  uint8_t direction = 0, greeting = 0, has_resource = 0;
  uint32_t resource = 0;
  uint16_t kind_size = 0;
  if (!(in.get(event.sequence) && in.get(event.connection) && in.get(direction) && in.get(greeting) &&
        in.get(has_resource) && in.get(resource) && in.get(event.payload_bytes) && in.get(event.fds) &&
        in.get(event.data_bytes) && in.get(kind_size) && in.get(event.kind, kind_size)))
    return false;
  event.direction = static_cast<tap::Direction>(direction);
  event.greeting = greeting != 0;
  event.resource = has_resource ? std::optional(resource) : std::nullopt;
  return true;
}

}  // namespace

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

ServerRecords::ServerRecords(std::string server, std::string wire, fs::path spill)
    : server_(std::move(server)), wire_(std::move(wire)), spill_path_(std::move(spill)) {
  pending_.reserve(kEventsInMemory);
}

void ServerRecords::saw(const tap::WireEvent& event) {
  std::lock_guard lock(mutex_);
  pending_.push_back(event);
  if (pending_.size() >= kEventsInMemory) spill_pending();
}

void ServerRecords::spill_pending() {
  std::string block(sizeof(uint32_t), '\0');
  for (const tap::WireEvent& event : pending_) encode(block, event);
  const auto size = static_cast<uint32_t>(block.size() - sizeof(uint32_t));
  std::memcpy(block.data(), &size, sizeof size);
  if (!spill_) {
    auto opened = open_file_to_write(spill_path_, WriteMode::Replace);
    if (!opened) return;  // as a block not written
    spill_ = output_stream(std::move(*opened));
  }
  spill_->write(block.data(), static_cast<std::streamsize>(block.size()));
  spill_->flush();
  if (!*spill_) return;  // not written: the block stays in memory, past the bound, rather than be lost
  spilled_bytes_ += block.size();
  pending_.clear();
}

// The spilled blocks, oldest first, one in memory at a time.
Status ServerRecords::feed_spilled(host::ModelHost& host, uint64_t end_offset) {
  std::ifstream in(spill_path_, std::ios::binary);
  auto unreadable = [&](std::string_view why) {
    return fail(ErrorKind::Io,
                fmt::format("{}: the wire events spilled there cannot be read back: {}", spill_path_.string(), why));
  };
  std::string block;
  tap::WireEvent event;
  for (uint64_t offset = 0; offset < end_offset;) {
    uint32_t size = 0;
    if (!in.read(reinterpret_cast<char*>(&size), sizeof size)) return unreadable("a block's size is missing");
    block.resize(size);
    if (!in.read(block.data(), size)) return unreadable("a block is cut short");
    BlockReader reader(block);
    while (!reader.empty()) {
      if (!decode(reader, event)) return unreadable("an event is cut short");
      feed_event(host, event);
    }
    offset += sizeof size + size;
  }
  return {};
}

void ServerRecords::feed_event(host::ModelHost& host, const tap::WireEvent& event) {
  name_connection(host, event.connection);
  const WireInstant instant = wire_instant(event);
  host.trace_instant(wire_track_uuid(event.connection), instant.name, instant.arguments);
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
  {
    // The tap waits while the events are fed (the client is between round trips at a read-back):
    // a block it would spill meanwhile would land in the file being read.
    std::lock_guard lock(mutex_);
    if (spill_) {
      spill_.reset();  // closed, and truncated when the next block comes
      const uint64_t spilled = std::exchange(spilled_bytes_, 0);
      TIDEMARK_CHECK(feed_spilled(host, spilled));
    }
    for (const tap::WireEvent& event : pending_) feed_event(host, event);
    pending_.clear();
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
                // The submit itself reached the kernel model live, over the kernel channel.
                host.layer_bytes_sample(static_cast<int64_t>(event.size));  // the layer's own count then
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

}  // namespace tidemark::renderer
