// Quotes of a child's log (core/process.h's last_lines, last_line_starting): bounded whatever the
// child wrote, read from the log's end.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/process.h"

namespace tidemark {

namespace fs = std::filesystem;

namespace {
// How much of a log a quote reads (its end), and how long a line it quotes.
constexpr size_t kQuotedBytes = 16 * 1024;
constexpr size_t kQuotedLineBytes = 400;

// A line as a message shows it: control bytes as '?', cut at a character's start past the bound.
std::string quotable(std::string_view line) {
  std::string out;
  size_t end = line.size();
  if (end > kQuotedLineBytes) {
    end = kQuotedLineBytes;
    while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) --end;
  }
  for (const char c : line.substr(0, end))
    out += (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f ? '?' : c;
  if (end < line.size()) out += fmt::format(" [{} bytes more]", line.size() - end);
  return out;
}

// The log as a regular file, opened; none otherwise (not blocking: a FIFO found there is no log).
UniqueFd open_log(const fs::path& log, struct stat& info) {
  UniqueFd file(::open(log.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!file || ::fstat(file.get(), &info) != 0 || !S_ISREG(info.st_mode)) return {};
  return file;
}
}  // namespace

std::optional<std::string> last_line_starting(const fs::path& log, std::string_view prefix) {
  struct stat info {};
  const UniqueFd file = open_log(log, info);
  if (!file) return std::nullopt;
  std::optional<std::string> found;
  std::string line;  // the line read so far, its first bytes only
  size_t length = 0;
  auto line_ends = [&] {
    if (line.starts_with(prefix))
      found = quotable(line) + (length > line.size() ? fmt::format(" [{} bytes more]", length - line.size()) : "");
    line.clear();
    length = 0;
  };
  char chunk[64 * 1024];
  for (ssize_t got; (got = ::read(file.get(), chunk, sizeof chunk)) > 0;)
    for (const char c : std::string_view(chunk, static_cast<size_t>(got))) {
      if (c == '\n') {
        line_ends();
        continue;
      }
      if (line.size() <= kQuotedLineBytes) line += c;
      ++length;
    }
  line_ends();
  return found;
}

std::vector<std::string> last_lines(const fs::path& log, size_t count) {
  struct stat info {};
  const UniqueFd file = open_log(log, info);
  if (!file) return {};
  const off_t from = std::max<off_t>(0, info.st_size - static_cast<off_t>(kQuotedBytes));
  std::string text(static_cast<size_t>(info.st_size - from), '\0');
  const ssize_t got = ::pread(file.get(), text.data(), text.size(), from);
  text.resize(got > 0 ? static_cast<size_t>(got) : 0);
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> out;
  for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) {
    // A line that began before the bytes read is shown as its end.
    const bool cut_before = from > 0 && lines[i].data() == text.data();
    out.push_back((cut_before ? "[...] " : "") + quotable(lines[i]));
  }
  return out;
}

}  // namespace tidemark
