// What a renderer server did, fed into the session's model host at each read-back: the tap's wire
// events on their connections' tracks, then the server layer's memory events under the model's pid
// (its real pid differs run to run; the trace must not). Submits and waits reach the kernel model
// live, over the kernel channel. Waiting wire events are bounded in memory: past kEventsInMemory a
// block is spilled to a file in the server's folder and read back oldest first.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "host/model_host.h"
#include "observe/live_replay.h"
#include "tap/wire_decoder.h"
#include "tracer/trace_writer.h"

namespace tidemark::renderer {

// The server's process track and, under it, a track per wire connection.
inline constexpr uint64_t kServerTrackUuid = 0x7469'6465'0000'0001;  // "tide": out of any other producer's way
uint64_t wire_track_uuid(uint32_t connection);
// "vtest wire (connection 0)": how a check finds a connection's events.
std::string wire_track_name(std::string_view wire, uint32_t connection);

// A wire event as a track event: its command's name (a reply's: the name and " reply") and its
// sequence, resource, bytes after its header, data bytes and descriptors as arguments.
struct WireInstant {
  std::string name;
  std::vector<tracer::TrackEventArgument> arguments;
};
WireInstant wire_instant(const tap::WireEvent& event);

class ServerRecords {
 public:
  static constexpr size_t kEventsInMemory = 1024;

  // `server` names the process track ("virgl_test_server"), `wire` the protocol ("vtest");
  // `spill` is the file waiting events overflow into (made when first needed, truncated at each
  // read-back that drains it).
  ServerRecords(std::string server, std::string wire, std::filesystem::path spill);
  ServerRecords(const ServerRecords&) = delete;
  ServerRecords& operator=(const ServerRecords&) = delete;

  // On the tap's thread, as it decodes: kept for the next read-back.
  void saw(const tap::WireEvent& event);
  // At a read-back, on the host: the wire's events since the last one, then the records of the
  // server layer's process folders in `layer_folder` past those fed (whole ones: the server's
  // layer writes each as it happens).
  Status feed(host::ModelHost& host, const std::filesystem::path& layer_folder);
  // The events waiting in memory (the rest of those waiting are in the spill).
  size_t waiting_in_memory() {
    std::lock_guard lock(mutex_);
    return pending_.size();
  }

 private:
  struct Process {
    observe::EventsFile file;
    observe::LayerEventsReplay replay;
  };
  void name_server(host::ModelHost& host);
  void name_connection(host::ModelHost& host, uint32_t connection);
  std::string server_, wire_;
  void spill_pending();                                             // the tap's thread, under mutex_
  Status feed_spilled(host::ModelHost& host, uint64_t end_offset);  // the host's, the blocks before end_offset
  void feed_event(host::ModelHost& host, const tap::WireEvent& event);
  std::mutex mutex_;                     // the tap's thread and the host's
  std::vector<tap::WireEvent> pending_;  // the newest waiting events, at most kEventsInMemory
  std::filesystem::path spill_path_;
  std::unique_ptr<std::ostream> spill_;  // open while blocks wait in it
  uint64_t spilled_bytes_ = 0;           // the blocks written since the last read-back
  bool server_named_ = false;
  std::set<uint32_t> connections_named_;
  std::map<std::string, std::unique_ptr<Process>> processes_;  // by folder name, fed in that order
};

}  // namespace tidemark::renderer
