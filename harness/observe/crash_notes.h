// What a process running a subject notes as it goes, for the process that outlives it: the step
// under way, a renderer server's death and a device lost. An isolated subject (runner/pipeline/isolation.h)
// runs in a child whose notes live in memory shared with its parent, so a child that dies by a
// signal still tells the parent what it was doing; in a run without isolation nothing is armed and
// noting costs one pointer test. The notes are plain fixed-size fields (no allocation, no
// formatting per step): the child may die between any two stores, and the parent reads them only
// once it is reaped.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "layer/tidemark_layer.h"

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

// A renderer server that ended mid-run (renderer/renderer_session.h saw it end).
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

// The wire a renderer server's tap decodes: its commands so far and the last one. Written by the
// tap's thread while the run goes on and read by the parent's bounds then too (relaxed atomics).
struct WireNote {
  uint64_t events = 0;
  uint64_t last_sequence = 0;
  char last_command[48] = {};
};

struct Notes {
  StepNote step;
  ServerEndNote server;
  DeviceLostNote device_lost;
  WireNote wire;
  TidemarkLayerActivity layer{};    // the layer in the child notes its calls here (tidemarkLayerActivity)
  uint64_t layer_calls_before = 0;  // the layer's count when the run began: its calls are those after
};

// A NUL-terminated field of fixed size another process writes while this one reads it: never
// read past its end.
template <size_t N>
std::string text_of(const char (&field)[N]) {
  return std::string(field, ::strnlen(field, N));
}

// What crossed the layer, the wire or a step so far: a count that only grows while the subject
// makes progress (the layer's: calls that changed something), read by the parent while the child runs.
uint64_t activity(const Notes& notes);
// "vkQueueSubmit (call 3001 on its device)", "VCMD_SUBMIT_CMD (command 96 of the connection)", or "".
std::string last_vulkan_call(const Notes& notes);
std::string last_wire_command(const Notes& notes);
// What the layer's calls asked again since its last progress (TidemarkLayerActivity::asked_again), or "".
std::string asked_again(const Notes& notes);

// This process's notes, or nullptr: armed in an isolated subject's child only.
Notes* armed();
void arm(Notes* notes);

// A step begins (the executor, before its backend call).
void note_repeat(uint32_t repeat);
void note_workload_over();
// The server's end, from the tap's thread; `wait_status` unknown when it still ran.
// A wire command the tap saw, from its thread.
void note_wire(std::string_view command, uint64_t sequence);
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
