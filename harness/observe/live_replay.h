// Inside `tidemark observe` (harness/observe/): each observed process's layer events replayed
// into a model host of its own — while the program still runs, as the layer writes them, so that
// what is left when it ends is only the tail. The host sees the same records in the same order
// however they arrive, so the results are those of a replay after the end.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "host/model_host.h"
#include "layer/tidemark_layer.h"
#include "observe/observe.h"

namespace tidemark::observe {

// A process's events file, read on from where the last read stopped: whole records only (a
// partial last one waits: the layer may be writing it, or was killed writing it), a chunk at a
// time into a buffer reused.
class EventsFile {
 public:
  Status read_new(const std::filesystem::path& file,
                  const std::function<Status(std::span<const TidemarkLayerEvent>)>& each);

 private:
  uint64_t consumed_ = 0;  // bytes read
  std::ifstream in_;
  std::vector<TidemarkLayerEvent> chunk_;
};

// The one translation of a layer's recorded events into a host's calls, as a session's layer sink
// over a device that does not report itself would give them: memory for the host's pid as the
// layer reported it, each submit a packet on the backend queue, each wait the layer saw finish the
// kernel's time for it. What a submit samples into the trace is each caller's.
class LayerEventsReplay {
 public:
  void memory(host::HostEvents& host, const TidemarkLayerEvent& event);  // ALLOCATED or FREED
  void submit(host::HostEvents& host, const TidemarkLayerEvent& event);  // SUBMITTED
  void retire(host::HostEvents& host, const TidemarkLayerEvent& event);  // RETIRED
  // The bytes the layer has reported so far.
  int64_t reported() const { return reported_; }

 private:
  int64_t reported_ = 0;
  std::unordered_map<uint64_t, std::vector<uint64_t>> kernel_fences_;  // per queue, by submit number
};

// One process's events into its own model host (LayerEventsReplay), each submit sampling the
// device bytes it reported.
class ProcessReplay {
 public:
  explicit ProcessReplay(uint32_t pid);
  ProcessReplay(const ProcessReplay&) = delete;
  ProcessReplay& operator=(const ProcessReplay&) = delete;

  uint32_t pid() const { return pid_; }
  // Whole records, in order.
  Status feed(std::span<const TidemarkLayerEvent> events);
  // The whole records `file` holds past those fed so far (EventsFile).
  Status catch_up(const std::filesystem::path& file);
  // The replay's counts into `process`, its run trace saved as `trace_file`.
  Status finish(Process& process, const std::filesystem::path& trace_file);

 private:
  void start(int64_t bytes);
  uint32_t pid_;
  host::ModelHost host_;
  bool started_ = false;  // the trace starts at the first submit
  LayerEventsReplay replay_;
  uint32_t devices_ = 0;
  int64_t events_ = 0;
  EventsFile file_;
  Status status_;  // ok until the first error; nothing is fed after one
};

// The tree's one kernel map, each process's memory under its pid, fed process after process in
// folder order (the map's iteration order depends on the order its keys arrive). The follower
// feeds the first while the program runs; gather() goes on from there when that folder is still
// the first, and starts again otherwise.
class TreeFeed {
 public:
  TreeFeed();
  // The whole records `file` holds past those fed, as `pid`'s; `folder` names the process. A
  // folder other than the last one fed starts that process's records from the beginning.
  Status feed(const std::string& folder, uint32_t pid, const std::filesystem::path& file);
  // The folders fed, in order.
  const std::vector<std::string>& folders() const { return folders_; }
  host::ModelHost& host() { return host_; }

 private:
  host::ModelHost host_;
  std::vector<std::string> folders_;
  EventsFile file_;  // the last folder's
};

// Follows the layer's report folder while the program runs, on a thread of its own: every
// kScanEvery it looks for process folders and for events past those replayed, and replays each
// observed process's new events. Looked for, not waited on with inotify: closing an inotify
// descriptor waits out an RCU grace period in the kernel, and that wait lands on observe's end
// however the descriptor is closed, even by exit. gather() goes on from the follower's replays and
// its tree: the results do not depend on how far it got.
class LiveReplays {
 public:
  static constexpr std::chrono::milliseconds kScanEvery{10};
  explicit LiveReplays(std::filesystem::path layer_folder);
  LiveReplays(const LiveReplays&) = delete;
  LiveReplays& operator=(const LiveReplays&) = delete;
  // Stops following after one last look: every observed process's replay, caught up with what its
  // events file held then, and the tree's map fed from the first observed process to appear while
  // it was the only one.
  Followed stop();

 private:
  struct Source {
    std::string folder;
    uint32_t pid = 0;
  };
  void scan();
  void feed_tree();
  std::filesystem::path folder_;
  ProcessReplays replays_;            // the follower's until stop()
  std::set<std::string> unfollowed_;  // process folders whose record says not to follow them
  // The tree is fed on a thread of its own (the second core has room beside one follower).
  std::mutex source_mutex_;
  std::optional<Source> tree_source_;  // set once by the follower: the only observed process then
  std::unique_ptr<TreeFeed> tree_;     // the tree thread's until stop(); null after a failed feed
  bool tree_failed_ = false;
  std::jthread tree_thread_;
  std::jthread thread_;  // last: it stops and joins before the members it uses go
};

}  // namespace tidemark::observe
