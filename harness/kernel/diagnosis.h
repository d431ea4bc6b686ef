// The submission model's diagnosis as a table of scenes (private to kernel/): what the observer
// measured while it watched the head, and the rows that read it. Rows are evaluated in order
// and the first whose predicate holds names the scene, the finding and the remedy; a row may
// rely on the rows before it having failed (healthy is "on time", after the two cpu_bound rows).
// Facts: ../shared/specs/kernel-model.md section 6.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernel/submission.h"

namespace tidemark::kernel::diagnosis {

// Everything a row may read: the registers the Diagnosis reports, and what the model knew of
// the frame, the ring's front and its own logged findings when the watch ended.
struct Observation {
  Diagnosis registers;       // head, tail, doorbell, fence, awaited, head_moved, at_head, engine (no scene yet)
  uint32_t head_before = 0;  // the head when the watch began
  uint64_t probe_ns = 0;     // how long it watched
  int64_t stale_reads = 0;   // since the last diagnosis
  int64_t magic_caught = 0;  // since the last diagnosis
  std::string last_finding;  // the latest line the model logged
  int64_t frame_submits = 0;
  uint32_t tiny_submits = 0;  // the config's "thousands of tiny submits"
  uint64_t frame_ns = 0;      // the frame so far
  int64_t busy_percent = 0;   // the engine's busy share of the frame so far
  int64_t frame_ring_waits = 0;
  bool fence_only = false;  // the KmdDiagnosisReadsFenceOnly mutant: the observer reads the fence alone
  bool ring_empty = false;
  bool announced = false;  // the front packet lies before the doorbell the engine latched
  bool command_started = false;
  std::optional<CommandKind> at_kind;  // the command at head (none: nothing, or the fence write)
  PowerPolicy power = PowerPolicy::Wait;

  bool on_time() const { return registers.fence >= registers.awaited; }
};

struct Scene {
  std::string_view name;   // the row, unique: "cpu_bound/tiny_submits"
  std::string_view scene;  // Diagnosis::scene (rows may share it)
  bool (*when)(const Observation&);
  std::string (*finding)(const Observation&);
  std::string_view remedy;
};

// The rows in evaluation order; the last one always matches.
std::span<const Scene> scenes();
// The index of the first row whose predicate holds.
size_t first_match(const Observation& observed);
// The registers with the first matching row's scene, finding and remedy.
Diagnosis conclude(const Observation& observed);

// "1234 us": how findings write virtual time.
std::string us(uint64_t ns);

}  // namespace tidemark::kernel::diagnosis
