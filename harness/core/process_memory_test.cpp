#include "core/process_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace tidemark {
namespace {

// Check that VmRSS is read in KiB wherever the line sits, and that anything else is refused.
TEST(ProcessMemory, VmRssIsReadFromTheStatusText) {
  EXPECT_EQ(rss_kib_of_status("Name:\tx\nVmPeak:\t  9000 kB\nVmRSS:\t    5120 kB\nRssAnon:\t 1 kB\n"), 5120);
  EXPECT_EQ(rss_kib_of_status("VmRSS:\t7 kB\n"), 7);
  EXPECT_EQ(rss_kib_of_status("Name:\tkthreadd\nState:\tS\n"), std::nullopt);  // kernel threads have none
  EXPECT_EQ(rss_kib_of_status("VmRSS:\tlots kB\n"), std::nullopt);
  EXPECT_EQ(rss_kib_of_status("VmRSS:\t12 MB\n"), std::nullopt);
}

// Check against this process: touching 64 MiB raises the resident set by at least most of it,
// and 16 mappings of its own add to the count. Pages of alternating protection cannot merge
// with each other, so at least 14 stay separate even if the two ends merge with neighbours;
// the allocator may map or unmap one or two of its own meanwhile, hence 8, not 16.
TEST(ProcessMemory, ThisProcessGrowsWhenItTouchesMemory) {
  auto before = process_memory(getpid());
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_GT(before->rss_kib, 0);
  EXPECT_GT(before->mappings, 0);
  std::vector<char> block(size_t{64} << 20, 1);  // large enough for its own mmap
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* pages = mmap(nullptr, 16 * page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(pages, MAP_FAILED);
  for (size_t k = 1; k < 16; k += 2) mprotect(static_cast<char*>(pages) + k * page, page, PROT_NONE);
  auto after = process_memory(getpid());
  munmap(pages, 16 * page);
  ASSERT_TRUE(after);
  EXPECT_GE(after->rss_kib - before->rss_kib, 48 * 1024) << block[12345];
  EXPECT_GE(after->mappings, before->mappings + 8);
  EXPECT_FALSE(process_memory(-1));
}

}  // namespace
}  // namespace tidemark
