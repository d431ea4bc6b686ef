#include "kernel/gpu_mem.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

namespace tidemark::kernel {

std::string to_text(const GpuMemTotalEvent& event) {
  return fmt::format("gpu_id={} pid={} size={}", event.gpu_id, event.pid, event.size);
}

std::array<uint8_t, kGpuMemTotalRawBytes> to_raw(const GpuMemTotalEvent& event) {
  std::array<uint8_t, kGpuMemTotalRawBytes> raw{};
  auto put = [&](size_t at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) raw[at + static_cast<size_t>(i)] = static_cast<uint8_t>(value >> (8 * i));
  };
  put(8, event.gpu_id, 4);
  put(12, event.pid, 4);
  put(16, event.size, 8);
  return raw;
}

GpuMemTotalEvent from_raw(const std::array<uint8_t, kGpuMemTotalRawBytes>& raw) {
  auto get = [&](size_t at, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i) value |= uint64_t{raw[at + static_cast<size_t>(i)]} << (8 * i);
    return value;
  };
  return {static_cast<uint32_t>(get(8, 4)), static_cast<uint32_t>(get(12, 4)), get(16, 8)};
}

// ---- the map -------------------------------------------------------------------------------

GpuMemMap::GpuMemMap(uint32_t capacity, MutantId mutant)
    : capacity_(capacity), mutant_(mutant), slots_(std::bit_ceil(2 * size_t{capacity} + 2)) {}

size_t GpuMemMap::home(uint64_t key) const {
  // splitmix64's finaliser: a fixed, well-mixed hash, so iteration order is reproducible.
  uint64_t x = key + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return static_cast<size_t>(x) & (slots_.size() - 1);
}

std::optional<size_t> GpuMemMap::find(uint64_t key) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = home(key);; slot = (slot + 1) & mask) {
    if (!slots_[slot].used) return std::nullopt;
    if (slots_[slot].key == key) return slot;
  }
}

// Backward-shift deletion keeps every probe chain unbroken without tombstones.
void GpuMemMap::erase(size_t slot) {
  const size_t mask = slots_.size() - 1;
  size_t hole = slot;
  for (size_t next = (hole + 1) & mask; slots_[next].used; next = (next + 1) & mask) {
    size_t want = home(slots_[next].key);
    bool movable = ((next - want) & mask) >= ((next - hole) & mask);
    if (movable) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = Slot{};
  --size_;
}

bool GpuMemMap::full() const {
  uint32_t counted = size_;
  if (mutant_is(mutant_, MutantId::GpuMemGlobalNotCounted)) counted -= global_entries_;
  return counted >= capacity_;
}

void GpuMemMap::on_event(const GpuMemTotalEvent& event) {
  ++counters_.events;
  const uint64_t key = map_key(event.gpu_id, event.pid);
  auto slot = find(key);
  if (event.size == 0 && !mutant_is(mutant_, MutantId::GpuMemZeroKeepsEntry)) {
    if (slot) {
      if (event.pid == 0) --global_entries_;
      erase(*slot);
      ++counters_.deletes;
    }
    return;
  }
  if (slot) {
    slots_[*slot].value = event.size;
    ++counters_.updates;
    return;
  }
  // BPF_NOEXIST into a full map fails, and the program does not look at the result.
  if (full() || size_ == slots_.size() / 2) {
    ++counters_.dropped;
    return;
  }
  const size_t mask = slots_.size() - 1;
  size_t free_slot = home(key);
  while (slots_[free_slot].used) free_slot = (free_slot + 1) & mask;
  slots_[free_slot] = Slot{key, event.size, true};
  ++size_;
  if (event.pid == 0) ++global_entries_;
  ++counters_.inserts;
}

std::optional<uint64_t> GpuMemMap::lookup(uint64_t key) const {
  if (auto slot = find(key)) return slots_[*slot].value;
  return std::nullopt;
}

std::optional<uint64_t> GpuMemMap::first_key() const {
  for (const auto& slot : slots_)
    if (slot.used) return slot.key;
  return std::nullopt;
}

std::optional<uint64_t> GpuMemMap::next_key(uint64_t previous) const {
  auto at = find(previous);
  if (!at) return first_key();
  for (size_t slot = *at + 1; slot < slots_.size(); ++slot)
    if (slots_[slot].used) return slots_[slot].key;
  return std::nullopt;
}

std::vector<std::pair<uint64_t, uint64_t>> GpuMemMap::entries() const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& slot : slots_)
    if (slot.used) out.emplace_back(slot.key, slot.value);
  return out;
}

// ---- the reader ------------------------------------------------------------------------------

uint64_t GpuMemReader::initialise(const AttachScript& script) {
  const bool retries = !mutant_is(mutant_, MutantId::GpuMemNoAttachRetry);
  uint64_t waited = 0;
  for (tries_ = 1;; ++tries_) {
    if (tries_ > script.failures) {
      initialised_ = true;  // attached; the map opens read-only
      return waited;
    }
    if (script.stop_requested || !retries || tries_ > kMaxAttachRetries) break;
    waited += kRetryDelayNs;
  }
  initialised_ = false;
  return waited;
}

std::string GpuMemReader::dump(const GpuMemMap& map) const {
  if (!initialised_ && !mutant_is(mutant_, MutantId::GpuMemDumpIgnoresInit))
    return "Failed to initialize GPU memory eBPF\n";
  auto entries = map.entries();
  if (entries.empty()) return "GPU memory total usage map is empty\n";
  std::map<uint32_t, std::map<uint32_t, uint64_t>> by_gpu;  // sorted by gpu, then pid
  for (const auto& [key, value] : entries) by_gpu[static_cast<uint32_t>(key >> 32)][static_cast<uint32_t>(key)] = value;
  std::string out;
  for (const auto& [gpu, pids] : by_gpu) {
    out += fmt::format("Memory snapshot for GPU {}:\n", gpu);
    auto global = pids.find(0);
    out += global == pids.end() ? "Global total: N/A\n" : fmt::format("Global total: {}\n", global->second);
    for (const auto& [pid, total] : pids)
      if (pid != 0) out += fmt::format("Proc {} total: {}\n", pid, total);
  }
  return out;
}

// ---- per-type views ---------------------------------------------------------------------------

void MemoryViews::allocate(uint32_t pid, MemoryType type, uint64_t id, uint64_t size) {
  Process& process = by_pid_[pid];
  uint64_t sequence = next_sequence_++;
  process.by_sequence.emplace(sequence, Allocation{type, size});
  process.sequence_of_id[id] = sequence;
  process.total += size;
}

bool MemoryViews::free(uint32_t pid, uint64_t id) {
  auto it = by_pid_.find(pid);
  if (it == by_pid_.end()) return false;
  Process& process = it->second;
  auto sequence = process.sequence_of_id.find(id);
  if (sequence == process.sequence_of_id.end()) return false;
  auto allocation = process.by_sequence.find(sequence->second);
  process.total -= allocation->second.size;
  process.by_sequence.erase(allocation);
  process.sequence_of_id.erase(sequence);
  if (process.by_sequence.empty()) by_pid_.erase(it);
  return true;
}

std::optional<std::string> MemoryViews::node(uint32_t pid, MemoryType type) const {
  auto it = by_pid_.find(pid);
  if (it == by_pid_.end()) return std::nullopt;
  std::string out;
  for (const auto& [sequence, allocation] : it->second.by_sequence) {
    if (allocation.type != type) continue;
    if (!out.empty()) out += ',';
    out += std::to_string(allocation.size);
  }
  return out;
}

std::vector<uint32_t> MemoryViews::pids() const {
  std::vector<uint32_t> out;
  for (const auto& [pid, process] : by_pid_) out.push_back(pid);
  return out;
}

uint64_t MemoryViews::total(uint32_t pid) const {
  auto it = by_pid_.find(pid);
  return it == by_pid_.end() ? 0 : it->second.total;
}

}  // namespace tidemark::kernel
