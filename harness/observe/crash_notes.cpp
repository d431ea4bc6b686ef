#include "observe/crash_notes.h"

#include <fmt/format.h>

#include <cstring>

namespace tidemark::crash_notes {

namespace {
Notes* g_armed = nullptr;  // one per process: the block its parent mapped before the fork
}

Notes* armed() { return g_armed; }
void arm(Notes* notes) { g_armed = notes; }

void note_repeat(uint32_t repeat) {
  if (!g_armed) return;
  g_armed->step = StepNote{};
  g_armed->step.repeat = repeat;
}

void note_workload_over() {
  if (g_armed) g_armed->step.after_last = true;
}

void note_server_end(int pid, std::optional<int> wait_status, std::string_view last_command) {
  if (!g_armed) return;
  ServerEndNote& note = g_armed->server;
  note.pid = pid;
  note.known_status = wait_status.has_value();
  note.wait_status = wait_status.value_or(0);
  copy_into(note.last_command, last_command);
  note.ended = true;
}

void note_device_lost(uint32_t call, uint64_t submit_or_wait) {
  if (!g_armed || g_armed->device_lost.lost) return;
  DeviceLostNote& note = g_armed->device_lost;
  note.call = call;
  note.submit_or_wait = submit_or_wait;
  note.step = g_armed->step;
  note.lost = true;
}

void note_wire(std::string_view command, uint64_t sequence) {
  if (!g_armed) return;
  WireNote& note = g_armed->wire;
  copy_into(note.last_command, command);
  __atomic_store_n(&note.last_sequence, sequence, __ATOMIC_RELAXED);
  __atomic_store_n(&note.events, note.events + 1, __ATOMIC_RELEASE);
}

uint64_t activity(const Notes& notes) {
  return __atomic_load_n(&notes.step.calls, __ATOMIC_RELAXED) + __atomic_load_n(&notes.wire.events, __ATOMIC_RELAXED) +
         __atomic_load_n(&notes.layer.progress, __ATOMIC_RELAXED);
}

std::string asked_again(const Notes& notes) { return text_of(notes.layer.asked_again); }

std::string last_vulkan_call(const Notes& notes) {
  if (notes.layer.calls == notes.layer_calls_before) return {};
  const std::string_view name(notes.layer.last_call, ::strnlen(notes.layer.last_call, sizeof notes.layer.last_call));
  return fmt::format("{} (call {} on its device)", name, notes.layer.device_call);
}

std::string last_wire_command(const Notes& notes) {
  if (notes.wire.events == 0) return {};
  const std::string_view name(notes.wire.last_command,
                              ::strnlen(notes.wire.last_command, sizeof notes.wire.last_command));
  return fmt::format("{} (command {} of the connection)", name, notes.wire.last_sequence);
}

std::string describe_step(const StepNote& note, std::string_view file) {
  std::string text;
  if (note.calls == 0) {
    text = "before its first step (opening its session)";
  } else {
    std::string vars;
    for (uint32_t i = 0; i < note.var_count && i < kMaxVars; ++i)
      vars += fmt::format("{}{}={}", vars.empty() ? "" : " ", note.vars[i].name, note.vars[i].value);
    text = fmt::format("{}:{}:{}: step {}{}, backend call {}", file, note.line, note.column, note.label,
                       vars.empty() ? "" : " (" + vars + ")", note.calls);
    if (note.after_last) text = "after its last step (" + text + "): reading back and judging";
  }
  if (note.repeat > 0) text += fmt::format(", in repeat {}", note.repeat + 1);
  return text;
}

}  // namespace tidemark::crash_notes
