#include "layer/process_record.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include "core/regular_file.h"
#include "core/whole_bytes.h"
#include "layer/records.h"

namespace tidemark::layer {

namespace fs = std::filesystem;

// The layer's records are in the report folder: opened as Tidemark opens any file there.
EventLog::EventLog(const fs::path& path) : fd_(open_regular_file(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC)) {}

EventLog::~EventLog() {
  flush();
  if (fd_ >= 0) ::close(fd_);
}

void EventLog::flush() {
  if (fd_ < 0 || used_ == 0) return;
  const size_t size = used_ * sizeof(TidemarkLayerEvent);
  used_ = 0;
  // A full disk: the observer finds the record short and says so.
  (void)write_whole(fd_, buffer_.get(), size);
}

StatusMap::StatusMap(const fs::path& path) {
  int fd = open_regular_file(path.c_str(), O_RDWR | O_CREAT | O_TRUNC);
  if (fd < 0) return;
  if (::ftruncate(fd, sizeof(TidemarkLayerStatus)) == 0) {
    void* mapped = ::mmap(nullptr, sizeof(TidemarkLayerStatus), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped != MAP_FAILED) status_ = static_cast<TidemarkLayerStatus*>(mapped);
  }
  ::close(fd);
}

StatusMap::~StatusMap() {
  if (status_) ::munmap(status_, sizeof(TidemarkLayerStatus));
}

namespace {

std::vector<std::string> command_line(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

// The parent's pid from /proc/PID/stat (the field after the command's closing parenthesis,
// which may itself hold spaces and parentheses).
long parent_of(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 1));
  std::string state;
  long parent = 0;
  rest >> state >> parent;
  return parent;
}

std::string base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

bool process_matches(const std::string& pattern) {
  if (pattern.empty()) return true;
  std::error_code ec;
  std::string exe = fs::read_symlink("/proc/self/exe", ec).string();
  auto args = command_line("self");
  for (const std::string& name : {base_name(exe), args.empty() ? std::string() : base_name(args[0])})
    if (!name.empty() && ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

fs::path make_process_folder(const fs::path& root, bool observed, uint64_t forked_from) {
  const long pid = ::getpid();
  fs::path folder;
  for (int image = 1; image < 1000 && folder.empty(); ++image) {
    fs::path candidate = root / (image == 1 ? std::to_string(pid) : std::to_string(pid) + "-" + std::to_string(image));
    if (::mkdir(candidate.c_str(), 0755) == 0)
      folder = candidate;
    else if (errno != EEXIST)
      break;
  }
  if (folder.empty()) {
    std::fprintf(stderr, TIDEMARK_LAYER_NAME ": cannot make a folder for pid %ld under %s: %s\n", pid, root.c_str(),
                 std::strerror(errno));
    return folder;
  }
  std::error_code ec;
  ProcessRecord record;
  record.pid = static_cast<uint32_t>(pid);
  record.parent = static_cast<uint32_t>(::getppid());
  record.command = command_line("self");
  record.executable = fs::read_symlink("/proc/self/exe", ec).string();
  record.observed = observed;
  record.forked_from = static_cast<uint32_t>(forked_from);
  long stop = 0;
  if (const char* observer = std::getenv("TIDEMARK_OBSERVER_PID")) stop = std::atol(observer);
  for (long at = parent_of(pid); at > 1 && at != stop && record.ancestors.size() < 64; at = parent_of(at))
    record.ancestors.push_back(
        {static_cast<uint32_t>(at), static_cast<uint32_t>(parent_of(at)), command_line(std::to_string(at))});
  write_record(folder / "process.json", to_json(record).dump(2) + '\n');
  return folder;
}

void write_record(const fs::path& file, const std::string& text) {
  fs::path whole = file;
  whole += ".partial";
  // A record that cannot be written whole (a full disk) is one the observer finds missing, never a
  // short one in place.
  const int fd = open_regular_file(whole.c_str(), O_WRONLY | O_CREAT | O_TRUNC);
  if (fd < 0) return;
  bool written = write_whole(fd, text.data(), text.size());
  if (::close(fd) != 0) written = false;
  std::error_code ignored;
  if (written)
    fs::rename(whole, file, ignored);
  else
    fs::remove(whole, ignored);
}

}  // namespace tidemark::layer
