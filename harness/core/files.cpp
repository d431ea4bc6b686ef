#include "core/files.h"

#include <ext/stdio_filebuf.h>

#include <iterator>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/regular_file.h"
#include "core/whole_bytes.h"

namespace tidemark {

namespace fs = std::filesystem;

namespace {

// The first of `dir` and its parents that is there and is no folder (a file where a folder is
// asked for: the user's path, bad input), if any.
std::optional<fs::path> not_a_folder_on(const fs::path& dir) {
  std::error_code error;
  for (fs::path at = dir; !at.empty(); at = at.parent_path()) {
    const fs::file_status status = fs::status(at, error);
    if (fs::exists(status)) return fs::is_directory(status) ? std::nullopt : std::optional(at);
    if (at == at.parent_path()) break;
  }
  return std::nullopt;
}

}  // namespace

Error write_error(const fs::path& file, int error) {
  if (error == 0) error = EIO;  // a stream that failed need not say why
  if (error == ENOSPC || error == EDQUOT)
    return Error{ErrorKind::Environment, fmt::format("no space left on the device writing {}", file.string())};
  if (error == EROFS)
    return Error{ErrorKind::Environment, fmt::format("a read-only file system: cannot write {}", file.string())};
  return Error{ErrorKind::Io, fmt::format("cannot write {}: {}", file.string(), std::strerror(error))};
}

std::optional<Error> full_device_error(const fs::path& folder, const fs::path& log) {
  // Less than this free is full: the last write that failed may have asked for more than is left.
  constexpr uint64_t kNearlyFull = uint64_t{1} << 20;
  struct statvfs device {};
  if (::statvfs(folder.c_str(), &device) == 0 &&
      (uint64_t{device.f_bavail} * device.f_frsize < kNearlyFull || (device.f_files > 0 && device.f_favail == 0)))
    return write_error(folder, ENOSPC);
  if (log.empty()) return std::nullopt;
  std::ifstream in(log, std::ios::binary | std::ios::ate);  // its end: where a program says why it stopped
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  in.seekg(std::max<std::streamoff>(0, size - (std::streamoff{64} << 10)));
  const std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const int error : {ENOSPC, EDQUOT})
    if (tail.find(std::strerror(error)) != std::string::npos) return write_error(folder, error);
  return std::nullopt;
}

// A file on the way to `dir` is bad input naming it; a full disk the machine's; anything else, an I/O error.
Status make_directories(const fs::path& dir) {
  if (dir.empty()) return {};
  std::error_code error;
  fs::create_directories(dir, error);
  if (!error) return {};
  if (auto file = not_a_folder_on(dir))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected a folder (or nothing) to make {} in, found a file",
                                                 file->string(), dir.string()));
  if (Error full = write_error(dir, error.value()); full.kind == ErrorKind::Environment) return std::unexpected(full);
  return fail(ErrorKind::Io, fmt::format("cannot create {}: {}", dir.string(), error.message()));
}

namespace {

// What is at `file` where a file to write was expected (a link, a FIFO, a device), or nullopt for
// nothing, a regular file or a folder (a write to a folder fails as any write does: an I/O error).
std::optional<std::string> found_instead_of_a_file(const fs::path& file) {
  struct stat there {};
  if (::lstat(file.c_str(), &there) != 0 || S_ISREG(there.st_mode) || S_ISDIR(there.st_mode)) return std::nullopt;
  std::error_code ec;
  if (S_ISLNK(there.st_mode)) return fmt::format("a symbolic link (to {})", fs::read_symlink(file, ec).string());
  if (S_ISFIFO(there.st_mode)) return "a FIFO";
  if (S_ISSOCK(there.st_mode)) return "a socket";
  return "a device";
}

std::unexpected<Error> not_a_file(const fs::path& file, const std::string& found) {
  const bool link = found.starts_with("a symbolic link");
  return fail(ErrorKind::BadInput,
              fmt::format("{}: expected a file to write, found {}: {}", file.string(), found,
                          link ? "a write never replaces a link nor follows it; name the file itself"
                               : "a write never waits on it nor replaces it; remove it or name another file"));
}

// A name Tidemark will write: nothing there yet, or a regular file.
Status check_name_to_write(const fs::path& file) {
  if (auto found = found_instead_of_a_file(file)) return not_a_file(file, *found);
  return {};
}

}  // namespace

Result<UniqueFd> open_file_to_write(const fs::path& file, WriteMode mode) {
  const int how = mode == WriteMode::Replace  ? O_CREAT | O_TRUNC
                  : mode == WriteMode::Append ? O_CREAT | O_APPEND
                                              : O_APPEND;
  UniqueFd fd(open_regular_file(file.c_str(), O_WRONLY | how));
  if (fd) return fd;
  const int error = errno;
  if (error == ELOOP || error == ENXIO)
    if (auto found = found_instead_of_a_file(file)) return not_a_file(file, *found);
  return std::unexpected(write_error(file, error));
}

Status write_all(int fd, std::string_view bytes, const fs::path& file) {
  if (write_whole(fd, bytes.data(), bytes.size())) return {};
  return std::unexpected(write_error(file, errno));
}

namespace {
// An ostream that owns its file's buffer (libstdc++'s stdio_filebuf closes the descriptor).
class FdStream : public std::ostream {
 public:
  explicit FdStream(UniqueFd fd) : std::ostream(nullptr), buffer_(fd.release(), std::ios::out | std::ios::binary) {
    rdbuf(&buffer_);
  }

 private:
  __gnu_cxx::stdio_filebuf<char> buffer_;
};
}  // namespace

std::unique_ptr<std::ostream> output_stream(UniqueFd fd) { return std::make_unique<FdStream>(std::move(fd)); }

Status replace_file(const fs::path& file, const std::function<Status(const fs::path& temporary)>& write) {
  TIDEMARK_CHECK(check_name_to_write(file));
  fs::path temporary = file;
  temporary += fmt::format(".tmp-{}", ::getpid());
  auto written = write(temporary);
  std::error_code error, ignored;
  if (written) fs::rename(temporary, file, error);
  if (written && !error) return {};
  fs::remove(temporary, ignored);  // its own code: the rename's error is the one to report
  if (!written) return written;
  return std::unexpected(write_error(file, error.value()));
}

namespace {
// `content` as the new file `temporary`, named `file` in errors.
Status write_bytes(const fs::path& temporary, const fs::path& file, std::string_view content) {
  auto opened = open_file_to_write(temporary, WriteMode::Replace);
  if (!opened) return std::unexpected(opened.error());
  TIDEMARK_CHECK(write_all(opened->get(), content, file));
  if (::close(opened->release()) != 0) return std::unexpected(write_error(file, errno));
  return {};
}

// `from`'s bytes into the new file `temporary` (sendfile: the kernel copies), named `file` in errors.
Status copy_bytes(int from, uint64_t size, const fs::path& temporary, const fs::path& file) {
  TIDEMARK_TRY(out, open_file_to_write(temporary, WriteMode::Replace));
  off_t offset = 0;
  while (static_cast<uint64_t>(offset) < size) {
    const ssize_t sent = ::sendfile(out.get(), from, &offset, size - static_cast<uint64_t>(offset));
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return std::unexpected(write_error(file, sent < 0 ? errno : EIO));
  }
  if (::close(out.release()) != 0) return std::unexpected(write_error(file, errno));
  return {};
}
}  // namespace

Status write_file_atomically(const fs::path& file, std::string_view content) {
  return replace_file(file, [&](const fs::path& temporary) { return write_bytes(temporary, file, content); });
}

Status link_or_copy_file(const fs::path& from, const fs::path& to) {
  return replace_file(to, [&](const fs::path& temporary) -> Status {
    std::error_code error;
    fs::create_hard_link(from, temporary, error);
    if (!error) return {};
    UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat size {};
    if (!in || ::fstat(in.get(), &size) != 0)
      return fail(ErrorKind::Io,
                  fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), std::strerror(errno)));
    return copy_bytes(in.get(), static_cast<uint64_t>(size.st_size), temporary, to);
  });
}

void FileBatch::add(fs::path file, std::string content) {
  for (auto& [name, bytes] : files_)
    if (name == file) {
      bytes = std::move(content);
      return;
    }
  files_.emplace_back(std::move(file), std::move(content));
}

namespace {

// What a batch has made so far, undone by undo(): each step is recorded before the next is taken.
struct BatchSteps {
  std::vector<fs::path> folders;                       // made by the batch, deepest first
  std::vector<fs::path> temporaries;                   // the new bytes, not yet renamed
  std::vector<std::pair<fs::path, fs::path>> backups;  // (file, a second name of its old bytes)
  std::vector<fs::path> placed;                        // files renamed into place
  void undo() {
    std::error_code ignored;  // each its own: the error that stopped the batch is the one to report
    for (const auto& file : placed) {
      auto backup = std::find_if(backups.begin(), backups.end(), [&](const auto& b) { return b.first == file; });
      if (backup != backups.end())
        fs::rename(backup->second, file, ignored);
      else
        fs::remove(file, ignored);
    }
    for (const auto& temporary : temporaries) fs::remove(temporary, ignored);
    for (const auto& [file, backup] : backups) fs::remove(backup, ignored);
    for (const auto& folder : folders) fs::remove(folder, ignored);  // only if empty: never what others put there
  }
};

// The folders above `file` that do not exist yet, deepest first.
std::vector<fs::path> missing_folders(const fs::path& file) {
  std::vector<fs::path> missing;
  std::error_code ec;
  for (fs::path folder = fs::absolute(file).parent_path(); !folder.empty() && !fs::exists(folder, ec);
       folder = folder.parent_path()) {
    missing.push_back(folder);
    if (folder == folder.root_path()) break;
  }
  return missing;
}

}  // namespace

Status FileBatch::check() const {
  for (const auto& [file, content] : files_) TIDEMARK_CHECK(check_name_to_write(file));
  return {};
}

Status FileBatch::commit() {
  TIDEMARK_CHECK(check());
  BatchSteps steps;
  auto undone = [&](Status failed) {
    steps.undo();
    return failed;
  };
  const std::string suffix = fmt::format("-{}", ::getpid());
  for (const auto& [file, content] : files_) {
    const std::vector<fs::path> missing = missing_folders(file);
    steps.folders.insert(steps.folders.begin(), missing.begin(), missing.end());
    if (auto made = make_directories(file.parent_path()); !made) return undone(made);
    fs::path temporary = file;
    temporary += ".tmp" + suffix;
    steps.temporaries.push_back(temporary);
    if (auto written = write_bytes(temporary, file, content); !written) return undone(written);
    std::error_code ec;
    if (fs::is_regular_file(fs::symlink_status(file, ec))) {
      fs::path backup = file;
      backup += ".old" + suffix;
      steps.backups.emplace_back(file, backup);
      if (auto kept = link_or_copy_file(file, backup); !kept) return undone(kept);
    }
  }
  for (size_t k = 0; k < files_.size(); ++k) {
    std::error_code error;
    fs::rename(steps.temporaries[k], files_[k].first, error);
    if (error) return undone(std::unexpected(write_error(files_[k].first, error.value())));
    steps.placed.push_back(files_[k].first);
  }
  std::error_code ignored;
  for (const auto& [file, backup] : steps.backups) fs::remove(backup, ignored);
  return {};
}

std::filesystem::path this_executable_dir() {
  std::error_code error;
  auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::path() : self.parent_path();
}

namespace {
// "a trace file", "an expectations file".
std::string a_file(std::string_view what) {
  const bool vowel = !what.empty() && std::string_view("aeiou").find(what.front()) != std::string_view::npos;
  return fmt::format("{} {} file", vowel ? "an" : "a", what);
}
}  // namespace

Result<uint64_t> check_given_file(const fs::path& file, std::string_view what, uint64_t max_bytes) {
  std::error_code error;
  const auto status = fs::status(file, error);
  if (fs::is_directory(status))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found a folder", file.string(), a_file(what)));
  if (!fs::exists(status))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found nothing", file.string(), a_file(what)));
  if (!fs::is_regular_file(status))
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found something that is not a regular file",
                                                 file.string(), a_file(what)));
  const uintmax_t size = fs::file_size(file, error);
  if (error)
    return fail(ErrorKind::Io, fmt::format("{}: cannot read the {} file: {}", file.string(), what, error.message()));
  if (size > max_bytes)
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {} of at most {} bytes, found {} bytes", file.string(),
                                                 a_file(what), max_bytes, size));
  return static_cast<uint64_t>(size);
}

Result<std::string> read_given_file(const fs::path& file, std::string_view what, uint64_t max_bytes) {
  TIDEMARK_TRY(size, check_given_file(file, what, max_bytes));
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return fail(ErrorKind::Io,
                fmt::format("{}: cannot read the {} file: {}", file.string(), what, std::strerror(errno)));
  std::string bytes(size, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  // A file that grew while it was read is read as it was when it was checked; one that shrank is a failed read.
  if (in.gcount() != static_cast<std::streamsize>(size))
    return fail(ErrorKind::Io,
                fmt::format("{}: cannot read the {} file: it changed while it was read", file.string(), what));
  return bytes;
}

Result<std::optional<std::string>> read_file_if_present(const fs::path& file, std::string_view what,
                                                        uint64_t max_bytes) {
  std::error_code error;
  if (!fs::exists(fs::symlink_status(file, error))) return std::optional<std::string>();
  TIDEMARK_TRY(text, read_given_file(file, what, max_bytes));
  return std::optional<std::string>(std::move(text));
}

Result<SequentialFile> SequentialFile::open(const std::filesystem::path& file, std::string_view what) {
  TIDEMARK_TRY(size, check_given_file(file, what, std::numeric_limits<uint64_t>::max()));
  SequentialFile opened;
  opened.fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (opened.fd_ < 0)
    return fail(ErrorKind::Io,
                fmt::format("{}: cannot read the {} file: {}", file.string(), what, std::strerror(errno)));
  opened.name_ = fmt::format("{}: cannot read the {} file", file.string(), what);
  opened.size_ = size;
  ::posix_fadvise(opened.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // the kernel reads further ahead
  return opened;
}

Result<SequentialFile> SequentialFile::again() const {
  SequentialFile second;
  second.fd_ = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  if (second.fd_ < 0) return fail(ErrorKind::Io, fmt::format("{}: {}", name_, std::strerror(errno)));
  second.name_ = name_;
  second.size_ = size_;
  return second;
}

bool SequentialFile::holds(uint64_t at, uint64_t length) const {
  const uint64_t end = at + std::min(length, size_ - std::min(at, size_));
  return at >= held_at_ && end <= held_at_ + held_;
}

Result<std::span<const uint8_t>> SequentialFile::read(uint64_t at, uint64_t length) {
  at = std::min(at, size_);
  length = std::min(length, size_ - at);
  if (holds(at, length)) return std::span<const uint8_t>(held_data_ + (at - held_at_), static_cast<size_t>(length));
  unmap();
  held_ = 0;
  if (length > kPiece) {
    // A mapped page past the file's end would be a SIGBUS where it is touched: a file that
    // shrank is refused here, as a read would refuse it.
    struct stat now {};
    if (::fstat(fd_, &now) != 0 || static_cast<uint64_t>(now.st_size) < at + length)
      return fail(ErrorKind::Io, fmt::format("{}: it shrank while it was read", name_));
    static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    const uint64_t from = at / page * page;
    mapping_length_ = static_cast<size_t>(at + length - from);
    void* mapped = ::mmap(nullptr, mapping_length_, PROT_READ, MAP_PRIVATE, fd_, static_cast<off_t>(from));
    if (mapped == MAP_FAILED) return fail(ErrorKind::Io, fmt::format("{}: {}", name_, std::strerror(errno)));
    mapping_ = mapped;
    held_data_ = static_cast<const uint8_t*>(mapped) + (at - from);
  } else {
    if (!buffer_) buffer_ = std::make_unique_for_overwrite<uint8_t[]>(kPiece);
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(kPiece, size_ - at));
    for (size_t got = 0; got < piece;) {  // held_ is set only once the whole piece is in
      const ssize_t n = ::pread(fd_, buffer_.get() + got, piece - got, static_cast<off_t>(at + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0)
        return fail(ErrorKind::Io,
                    fmt::format("{}: {}", name_, n < 0 ? std::strerror(errno) : "it shrank while it was read"));
      got += static_cast<size_t>(n);
    }
    held_data_ = buffer_.get();
  }
  held_ = mapping_ ? length : std::min<uint64_t>(kPiece, size_ - at);
  held_at_ = at;
  return std::span<const uint8_t>(held_data_, static_cast<size_t>(length));
}

void SequentialFile::unmap() {
  if (mapping_) ::munmap(mapping_, mapping_length_);
  mapping_ = nullptr;
  mapping_length_ = 0;
}

SequentialFile::SequentialFile(SequentialFile&& other) noexcept { *this = std::move(other); }
SequentialFile& SequentialFile::operator=(SequentialFile&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(name_, other.name_);
  std::swap(size_, other.size_);
  std::swap(buffer_, other.buffer_);
  std::swap(mapping_, other.mapping_);
  std::swap(mapping_length_, other.mapping_length_);
  std::swap(held_data_, other.held_data_);
  std::swap(held_at_, other.held_at_);
  std::swap(held_, other.held_);
  return *this;
}
SequentialFile::~SequentialFile() {
  unmap();
  if (fd_ >= 0) ::close(fd_);
}

std::optional<UnnamedFile> UnnamedFile::create() {
  std::error_code error;
  const fs::path folder = fs::temp_directory_path(error);
  if (error) return std::nullopt;
  const int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);  // umask applies, as to any file written
  if (fd < 0) return std::nullopt;
  return UnnamedFile(fd);
}

UnnamedFile& UnnamedFile::operator=(UnnamedFile&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(size_, other.size_);
  return *this;
}

UnnamedFile::~UnnamedFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool UnnamedFile::append(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(size_ + done));
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;  // what was written past size_ is overwritten by the next append
    done += static_cast<size_t>(wrote);
  }
  size_ += done;
  return true;
}

Result<std::string> UnnamedFile::read_all() const {
  std::string bytes(size_, '\0');
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::pread(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      return fail(ErrorKind::Io, fmt::format("cannot read back a temporary file: {}",
                                             got < 0 ? std::strerror(errno) : "it ended early"));
    done += static_cast<size_t>(got);
  }
  return bytes;
}

Status UnnamedFile::save_as(const fs::path& file) const {
  return replace_file(file, [&](const fs::path& temporary) -> Status {
    const std::string self = fmt::format("/proc/self/fd/{}", fd_);
    if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temporary.c_str(), AT_SYMLINK_FOLLOW) == 0) return {};
    return copy_bytes(fd_, size_, temporary, file);
  });
}

}  // namespace tidemark
