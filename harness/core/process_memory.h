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
  bool operator==(const ProcessMemory&) const = default;
};

Result<ProcessMemory> process_memory(int64_t pid);

// Fixes glibc malloc's mmap and trim thresholds (4 MiB and 32 MiB) for the whole run. Left to
// glibc's dynamic rule, they depend on what the process happened to allocate and free first:
// with the 128 KiB start values a table's array at the heap's top, freed and grown again, gave
// its pages back to the kernel and faulted them in again two million times in a 1.3 M-call
// soak (twice the seconds), in whichever lane the layout put it; with a trim threshold of 8 or
// 16 MiB, lavapipe's per-draw allocations did the same (2.6 faults per draw more, 0.29 s
// instead of 0.16 s for 10 000 draws). Fixed, the heap keeps at most 32 MiB it does not use.
// Called first thing in every main.
void fix_heap_thresholds();

// The VmRSS line of a /proc/PID/status text, in KiB; nullopt when it has none.
std::optional<int64_t> rss_kib_of_status(std::string_view status);

}  // namespace tidemark
