// What `tidemark observe` leaves behind (observation.json): the program, its exit code, every
// process of its tree with what the layer saw of it, the tree's sums, and the bounds judged.
// One type and one codec; observe/ fills it, report/ writes and reads it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "report/run_record.h"

namespace tidemark::report {

// A process that made a Vulkan device: what the layer counted.
struct VulkanProcessRecord {
  uint64_t devices = 0;
  bool reported = false;  // its layer.json was written (false: killed, or ended by _exit)
  int64_t events = 0;
  GaugeValues observed_gauges, kernel_gauges;
  std::string trace;  // its trace.pftrace under the report
  bool operator==(const VulkanProcessRecord&) const = default;
};

struct ObservedProcessRecord {
  uint64_t pid = 0, parent = 0;
  std::vector<std::string> command;
  std::string executable;  // empty: unknown (it never loaded the layer)
  std::string kind;        // "vulkan", "no-device", "not-observed"
  std::string folder;      // its layer records under the report ("layer/<pid>-..."), or empty
  uint64_t forked_from = 0;
  std::optional<VulkanProcessRecord> vulkan;  // a process that made a Vulkan device
  bool operator==(const ObservedProcessRecord&) const = default;
};

struct BoundRecord {
  std::string check;  // the comparison as written
  std::string scope;  // "pid 1234 (name)" or "whole"
  bool passed = false;
  std::string detail;  // "vkbufspk = 3005, bound <= 64", or why it could not be judged
  bool operator==(const BoundRecord&) const = default;
};

struct ObservationRecord {
  std::vector<std::string> command;
  int64_t exit_code = 0;  // the program's own (128 + N for signal N)
  uint64_t pid = 0;
  std::string settings;  // the layer's
  std::string only;      // the --only pattern, or empty
  std::vector<ObservedProcessRecord> processes;
  GaugeValues whole_observed, whole_kernel;  // the observed processes' gauges summed
  std::string kernel_map;                    // the tree's kernel GPU-memory map at the end
  // The wire between the program and its renderer server, when a tap stood on it: its gauges by
  // the catalogue's names (core/gauges.h, kWireGauges), and the note of the server's end when it
  // ended while its client still talked to it (its exit or signal, the last wire command seen).
  std::optional<GaugeValues> wire_gauges;
  std::string server_ended;
  std::optional<TimeoutRecord> timeout;  // the program passed a time limit and its tree was killed
  std::vector<BoundRecord> checks;
  // What it came to, as a run's verdict (observe/observe.h, outcome()): its name, and why in words.
  std::string verdict;
  std::string why;
  bool operator==(const ObservationRecord&) const = default;
};

nlohmann::json to_json(const ObservationRecord& record);
Result<ObservationRecord> observation_record_from_json(const nlohmann::json& json, const std::string& where);
Status write_observation_record(const std::filesystem::path& file, const ObservationRecord& record);
Result<ObservationRecord> read_observation_record(const std::filesystem::path& file);

}  // namespace tidemark::report
