// What a driver's renderer server did, fed into the session's model host at each read-back (the
// host's read_back_from): the wire's events as the tap decoded them, each an instant on its
// connection's track under the server's process track, then the server layer's events as observe
// replays a process's memory (observe::LayerEventsReplay): the server's memory in the kernel map
// and the trace's GPU Memory track under the model's pid, each submit a sample of the layer's
// device bytes beside the map's entry. (The submits and waits themselves reach the kernel model as
// they happen, over the kernel channel: servers/kernel_channel_server.h.) The model's pid stands for the server's
// process: its real pid differs from run to run, and the trace must not. Fed at the read-back only, stamped by the
// model's clock, so the trace is the same in every run and lane.
//
// The wire's events wait for that read-back within a bound: at most kEventsInMemory of them in
// memory; each time that many are waiting they are encoded as one block onto a spill file in the
// server's folder, and the read-back reads the blocks back one at a time, oldest first, before
// those still in memory. A run of any length holds at most two blocks' events (about 2 x 1 024 x
// 100 B) of them; a spill that cannot be written (a full disk) keeps its block in memory instead.
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

namespace tidemark::session {

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

}  // namespace tidemark::session
