#include "kernel/gpu_mem.h"

#include <gtest/gtest.h>

#include <set>

namespace tidemark::kernel {
namespace {

GpuMemTotalEvent event(uint32_t gpu, uint32_t pid, uint64_t size) { return {gpu, pid, size}; }

// Check the tracepoint's text form and raw layout (gpu_id at 8, pid at 12, size at 16).
TEST(GpuMemTotal, TextAndRawLayoutFollowTheAbi) {
  GpuMemTotalEvent e{1, 4321, 0x1122334455667788ull};
  EXPECT_EQ(to_text(e), "gpu_id=1 pid=4321 size=1234605616436508552");
  auto raw = to_raw(e);
  EXPECT_EQ(raw[8], 1);
  EXPECT_EQ(raw[12], 4321 & 0xff);
  EXPECT_EQ(raw[13], 4321 >> 8);
  EXPECT_EQ(raw[16], 0x88);
  EXPECT_EQ(raw[23], 0x11);
  EXPECT_EQ(from_raw(raw), e);
  EXPECT_EQ(map_key(1, 4321), (uint64_t{1} << 32) | 4321);
}

// Check that a full map (the global entry counts) silently loses the next new pid while an
// old pid keeps updating, and that only the model sees the drop.
TEST(GpuMemMap, AFullMapDropsANewPidSilentlyWhileOldOnesUpdate) {
  GpuMemMap map;
  map.on_event(event(0, 0, 1 << 20));
  for (uint32_t pid = 1; pid <= 1023; ++pid) map.on_event(event(0, pid, 4096));
  ASSERT_EQ(map.size(), 1024u);
  map.on_event(event(0, 5000, 8192));
  EXPECT_FALSE(map.lookup(map_key(0, 5000)));
  EXPECT_EQ(map.counters().dropped, 1u);
  map.on_event(event(0, 7, 65536));
  EXPECT_EQ(map.lookup(map_key(0, 7)), 65536u);
  EXPECT_EQ(map.size(), 1024u);
  EXPECT_EQ(map.counters().inserts, 1024u);
  EXPECT_EQ(map.counters().updates, 1u);
}

// Check that size 0 deletes, freeing a slot for a new pid, and that it is a no-op for a key
// the map does not hold.
TEST(GpuMemMap, SizeZeroDeletesAndFreesASlot) {
  GpuMemMap map(4);
  for (uint32_t pid = 0; pid < 4; ++pid) map.on_event(event(0, pid, 100 + pid));
  map.on_event(event(0, 9, 1));
  EXPECT_EQ(map.counters().dropped, 1u);
  map.on_event(event(0, 2, 0));
  EXPECT_FALSE(map.lookup(map_key(0, 2)));
  map.on_event(event(0, 9, 1));
  EXPECT_EQ(map.lookup(map_key(0, 9)), 1u);
  map.on_event(event(0, 77, 0));
  EXPECT_EQ(map.counters().deletes, 1u);
  EXPECT_EQ(map.size(), 4u);
}

// Check that first-key/next-key visits every entry once, in a fixed order, and that a key no
// longer present restarts the walk at the first key (bpf_map_get_next_key).
TEST(GpuMemMap, KeysWalkEveryEntryOnceAndAVanishedKeyRestarts) {
  GpuMemMap map;
  for (uint32_t pid = 0; pid < 300; ++pid) map.on_event(event(pid % 3, pid, pid + 1));
  std::set<uint64_t> seen;
  std::vector<uint64_t> order;
  for (auto key = map.first_key(); key; key = map.next_key(*key)) {
    EXPECT_TRUE(seen.insert(*key).second);
    order.push_back(*key);
  }
  EXPECT_EQ(seen.size(), 300u);
  GpuMemMap again;
  for (uint32_t pid = 0; pid < 300; ++pid) again.on_event(event(pid % 3, pid, pid + 1));
  std::vector<uint64_t> again_order;
  for (auto key = again.first_key(); key; key = again.next_key(*key)) again_order.push_back(*key);
  EXPECT_EQ(order, again_order);
  EXPECT_EQ(map.next_key(map_key(9, 9)), map.first_key());
  // Deleting keys keeps every remaining one reachable (the probe chains stay whole).
  for (uint32_t pid = 0; pid < 300; pid += 2) map.on_event(event(pid % 3, pid, 0));
  for (uint32_t pid = 1; pid < 300; pid += 2) EXPECT_EQ(map.lookup(map_key(pid % 3, pid)), pid + 1u) << pid;
  EXPECT_EQ(map.entries().size(), 150u);
}

// Check that a walk while the program updates sees entries from different moments, and that a
// key deleted between its next-key and its value read ends the walk early.
TEST(GpuMemWalk, AWalkDuringUpdatesIsBestEffort) {
  GpuMemMap map;
  for (uint32_t pid = 1; pid <= 3; ++pid) map.on_event(event(0, pid, 100));
  uint64_t second_key = map.next_key(*map.first_key()).value();
  auto result = walk(map, [&](size_t step) {
    if (step == 1) map.on_event(event(0, static_cast<uint32_t>(second_key), 999));  // lands before its read
  });
  ASSERT_EQ(result.entries.size(), 3u);
  EXPECT_FALSE(result.ended_early);
  EXPECT_EQ(result.entries[0].second, 100u);
  EXPECT_EQ(result.entries[1].second, 999u);  // read after the update: a later moment

  auto cut = walk(map, [&](size_t step) {
    if (step == 2) map.on_event(event(0, static_cast<uint32_t>(second_key), 0));  // vanishes before its read
  });
  EXPECT_TRUE(cut.ended_early);
  EXPECT_EQ(cut.entries.size(), 1u);
}

// Check the reader's attach window in virtual time: 30 retries 1 s apart, then it gives up;
// a stopping service gives up at once.
TEST(GpuMemReader, AttachRetriesForThirtySecondsThenGivesUp) {
  GpuMemReader at_once;
  EXPECT_EQ(at_once.initialise({.failures = 0}), 0u);
  EXPECT_TRUE(at_once.initialised());

  GpuMemReader late;
  EXPECT_EQ(late.initialise({.failures = 30}), 30 * GpuMemReader::kRetryDelayNs);
  EXPECT_TRUE(late.initialised());

  GpuMemReader never;
  EXPECT_EQ(never.initialise({.failures = 31}), 30 * GpuMemReader::kRetryDelayNs);
  EXPECT_FALSE(never.initialised());
  EXPECT_EQ(never.attach_tries(), 31u);
  EXPECT_EQ(never.dump(GpuMemMap()), "Failed to initialize GPU memory eBPF\n");

  GpuMemReader stopping;
  EXPECT_EQ(stopping.initialise({.failures = 5, .stop_requested = true}), 0u);
  EXPECT_FALSE(stopping.initialised());
}

// Check the dump texts: the empty map, and two GPUs with and without a global entry, pids sorted.
TEST(GpuMemReader, DumpGivesEachGpuSortedByPid) {
  GpuMemReader reader;
  reader.initialise({});
  GpuMemMap map;
  EXPECT_EQ(reader.dump(map), "GPU memory total usage map is empty\n");
  map.on_event(event(1, 300, 30));
  map.on_event(event(0, 20, 2));
  map.on_event(event(0, 0, 22));
  map.on_event(event(1, 100, 10));
  map.on_event(event(0, 10, 1));
  EXPECT_EQ(reader.dump(map),
            "Memory snapshot for GPU 0:\nGlobal total: 22\nProc 10 total: 1\nProc 20 total: 2\n"
            "Memory snapshot for GPU 1:\nGlobal total: N/A\nProc 100 total: 10\nProc 300 total: 30\n");
}

// Check the per-type nodes: each lists that pid's live sizes of that type in allocation order;
// only active pids appear.
TEST(MemoryViews, NodesListLiveSizesPerPidAndType) {
  MemoryViews views;
  views.allocate(7, MemoryType::Vulkan, 1, 4096);
  views.allocate(7, MemoryType::Descriptor, 2, 81920);
  views.allocate(7, MemoryType::Vulkan, 3, 4096);
  views.allocate(9, MemoryType::Transient, 4, 64);
  EXPECT_EQ(views.node(7, MemoryType::Vulkan), "4096,4096");
  EXPECT_EQ(views.node(7, MemoryType::Descriptor), "81920");
  EXPECT_EQ(views.node(7, MemoryType::Shader), "");
  EXPECT_EQ(views.total(7), 90112u);
  EXPECT_EQ(views.pids(), (std::vector<uint32_t>{7, 9}));
  EXPECT_TRUE(views.free(9, 4));
  EXPECT_FALSE(views.free(9, 4));
  EXPECT_EQ(views.pids(), (std::vector<uint32_t>{7}));
  EXPECT_EQ(views.node(9, MemoryType::Transient), std::nullopt);
  EXPECT_EQ(parse_memory_type("GL_BUFFER"), MemoryType::GlBuffer);
  EXPECT_EQ(to_string(MemoryType::GlTexture), "GL_TEXTURE");
}

}  // namespace
}  // namespace tidemark::kernel
