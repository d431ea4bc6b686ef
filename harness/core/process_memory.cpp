#include "core/process_memory.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace tidemark {

void fix_heap_thresholds() {
  (void)mallopt(M_MMAP_THRESHOLD,
                4 << 20);  // larger blocks (trace buffers, big frames) are mapped and given back whole
  (void)mallopt(M_TRIM_THRESHOLD, 32 << 20);  // lavapipe's draws churn more than 16 MiB at the heap's top
}

std::optional<int64_t> rss_kib_of_status(std::string_view status) {
  size_t at = status.starts_with("VmRSS:") ? 0 : status.find("\nVmRSS:");
  if (at == std::string_view::npos) return std::nullopt;
  at = status.find(':', at) + 1;
  while (at < status.size() && (status[at] == ' ' || status[at] == '\t')) ++at;
  int64_t kib = 0;
  auto [end, error] = std::from_chars(status.data() + at, status.data() + status.size(), kib);
  if (error != std::errc() || !std::string_view(end, status.data() + status.size()).starts_with(" kB"))
    return std::nullopt;
  return kib;
}

Result<ProcessMemory> process_memory(int64_t pid) {
  auto read = [&](const char* node) -> Result<std::string> {
    std::string path = fmt::format("/proc/{}/{}", pid, node);
    std::ifstream in(path);
    if (!in) return fail(ErrorKind::Io, fmt::format("cannot read {}", path));
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  TIDEMARK_TRY(status, read("status"));
  TIDEMARK_TRY(maps, read("maps"));
  auto rss = rss_kib_of_status(status);
  if (!rss) return fail(ErrorKind::Io, fmt::format("/proc/{}/status has no VmRSS line", pid));
  return ProcessMemory{*rss, static_cast<int64_t>(std::count(maps.begin(), maps.end(), '\n'))};
}

}  // namespace tidemark
