#include "core/crash_notes.h"

#include <fmt/format.h>

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
