// Inside the layer: this process's record under `tidemark observe`, in a folder of its own under
// TIDEMARK_LAYER_REPORT (its pid, or the next free name after an exec or a fork), so no process
// overwrites another's: process.json (who it is, its ancestors), events.bin (the layer's events),
// layer.json (its gauges) and status (what the observer reads while it runs, kept after every
// change: all that a killed process leaves).
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "layer/tidemark_layer.h"

namespace tidemark::layer {

// The events file. Records gather in a buffer of the log's own and reach the file a block at a
// time (and at flush: when the process's report is written, before a fork, at exit). The caller
// holds the observer's lock, so the buffer needs none of its own: stdio's fwrite took the
// stream's lock once per record, a tenth of a bare create/bind/destroy cycle's time.
class EventLog {
 public:
  explicit EventLog(const std::filesystem::path& path);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void write(uint32_t kind, uint32_t type, uint64_t id, uint64_t size) {
    if (fd_ < 0) return;
    buffer_[used_++] = TidemarkLayerEvent{kind, type, id, size};
    if (used_ == kRecords) flush();
  }
  void flush();

 private:
  static constexpr size_t kRecords = 4096;  // 96 KiB a block
  int fd_ = -1;
  size_t used_ = 0;
  std::unique_ptr<TidemarkLayerEvent[]> buffer_ = std::make_unique<TidemarkLayerEvent[]>(kRecords);
};

// The status counters, in a file both processes map.
class StatusMap {
 public:
  explicit StatusMap(const std::filesystem::path& path);
  ~StatusMap();
  StatusMap(const StatusMap&) = delete;
  StatusMap& operator=(const StatusMap&) = delete;
  // Under the layer's lock, so a plain load and store (no read-modify-write); the observer reads
  // the count from its own process with a relaxed load.
  void call() {
    if (status_)
      __atomic_store_n(&status_->calls, __atomic_load_n(&status_->calls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
  }
  // Device `number` was made: it is counted, and gets its slot for its gauges (none beyond
  // TIDEMARK_STATUS_DEVICES).
  TidemarkLayerGauges* slot(uint64_t number) {
    if (!status_) return nullptr;
    status_->devices = static_cast<uint32_t>(number);
    return number >= 1 && number <= TIDEMARK_STATUS_DEVICES ? &status_->live[number - 1] : nullptr;
  }
  // The driver beneath the process's first device, once.
  void driver(const TidemarkLayerDriver& driver) {
    if (!status_ || status_->driver_known) return;
    status_->driver = driver;
    __atomic_store_n(&status_->driver_known, 1u, __ATOMIC_RELEASE);
  }
  // What the observer's bounds read: the process's calls and its last one (null without a file).
  TidemarkLayerActivity* activity() { return status_ ? &status_->activity : nullptr; }
  // The device is gone: its counts move to the sums of the destroyed ones.
  void gone(uint64_t number, const TidemarkLayerGauges& all_gone) {
    if (!status_) return;
    if (number >= 1 && number <= TIDEMARK_STATUS_DEVICES) status_->live[number - 1] = {};
    status_->gone = all_gone;
  }

 private:
  TidemarkLayerStatus* status_ = nullptr;
};

// Whether `pattern` (an fnmatch pattern; empty: everything) matches this process: its
// executable's file name or its argv[0]'s.
bool process_matches(const std::string& pattern);

// Makes this process's folder under `root` and writes its process.json. Returns the folder
// (empty when it cannot be made: the layer then reports nothing, and says so on stderr).
std::filesystem::path make_process_folder(const std::filesystem::path& root, bool observed, uint64_t forked_from);

// Puts a record (process.json, layer.json) in place whole: written beside its name, then renamed
// over it. The observer never reads half a record, so one that does not parse was written by
// someone else (the observed program) and is refused as such.
void write_record(const std::filesystem::path& file, const std::string& text);

}  // namespace tidemark::layer
