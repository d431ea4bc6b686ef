// The soak report: each lane's memory samples over a long run, their peaks and slopes after
// warm-up, and the bounds they were held to. One type, one codec (soak.json), and its page
// (soak.html: a table, and each lane's series as plots).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/process_memory.h"
#include "report/plot.h"
#include "report/run_record.h"

namespace tidemark::report {

struct SoakSample {
  uint64_t calls = 0;
  double seconds = 0;  // since the run started
  ProcessMemory client;
  ProcessMemory server;  // the same process in the monolith and split lanes
  // The client's malloc heap (mallinfo2): what the allocator holds from the system and what is
  // in use. RSS growing with both flat is memory outside malloc; with only the first, fragmentation.
  int64_t heap_held_kib = 0, heap_used_kib = 0;
  bool operator==(const SoakSample&) const = default;
};

struct Slope {
  double per_million_calls = 0;  // least squares over the samples after warm-up
  uint64_t samples = 0;          // how many it was fitted on
  bool operator==(const Slope&) const = default;
};

struct SoakLaneReport {
  std::string lane;
  bool separate_server = false;
  Verdict verdict = Verdict::Red;  // the run's own
  bool flat = false;               // every slope within its bound
  std::string digest;
  uint64_t calls = 0;
  double seconds = 0;
  int64_t client_rss_peak_kib = 0, client_maps_peak = 0;
  int64_t server_rss_peak_kib = 0, server_maps_peak = 0;
  Slope client_rss, client_maps, server_rss, server_maps;  // KiB or mappings per million calls
  Slope heap_held, heap_used;                              // the client's malloc heap, KiB
  int64_t live_stores_peak = 0, parked_bytes_peak = 0;     // from the run's trace
  std::vector<SoakSample> samples;
  // Live stores and parked bytes over virtual time: plotted in soak.html, not kept in soak.json
  // (the run's own trace.pftrace holds them).
  std::vector<PlotSeries> store_series;
  bool green() const { return passes(verdict) && flat; }
  bool operator==(const SoakLaneReport&) const = default;
};

struct SoakReport {
  double max_rss_slope_kib = 0;  // per million calls, each process
  double max_maps_slope = 0;
  double warm_up_fraction = 0;  // of the samples left out of the slopes
  std::vector<SoakLaneReport> lanes;
  bool green() const;
  bool operator==(const SoakReport&) const = default;
};

nlohmann::json to_json(const SoakReport& report);
Result<SoakReport> soak_report_from_json(const nlohmann::json& json, const std::string& where);
// soak.json, then soak.html, in `dir`.
Status write_soak_report(const std::filesystem::path& dir, const SoakReport& report);
Result<SoakReport> read_soak_report(const std::filesystem::path& file);

}  // namespace tidemark::report
