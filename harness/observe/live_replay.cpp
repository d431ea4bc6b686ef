#include "observe/live_replay.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <utility>

#include "core/files.h"
#include "host/layer_sink.h"
#include "layer/records.h"
#include "report/json_fields.h"

namespace tidemark::observe {

namespace fs = std::filesystem;

ProcessReplay::ProcessReplay(uint32_t pid)
    : pid_(pid),
      host_(
          [&] {
            api::ModelConfig config;
            config.kernel_pid = pid;
            return config;
          }(),
          MutantId::None) {}

// What was allocated before the first submit is the memory data source's snapshot, the
// process's baseline (without one the importer drops its events).
void ProcessReplay::start(int64_t bytes) {
  if (!std::exchange(started_, true)) host_.started({.device_bytes = bytes});
}

void LayerEventsReplay::memory(host::HostEvents& host, const TidemarkLayerEvent& event) {
  const bool allocated = event.kind == TIDEMARK_EVENT_ALLOCATED;
  reported_ += (allocated ? 1 : -1) * static_cast<int64_t>(event.size);
  const TidemarkLayerMemoryChange change{allocated ? 1u : 0u, event.type, event.id, event.size, reported_};
  host.memory_changed(host::memory_change(change));
}

void LayerEventsReplay::submit(host::HostEvents& host, const TidemarkLayerEvent& event) {
  kernel_fences_[event.id].push_back(host.queue_submitted());
}

void LayerEventsReplay::retire(host::HostEvents& host, const TidemarkLayerEvent& event) {
  const auto& fences = kernel_fences_[event.id];
  if (event.size >= 1 && event.size <= fences.size() && fences[event.size - 1] != 0)
    host.wait_retired(fences[event.size - 1], 1'000'000'000);
}

Status ProcessReplay::feed(std::span<const TidemarkLayerEvent> events) {
  if (!status_) return status_;
  for (const TidemarkLayerEvent& event : events) {
    ++events_;
    switch (event.kind) {
      case TIDEMARK_EVENT_DEVICE:
        ++devices_;
        break;
      case TIDEMARK_EVENT_ALLOCATED:
      case TIDEMARK_EVENT_FREED:
        replay_.memory(host_, event);
        break;
      case TIDEMARK_EVENT_SUBMITTED:
        start(replay_.reported());
        replay_.submit(host_, event);
        host_.sample({.device_bytes = replay_.reported()});
        break;
      case TIDEMARK_EVENT_RETIRED:
        replay_.retire(host_, event);
        break;
      default:
        break;
    }
  }
  return {};
}

Status EventsFile::read_new(const fs::path& file,
                            const std::function<Status(std::span<const TidemarkLayerEvent>)>& each) {
  std::error_code error;
  const uint64_t size = fs::file_size(file, error);
  if (error || size <= consumed_) return {};
  constexpr uint64_t kRecord = sizeof(TidemarkLayerEvent);
  uint64_t left = (size - consumed_) / kRecord;
  if (left == 0) return {};
  if (!in_.is_open()) {
    in_.open(file, std::ios::binary);
    if (!in_) return fail(ErrorKind::Io, fmt::format("observe: cannot read {}", file.string()));
  }
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(consumed_));
  constexpr uint64_t kChunkRecords = 16384;  // 384 KiB a read
  while (left > 0) {
    chunk_.resize(std::min(left, kChunkRecords));
    in_.read(reinterpret_cast<char*>(chunk_.data()), static_cast<std::streamsize>(chunk_.size() * kRecord));
    if (!in_) return fail(ErrorKind::Io, fmt::format("observe: cannot read {}", file.string()));
    TIDEMARK_CHECK(each(chunk_));
    consumed_ += chunk_.size() * kRecord;
    left -= chunk_.size();
  }
  return {};
}

Status ProcessReplay::catch_up(const fs::path& file) {
  if (!status_) return status_;
  if (auto read = file_.read_new(file, [this](std::span<const TidemarkLayerEvent> events) { return feed(events); });
      !read)
    status_ = read;
  return status_;
}

Status ProcessReplay::finish(Process& process, const fs::path& trace_file) {
  if (!status_) return status_;
  start(replay_.reported());
  process.events = events_;
  process.devices = std::max(process.devices, devices_);
  TIDEMARK_TRY(kernel, host_.kernel_gauges());
  process.kernel = kernel;
  // Saved where it lies, never read into this process (a 100 000-respecify run's is 8 MB).
  process.trace_file = trace_file;
  return host_.save_run_trace(trace_file);
}

TreeFeed::TreeFeed() : host_(api::ModelConfig{}, MutantId::None) {}

Status TreeFeed::feed(const std::string& folder, uint32_t pid, const fs::path& file) {
  if (folders_.empty() || folders_.back() != folder) {
    folders_.push_back(folder);
    file_ = EventsFile();
  }
  return file_.read_new(file, [&](std::span<const TidemarkLayerEvent> records) -> Status {
    for (const TidemarkLayerEvent& event : records) {
      if (event.kind == TIDEMARK_EVENT_ALLOCATED)
        TIDEMARK_CHECK(host_.kernel_allocate(0, pid, static_cast<MemoryType>(event.type), event.id, event.size));
      else if (event.kind == TIDEMARK_EVENT_FREED)
        TIDEMARK_CHECK(host_.kernel_free(0, pid, event.id));
    }
    return {};
  });
}

// A thread that does `work` every kScanEvery, and once more when asked to stop.
template <class Work>
std::jthread every_scan(Work work) {
  return std::jthread([work](std::stop_token stop) {
    std::condition_variable_any woken;  // woken by nothing but the stop
    std::mutex mutex;                   // the wait's own: what the work shares it guards itself
    std::unique_lock lock(mutex);
    for (;;) {
      work();  // once more after the stop too: what stop() hands over is then whole
      if (stop.stop_requested()) return;
      woken.wait_for(lock, stop, LiveReplays::kScanEvery, [] { return false; });
    }
  });
}

LiveReplays::LiveReplays(fs::path layer_folder)
    : folder_(std::move(layer_folder)),
      tree_thread_(every_scan([this] { feed_tree(); })),
      thread_(every_scan([this] { scan(); })) {}

Followed LiveReplays::stop() {
  for (std::jthread* thread :
       {&thread_, &tree_thread_})  // the follower first: the tree's last feed follows its last look
    if (thread->joinable()) {
      thread->request_stop();  // wakes the wait at once
      thread->join();
    }
  return {std::move(replays_), std::move(tree_)};
}

void LiveReplays::feed_tree() {
  std::optional<Source> source;
  {
    std::lock_guard lock(source_mutex_);
    source = tree_source_;
  }
  if (!source || tree_failed_) return;
  if (!tree_) tree_ = std::make_unique<TreeFeed>();
  if (!tree_->feed(source->folder, source->pid, folder_ / source->folder / "events.bin")) {
    tree_.reset();  // gather() feeds the tree again
    tree_failed_ = true;
  }
}

// Each process folder with a readable process.json saying it is observed gets its replay; each
// replay catches up with its file. A replay that failed keeps its error for gather.
void LiveReplays::scan() {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder_, error)) {
    if (!entry.is_directory(error)) continue;
    const std::string name = entry.path().filename().string();
    if (unfollowed_.contains(name)) continue;
    auto found = replays_.find(name);
    if (found == replays_.end()) {
      // The layer renames its record into place whole; one that does not parse was planted (a
      // FIFO would block this thread, one nested deep would cost the parse): gather() refuses it.
      std::error_code ec;
      if (!fs::exists(entry.path() / "process.json", ec)) continue;  // not written yet
      auto text = read_given_file(entry.path() / "process.json", "layer record");
      auto json = text && !report::too_deep(*text) ? nlohmann::json::parse(*text, nullptr, false)
                                                   : nlohmann::json(nlohmann::json::value_t::discarded);
      if (json.is_discarded()) {
        unfollowed_.insert(name);
        continue;
      }
      auto record = layer::process_record_from_json(json);
      if (!record || !record->observed) {  // not observed (--only), or not a record: gather says which
        unfollowed_.insert(name);
        continue;
      }
      found = replays_.emplace(name, std::make_unique<ProcessReplay>(record->pid)).first;
    }
    (void)found->second->catch_up(entry.path() / "events.bin");
  }
  // The tree is fed from the first observed process while it is the only one; which comes first
  // once there are more is gather()'s to decide.
  std::lock_guard lock(source_mutex_);
  if (!tree_source_ && replays_.size() == 1)
    tree_source_ = Source{replays_.begin()->first, replays_.begin()->second->pid()};
}

}  // namespace tidemark::observe
