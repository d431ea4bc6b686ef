// What a process running a subject notes as it goes, for the process that outlives it: the step
// under way, a renderer server's death and a device lost. An isolated subject (runner/isolation.h)
// runs in a child whose notes live in memory shared with its parent, so a child that dies by a
// signal still tells the parent what it was doing; in a run without isolation nothing is armed and
// noting costs one pointer test. The notes are plain fixed-size fields (no allocation, no
// formatting per step): the child may die between any two stores, and the parent reads them only
// once it is reaped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tidemark::crash_notes {

inline constexpr size_t kMaxVars = 4;  // the innermost loop variables kept

struct StepNote {
  uint64_t calls = 0;   // backend calls begun (0: before its first step)
  uint32_t repeat = 0;  // which of --repeat's runs, from 0
  uint32_t line = 0, column = 0;
  char label[32] = {};
  struct Var {
    char name[16] = {};
    int64_t value = 0;
  } vars[kMaxVars];
  uint32_t var_count = 0;
  bool after_last = false;  // the workload ran out: reading back, checking, writing
};

// A renderer server that ended mid-run (session/session.h's SessionServer saw it end).
struct ServerEndNote {
  bool ended = false;
  int32_t pid = 0;
  bool known_status = false;
  int32_t wait_status = 0;
  char last_command[96] = {};  // the last wire command the tap saw
};

// The device's first call answered VK_ERROR_DEVICE_LOST (the layer's sink saw it), and the step then.
struct DeviceLostNote {
  bool lost = false;
  uint32_t call = 0;            // the layer's TIDEMARK_LOST_* (core/gauges.h: lost_call_name)
  uint64_t submit_or_wait = 0;  // which of the device's submits and waits, from 1
  StepNote step;
};

struct Notes {
  StepNote step;
  ServerEndNote server;
  DeviceLostNote device_lost;
};

// This process's notes, or nullptr: armed in an isolated subject's child only.
Notes* armed();
void arm(Notes* notes);

// A step begins (the executor, before its backend call).
void note_repeat(uint32_t repeat);
void note_workload_over();
// The server's end, from the tap's thread; `wait_status` unknown when it still ran.
void note_server_end(int pid, std::optional<int> wait_status, std::string_view last_command);

// The device's first VK_ERROR_DEVICE_LOST, from the layer's sink (under the layer's lock).
void note_device_lost(uint32_t call, uint64_t submit_or_wait);

// Copies `text` into a fixed field, cut to fit and always terminated.
template <size_t N>
void copy_into(char (&field)[N], std::string_view text) {
  const size_t n = text.size() < N - 1 ? text.size() : N - 1;
  for (size_t i = 0; i < n; ++i) field[i] = text[i];
  field[n] = '\0';
}

// "file:12:5: step buffer_data (i=2999), backend call 3001 of repeat 2": `file` is the subject's.
std::string describe_step(const StepNote& note, std::string_view file);

}  // namespace tidemark::crash_notes
