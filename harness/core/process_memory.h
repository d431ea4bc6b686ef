// A process's memory as the kernel reports it: resident set (VmRSS in /proc/PID/status) and
// the number of mappings (lines of /proc/PID/maps). What a soak samples on the client and the
// server while a long workload runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/error.h"

namespace tidemark {

struct ProcessMemory {
  int64_t rss_kib = 0;
  int64_t mappings = 0;
};

Result<ProcessMemory> process_memory(int64_t pid);

// The VmRSS line of a /proc/PID/status text, in KiB; nullopt when it has none.
std::optional<int64_t> rss_kib_of_status(std::string_view status);

}  // namespace tidemark
