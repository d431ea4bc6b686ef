// Files the harness writes. Folders are created with a message, never an exception; a file
// is written beside its final name and renamed over it, so a failed write (a full disk)
// leaves nothing that looks complete, and the error names the file that failed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/limits.h"
#include "core/process.h"  // UniqueFd

namespace tidemark {

Status make_directories(const std::filesystem::path& dir);

// The error of a failed write to `file` (an errno): a full disk, a quota reached or a read-only
// file system is the machine's (Environment, exit 3) naming the file; anything else is Io.
Error write_error(const std::filesystem::path& file, int error);

// A program Tidemark ran (a build, a capture's tool) failed while writing into `folder`: when the
// device holding it is full, or the program's `log` says a write found no space, the failure is
// the machine's (write_error's for `folder`), not the program's; nullopt otherwise.
std::optional<Error> full_device_error(const std::filesystem::path& folder, const std::filesystem::path& log = {});

// How a file Tidemark writes is opened (open_file_to_write).
enum class WriteMode {
  Replace,  // made, or emptied
  Append,   // made, or written at its end
  Extend,   // written at its end; it must exist
};
// The one way Tidemark opens a file to write (a report's journal, records, images, logs and
// recordings; the temporaries its documents are written to): a name that is a symbolic link, a
// FIFO, a folder or a device is refused as bad input naming the path and what was found there,
// never followed nor waited on (core/regular_file.h). A failed open is write_error's.
Result<UniqueFd> open_file_to_write(const std::filesystem::path& file, WriteMode mode);
// Writes all of `bytes` to `fd`, the file `file`: write_error's error when it cannot.
Status write_all(int fd, std::string_view bytes, const std::filesystem::path& file);
// A stream over a file opened by open_file_to_write, for writers that stream (a recording).
std::unique_ptr<std::ostream> output_stream(UniqueFd fd);

// The folder of the running executable (what is built beside it: tidemark-server, the layer);
// empty when /proc/self/exe cannot be read.
std::filesystem::path this_executable_dir();

// Whether `file` may be read as a file a command was given (`what` names it: "trace",
// "digests"): nothing at the path, a folder, a pipe, a device or a file over `max_bytes` is bad
// input naming the path (a pipe would wait for a writer for ever, /dev/zero never ends). Its size.
Result<uint64_t> check_given_file(const std::filesystem::path& file, std::string_view what,
                                  uint64_t max_bytes = kMaxDocumentBytes);
// The whole of such a file; one that passes the checks but cannot be read is an I/O error.
Result<std::string> read_given_file(const std::filesystem::path& file, std::string_view what,
                                    uint64_t max_bytes = kMaxDocumentBytes);
// The same for a file that may not exist yet (a ledger, a history): nullopt when nothing is there.
Result<std::optional<std::string>> read_file_if_present(const std::filesystem::path& file, std::string_view what,
                                                        uint64_t max_bytes = kMaxDocumentBytes);

// Runs `write` against a temporary path beside `file`, then renames it over `file`; on any
// failure the temporary file is removed and `file` is left as it was.
Status replace_file(const std::filesystem::path& file,
                    const std::function<Status(const std::filesystem::path& temporary)>& write);
Status write_file_atomically(const std::filesystem::path& file, std::string_view content);
// `to` gets `from`'s bytes, atomically: a second name for the same file where both folders are
// on one file system (the documents Tidemark writes are never changed in place), else a copy.
Status link_or_copy_file(const std::filesystem::path& from, const std::filesystem::path& to);
// Files that belong together (a summary's JSON, HTML and JUnit; every file a rebase changes),
// written all or none. Each is written beside its name (a temporary in its own folder, so that
// its rename is atomic), the folders it needs made; only when all are written are they renamed
// into place, in the order added. Any failure leaves everything as it was: the temporaries and
// the folders this batch made are removed, and files already renamed get their old bytes back.
// A name that is a symbolic link is refused (bad input) before anything is written: renaming
// over it would replace the link with a plain file, and writing through it would put the file
// where the caller never named it. (Links among the folders above a name are followed.)
class FileBatch {
 public:
  // A later content for the same name replaces the earlier one.
  void add(std::filesystem::path file, std::string content);
  bool empty() const { return files_.empty(); }
  // What commit() refuses before it writes anything (a name that is a link), for a dry run.
  Status check() const;
  Status commit();

 private:
  std::vector<std::pair<std::filesystem::path, std::string>> files_;
};

// A file with no name in the temporary folder (O_TMPFILE): bytes a process produces and may
// read back once, held by the kernel's page cache rather than the process's heap; it is gone
// when closed. nullopt where the folder's file system has no unnamed files.
class UnnamedFile {
 public:
  static std::optional<UnnamedFile> create();
  UnnamedFile(UnnamedFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}
  UnnamedFile& operator=(UnnamedFile&& other) noexcept;
  UnnamedFile(const UnnamedFile&) = delete;
  UnnamedFile& operator=(const UnnamedFile&) = delete;
  ~UnnamedFile();
  // Appends the bytes; false (and nothing counted) when they could not all be written.
  bool append(std::string_view bytes);
  // Everything appended so far, in one string.
  Result<std::string> read_all() const;
  // Gives the bytes appended so far the name `file`, atomically (replace_file): the file itself
  // when `file`'s folder is on the same file system (no byte copied), else a copy the kernel
  // makes. Appending after this would change the named file too: its owner stops appending.
  Status save_as(const std::filesystem::path& file) const;
  uint64_t size() const { return size_; }

 private:
  explicit UnnamedFile(int fd) : fd_(fd) {}
  int fd_ = -1;
  uint64_t size_ = 0;
};

// A file read front to back through one reused buffer (pread): resident memory is one piece
// whatever the file's size, and no freshly mapped page stalls its first reader (a fault, on a
// paravirtualised machine the hypervisor's page tables too). Only a range longer than a piece (a
// recorded trace) is mapped, while it is read. The same errors as check_given_file, no size bound.
class SequentialFile {
 public:
  // What one read from the file asks for: small enough that the records read from the buffer are
  // still in the CPU's cache.
  static constexpr size_t kPiece = size_t{256} << 10;
  static Result<SequentialFile> open(const std::filesystem::path& file, std::string_view what);
  SequentialFile(SequentialFile&& other) noexcept;
  SequentialFile& operator=(SequentialFile&& other) noexcept;
  SequentialFile(const SequentialFile&) = delete;
  SequentialFile& operator=(const SequentialFile&) = delete;
  ~SequentialFile();
  uint64_t size() const { return size_; }
  // A second reader of the same open file, with a buffer of its own: a path replaced since
  // this one was opened is not read.
  Result<SequentialFile> again() const;
  // Whether read(at, length) finds its bytes in the buffer, reading nothing from the file.
  bool holds(uint64_t at, uint64_t length) const;
  // The bytes of [at, at + length), cut at the end of the file; valid until the next read. A
  // range the buffer does not hold is read as the piece from `at`, or mapped when it is longer
  // than a piece. A file that shrank since it was opened is an I/O error (where it is read;
  // a mapped range cut under its reader is the kernel's SIGBUS, as for any mapping).
  Result<std::span<const uint8_t>> read(uint64_t at, uint64_t length);

 private:
  SequentialFile() = default;
  int fd_ = -1;
  std::string name_;
  uint64_t size_ = 0;                  // when opened: a file that grows is read as it was
  std::unique_ptr<uint8_t[]> buffer_;  // kPiece bytes, made at the first read
  void* mapping_ = nullptr;            // a long range, mapped from a page boundary
  size_t mapping_length_ = 0;
  const uint8_t* held_data_ = nullptr;  // the file's bytes [held_at_, held_at_ + held_), in one of them
  uint64_t held_at_ = 0;
  uint64_t held_ = 0;
  void unmap();
};

}  // namespace tidemark
