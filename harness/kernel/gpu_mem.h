// The kernel side of GPU-memory accounting, modelled deterministically: the
// `gpu_mem/gpu_mem_total` tracepoint, the GpuService BPF hash map it feeds, the GpuMem reader
// (attach with retries, dump text, best-effort walks) and the per-process, per-type views of
// the sysfs proposal. Facts: ../shared/specs/kernel-model.md sections 1-5.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>

#include "core/kernel_types.h"
#include "core/memory_type.h"
#include "core/mutants.h"

namespace tidemark::kernel {

// --- 1. The tracepoint -------------------------------------------------------------------

// `gpu_id=0 pid=1234 size=4096`, as tracefs prints it.
std::string to_text(const GpuMemTotalEvent& event);
// The raw record: an 8-byte common header (zeros here), gpu_id at 8, pid at 12, size at 16.
inline constexpr size_t kGpuMemTotalRawBytes = 24;
std::array<uint8_t, kGpuMemTotalRawBytes> to_raw(const GpuMemTotalEvent& event);
GpuMemTotalEvent from_raw(const std::array<uint8_t, kGpuMemTotalRawBytes>& raw);

inline constexpr uint64_t map_key(uint32_t gpu_id, uint32_t pid) { return (uint64_t{gpu_id} << 32) | pid; }

// --- 2. The BPF map ----------------------------------------------------------------------

// What the model counts and the real program cannot see.
struct MapCounters {
  uint64_t events = 0;   // tracepoint hits
  uint64_t updates = 0;  // existing keys overwritten
  uint64_t inserts = 0;  // new keys stored
  uint64_t deletes = 0;  // size 0 removed a key
  uint64_t dropped = 0;  // new keys lost to a full map (the unchecked BPF_NOEXIST insert)
};

// A BPF_MAP_TYPE_HASH of u64 -> u64 with `capacity` entries, the global entry included.
// Open addressing over twice the capacity with a fixed hash, so iteration order (what
// first-key/next-key walk) is the same on every run and machine. Hand-written because the
// tracepoint path must take tens of millions of events a second (no allocation per event).
class GpuMemMap {
 public:
  static constexpr uint32_t kDefaultCapacity = 1024;  // GPU_MEM_TOTAL_MAP_SIZE
  explicit GpuMemMap(uint32_t capacity = kDefaultCapacity, MutantId mutant = MutantId::None);

  // The BPF program on one tracepoint hit: size 0 deletes; an existing key is overwritten;
  // a new key is inserted only if absent and room remains, and a failed insert is ignored.
  void on_event(const GpuMemTotalEvent& event);

  std::optional<uint64_t> lookup(uint64_t key) const;
  // bpf_map_get_next_key: no previous key (or one no longer present) gives the first key.
  std::optional<uint64_t> first_key() const;
  std::optional<uint64_t> next_key(uint64_t previous) const;
  uint32_t size() const { return size_; }
  uint32_t capacity() const { return capacity_; }
  const MapCounters& counters() const { return counters_; }
  // Every entry in iteration order.
  std::vector<std::pair<uint64_t, uint64_t>> entries() const;

 private:
  struct Slot {
    uint64_t key = 0;
    uint64_t value = 0;
    bool used = false;
  };
  size_t home(uint64_t key) const;
  std::optional<size_t> find(uint64_t key) const;
  void erase(size_t slot);
  bool full() const;

  uint32_t capacity_;
  MutantId mutant_;
  std::vector<Slot> slots_;  // a power of two, over twice the capacity: short probes, room for mutants
  uint32_t size_ = 0;
  uint32_t global_entries_ = 0;  // pid 0 keys, for the mutant that forgets to count them
  MapCounters counters_;
};

// --- 3. The reader (GpuMem) ----------------------------------------------------------------

class GpuMemReader {
 public:
  explicit GpuMemReader(MutantId mutant = MutantId::None) : mutant_(mutant) {}
  // The first attach, then a retry 1 s after each failure; after 30 s of retrying the next
  // failure ends the initialisation (GpuMem's window for a GPU driver that starts late).
  static constexpr uint32_t kMaxAttachRetries = 30;
  static constexpr uint64_t kRetryDelayNs = 1'000'000'000;

  // Initialise in virtual time: each failed attach waits 1 s; after 30 failures (or the first
  // one when stopping) the reader stays uninitialised. Returns the virtual time it took.
  uint64_t initialise(const AttachScript& script);
  bool initialised() const { return initialised_; }
  uint32_t attach_tries() const { return tries_; }

  // GpuMem::dump: "Failed to initialize GPU memory eBPF", "GPU memory total usage map is
  // empty", or per GPU a snapshot sorted by pid with the global total (or N/A).
  std::string dump(const GpuMemMap& map) const;

 private:
  MutantId mutant_;
  bool initialised_ = false;
  uint32_t tries_ = 0;
};

// A best-effort walk (first-key / next-key, a value read per key) while the program keeps
// updating the map: `between` runs after each step of the walk (the scripted interleaving).
// An error mid-walk (a key vanished before its value was read) ends it early.
struct WalkResult {
  std::vector<std::pair<uint64_t, uint64_t>> entries;
  bool ended_early = false;
};
template <class Between>
WalkResult walk(GpuMemMap& map, Between between, MutantId mutant = MutantId::None) {
  WalkResult result;
  if (mutant_is(mutant, MutantId::GpuMemAtomicWalk)) {  // a snapshot first: as if the map stood still
    auto snapshot = map.entries();
    for (size_t step = 0; step < 2 * snapshot.size(); ++step) between(step);
    result.entries = std::move(snapshot);
    return result;
  }
  auto key = map.first_key();
  size_t step = 0;
  while (key) {
    between(step++);
    auto value = map.lookup(*key);
    if (!value) {
      result.ended_early = true;
      break;
    }
    result.entries.emplace_back(*key, *value);
    between(step++);
    key = map.next_key(*key);
  }
  return result;
}

// --- 5. Per-process, per-type views (the sysfs proposal) ----------------------------------

using ::tidemark::kMemoryTypeNames;
using ::tidemark::MemoryType;
using ::tidemark::parse_memory_type;
using ::tidemark::to_string;

// root/<pid>/<type>: the comma-separated sizes of that pid's live allocations of that type,
// in allocation order. A pid with no live allocation has no node.
class MemoryViews {
 public:
  void allocate(uint32_t pid, MemoryType type, uint64_t id, uint64_t size);
  // False when no such allocation is live (a double free, or an id never allocated).
  bool free(uint32_t pid, uint64_t id);
  std::optional<std::string> node(uint32_t pid, MemoryType type) const;
  std::vector<uint32_t> pids() const;  // the active ones, ascending
  uint64_t total(uint32_t pid) const;

 private:
  struct Allocation {
    MemoryType type;
    uint64_t size;
  };
  // Per pid: allocations by sequence number (allocation order), and each id's number, so a
  // free is a lookup, not a scan (a mutant can leave a hundred thousand stores alive). A
  // B-tree and a flat table: no node allocated per allocation.
  struct Process {
    absl::btree_map<uint64_t, Allocation> by_sequence;
    absl::flat_hash_map<uint64_t, uint64_t> sequence_of_id;  // only looked up: hashed
    uint64_t total = 0;
  };
  std::map<uint32_t, Process> by_pid_;
  uint64_t next_sequence_ = 0;
};

}  // namespace tidemark::kernel
