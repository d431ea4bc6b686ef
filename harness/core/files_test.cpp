#include "core/files.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "core/testing/scratch.h"

namespace tidemark {
namespace {

namespace fs = std::filesystem;

using test_support::ScratchDir;

std::string contents(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

// Check that a file is replaced whole, and no temporary file is left behind.
TEST(Files, AWriteReplacesTheFileWhole) {
  const ScratchDir scratch("replace");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "result.json", "old"));
  ASSERT_TRUE(write_file_atomically(dir / "result.json", "new"));
  EXPECT_EQ(contents(dir / "result.json"), "new");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

// Check that a write that fails leaves the old file as it was, names the file, and leaves
// nothing else behind (here the temporary name is taken by a folder, as a full disk would
// refuse it).
TEST(Files, AFailedWriteLeavesTheOldFileAndNamesIt) {
  const ScratchDir scratch("fail");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "summary.json", "complete"));
  fs::create_directories(dir / fmt::format("summary.json.tmp-{}", ::getpid()));
  auto written = write_file_atomically(dir / "summary.json", "new");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::Io);
  EXPECT_NE(written.error().message.find((dir / "summary.json").string()), std::string::npos)
      << written.error().message;
  EXPECT_EQ(contents(dir / "summary.json"), "complete");
}

std::vector<std::string> names_under(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) names.push_back(fs::relative(entry.path(), dir));
  std::sort(names.begin(), names.end());
  return names;
}

// Check that a batch puts every file in place, making the folders they need, and leaves no
// temporary or old copy behind.
TEST(FileBatch, PutsEveryFileInPlace) {
  const ScratchDir scratch("batch");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "expectations.txt", "old"));
  FileBatch batch;
  batch.add(dir / "expectations.txt", "new");
  batch.add(dir / "baseline" / "deeper" / "summary.json", "{}");
  ASSERT_TRUE(batch.commit());
  EXPECT_EQ(contents(dir / "expectations.txt"), "new");
  EXPECT_EQ(contents(dir / "baseline" / "deeper" / "summary.json"), "{}");
  EXPECT_EQ(names_under(dir), (std::vector<std::string>{"baseline", "baseline/deeper", "baseline/deeper/summary.json",
                                                        "expectations.txt"}));
}

// Check that a batch whose last rename fails (a folder holds the name) puts back what it had
// already renamed, and removes its temporaries, old copies and the folders it made.
TEST(FileBatch, ARenameThatFailsPutsBackEveryFileBefore) {
  const ScratchDir scratch("batch-rename");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "expectations.txt", "old"));
  fs::create_directories(dir / "summary.json" / "in-the-way");
  const std::vector<std::string> before = names_under(dir);
  FileBatch batch;
  batch.add(dir / "expectations.txt", "new");
  batch.add(dir / "made" / "ledger.txt", "rows");
  batch.add(dir / "summary.json", "{}");
  auto failed = batch.commit();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::Io);
  EXPECT_NE(failed.error().message.find((dir / "summary.json").string()), std::string::npos);
  EXPECT_EQ(contents(dir / "expectations.txt"), "old");
  EXPECT_EQ(names_under(dir), before);
}

// Check that a batch whose write fails (a folder that cannot be made under a plain file) changes nothing.
TEST(FileBatch, AWriteThatFailsChangesNothing) {
  const ScratchDir scratch("batch-write");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "expectations.txt", "old"));
  ASSERT_TRUE(write_file_atomically(dir / "a-file", "plain"));
  const std::vector<std::string> before = names_under(dir);
  FileBatch batch;
  batch.add(dir / "expectations.txt", "new");
  batch.add(dir / "new-folder" / "x.txt", "x");
  batch.add(dir / "a-file" / "baseline" / "summary.json", "{}");
  auto failed = batch.commit();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::BadInput);  // a file where a folder is asked for names it
  EXPECT_EQ(contents(dir / "expectations.txt"), "old");
  EXPECT_EQ(names_under(dir), before);
}

// Check that a name that is a symbolic link is refused before anything is written: neither the
// link nor the file it names changes.
TEST(FileBatch, ANameThatIsALinkIsRefusedBeforeAnythingIsWritten) {
  const ScratchDir scratch("batch-link");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "target.txt", "target"));
  fs::create_symlink(dir / "target.txt", dir / "expectations.txt");
  FileBatch batch;
  batch.add(dir / "other.txt", "other");
  batch.add(dir / "expectations.txt", "new");
  EXPECT_FALSE(batch.check());
  auto refused = batch.commit();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(refused.error().message, (dir / "expectations.txt").string() +
                                         ": expected a file to write, found a "
                                         "symbolic link (to " +
                                         (dir / "target.txt").string() +
                                         "): a write never replaces a link nor follows it; name the file itself");
  EXPECT_TRUE(fs::is_symlink(dir / "expectations.txt"));
  EXPECT_EQ(contents(dir / "target.txt"), "target");
  EXPECT_FALSE(fs::exists(dir / "other.txt"));
}

// Check that a file to write whose name is a symbolic link is refused, in every mode, naming the
// link and where it points: the file it names keeps its bytes.
TEST(OpenFileToWrite, ALinkIsRefusedNeverFollowed) {
  const ScratchDir scratch("open-link");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "outside.txt", "outside"));
  fs::create_symlink(dir / "outside.txt", dir / "journal.jsonl");
  for (const WriteMode mode : {WriteMode::Replace, WriteMode::Append, WriteMode::Extend}) {
    auto opened = open_file_to_write(dir / "journal.jsonl", mode);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(opened.error().message, (dir / "journal.jsonl").string() +
                                          ": expected a file to write, found a symbolic "
                                          "link (to " +
                                          (dir / "outside.txt").string() +
                                          "): a write never replaces a link nor follows it; name the file itself");
  }
  EXPECT_EQ(contents(dir / "outside.txt"), "outside");
  // A link to nothing is refused too: O_CREAT would make its target.
  fs::create_symlink(dir / "nowhere", dir / "dangling");
  EXPECT_FALSE(open_file_to_write(dir / "dangling", WriteMode::Replace));
  EXPECT_FALSE(fs::exists(dir / "nowhere"));
}

// Check that a FIFO (no reader, and with one) and a device are refused at once, naming what was
// found, where an open would have waited for a reader for ever.
TEST(OpenFileToWrite, AFifoOrADeviceIsRefusedAtOnce) {
  const ScratchDir scratch("open-fifo");
  const fs::path dir = scratch.path();
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  for (const WriteMode mode : {WriteMode::Replace, WriteMode::Append, WriteMode::Extend}) {
    auto opened = open_file_to_write(dir / "fifo", mode);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(opened.error().message, (dir / "fifo").string() +
                                          ": expected a file to write, found a FIFO: a write never waits on it nor "
                                          "replaces it; remove it or name another file");
  }
  const UniqueFd reader(::open((dir / "fifo").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  auto with_reader = open_file_to_write(dir / "fifo", WriteMode::Append);
  ASSERT_FALSE(with_reader);
  EXPECT_NE(with_reader.error().message.find("found a FIFO"), std::string::npos);
  fs::create_directory(dir / "folder");  // a write into a folder fails as writes fail
  auto folder = open_file_to_write(dir / "folder", WriteMode::Replace);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().kind, ErrorKind::Io);
  auto device = open_file_to_write("/dev/null", WriteMode::Append);
  ASSERT_FALSE(device);
  EXPECT_NE(device.error().message.find("found a device"), std::string::npos);
}

// Check the modes: Replace empties, Append adds at the end, Extend refuses a file that is not there.
TEST(OpenFileToWrite, ReplaceEmptiesAppendAddsAndExtendNeedsTheFile) {
  const ScratchDir scratch("open-modes");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "log", "old\n"));
  {
    auto appended = open_file_to_write(dir / "log", WriteMode::Append);
    ASSERT_TRUE(appended);
    ASSERT_TRUE(write_all(appended->get(), "more\n", dir / "log"));
  }
  EXPECT_EQ(contents(dir / "log"), "old\nmore\n");
  {
    auto replaced = open_file_to_write(dir / "log", WriteMode::Replace);
    ASSERT_TRUE(replaced);
    ASSERT_TRUE(write_all(replaced->get(), "new\n", dir / "log"));
  }
  EXPECT_EQ(contents(dir / "log"), "new\n");
  auto missing = open_file_to_write(dir / "none", WriteMode::Extend);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
  EXPECT_FALSE(fs::exists(dir / "none"));
}

// Check that a file written atomically over a FIFO's name is refused, not waited on nor replaced.
TEST(WriteFileAtomically, AFifoAtTheNameIsRefused) {
  const ScratchDir scratch("atomic-fifo");
  const fs::path dir = scratch.path();
  ASSERT_EQ(::mkfifo((dir / "summary.json").c_str(), 0644), 0);
  auto written = write_file_atomically(dir / "summary.json", "{}");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::BadInput);
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(dir / "summary.json")));
}

// Check the one classification of a failed write: no space, no quota or a read-only file system is
// the machine's (exit 3) naming the file; anything else is an I/O error.
TEST(WriteError, AFullDiskIsTheMachinesNamingThePath) {
  for (const int full : {ENOSPC, EDQUOT}) {
    const Error error = write_error("/r/journal.jsonl", full);
    EXPECT_EQ(error.kind, ErrorKind::Environment);
    EXPECT_EQ(error.message, "no space left on the device writing /r/journal.jsonl");
  }
  EXPECT_EQ(write_error("/r/a", EROFS).kind, ErrorKind::Environment);
  EXPECT_EQ(write_error("/r/a", EIO).kind, ErrorKind::Io);
  EXPECT_EQ(write_error("/r/a", 0).message, "cannot write /r/a: Input/output error");
}

// Check that a full /dev/full is reported as a full disk by write_all, naming the file.
TEST(WriteError, WritingToAFullDeviceIsTheMachines) {
  const UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  ASSERT_TRUE(full);
  auto written = write_all(full.get(), "bytes", "/somewhere/result.json");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().kind, ErrorKind::Environment);
  EXPECT_EQ(written.error().message, "no space left on the device writing /somewhere/result.json");
}

// Check that a failed program's log saying a write found no space makes its failure the machine's.
TEST(FullDeviceError, AProgramsLogSayingNoSpaceIsTheMachines) {
  const ScratchDir scratch("full-log");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "build.log", "cc: error: writing output: No space left on device\n"));
  auto full = full_device_error(dir, dir / "build.log");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->kind, ErrorKind::Environment);
  ASSERT_TRUE(write_file_atomically(dir / "other.log", "main.c:3: error: expected ';'\n"));
  EXPECT_FALSE(full_device_error(dir, dir / "other.log"));
}

// Check that a folder that cannot be made is an I/O error naming it, not an exception.
TEST(Files, AFolderThatCannotBeMadeIsAnIoError) {
  auto made = make_directories("/proc/self/tidemark/reports");
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error().kind, ErrorKind::Io);
  EXPECT_EQ(made.error().message.rfind("cannot create /proc/self/tidemark/reports: ", 0), 0u) << made.error().message;
}

// Check that a file where a folder is asked for (bisect --cache FILE, --report FILE) is bad input
// naming the file, not an I/O error.
TEST(Files, AFileWhereAFolderIsAskedForIsBadInputNamingIt) {
  const ScratchDir scratch("not-a-folder");
  const fs::path dir = scratch.path();
  std::ofstream(dir / "a-file") << "mine";
  for (const fs::path& asked : {dir / "a-file", dir / "a-file" / "cache" / "builds"}) {
    auto made = make_directories(asked);
    ASSERT_FALSE(made);
    EXPECT_EQ(made.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(made.error().message, (dir / "a-file").string() + ": expected a folder (or nothing) to make " +
                                        asked.string() + " in, found a file");
  }
}

// Check that a mapped file reads as its bytes, still reads so after its pages were given back,
// maps an empty file as no bytes, and refuses a folder or a missing file as bad input.
// Check that an unnamed file saved under a name holds what was appended, is not changed by a
// later save's temporary, and that a second name for a document has its bytes.
TEST(UnnamedFile, SavedUnderANameHoldsWhatWasAppended) {
  const ScratchDir scratch("unnamed");
  const fs::path dir = scratch.path();
  auto file = UnnamedFile::create();
  ASSERT_TRUE(file.has_value());
  ASSERT_TRUE(file->append("first part, "));
  ASSERT_TRUE(file->append("second part"));
  std::ofstream(dir / "trace.pftrace") << "an older trace";
  ASSERT_TRUE(file->save_as(dir / "trace.pftrace").has_value());
  EXPECT_EQ(contents(dir / "trace.pftrace"), "first part, second part");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);  // no temporary left
  // On another file system (tmpfs) the kernel copies it.
  struct stat here {
  }, shm{};
  ASSERT_EQ(::stat(dir.c_str(), &here), 0);
  if (::stat("/dev/shm", &shm) == 0 && shm.st_dev != here.st_dev) {
    const fs::path elsewhere = fs::path("/dev/shm") / fmt::format("tidemark-unnamed-{}", ::getpid());
    ASSERT_TRUE(file->save_as(elsewhere).has_value());
    EXPECT_EQ(contents(elsewhere), "first part, second part");
    fs::remove(elsewhere);
  }

  ASSERT_TRUE(link_or_copy_file(dir / "trace.pftrace", dir / "again.pftrace").has_value());
  EXPECT_EQ(contents(dir / "again.pftrace"), "first part, second part");
  auto missing = link_or_copy_file(dir / "no-such-trace", dir / "third.pftrace");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("no-such-trace"), std::string::npos) << missing.error().message;
  EXPECT_FALSE(fs::exists(dir / "third.pftrace"));
}

std::string text_of(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

TEST(SequentialFile, ReadsRangesThroughItsBufferAndRefusesWhatIsNotAFile) {
  const ScratchDir scratch("sequential");
  const fs::path dir = scratch.path();
  std::string content(3 << 20, 'x');
  for (size_t i = 0; i < content.size(); i += 4099) content[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(write_file_atomically(dir / "data.bin", content));
  auto file = SequentialFile::open(dir / "data.bin", "data");
  ASSERT_TRUE(file) << file.error().message;
  ASSERT_EQ(file->size(), content.size());
  // Front to back in uneven steps, across the buffer's edges: every range reads as the file.
  for (uint64_t at = 0; at < content.size(); at += 300007) {
    auto bytes = file->read(at, 70001);
    ASSERT_TRUE(bytes) << bytes.error().message;
    EXPECT_EQ(text_of(*bytes), content.substr(at, 70001)) << at;
  }
  // A range the buffer holds is not read again; one longer than the buffer is read whole.
  ASSERT_TRUE(file->read(4096, 100));
  EXPECT_TRUE(file->holds(5000, 1000));
  EXPECT_FALSE(file->holds(4000, 10));
  auto longer = file->read(1, SequentialFile::kPiece * 2 + 5);
  ASSERT_TRUE(longer);
  EXPECT_EQ(text_of(*longer), content.substr(1, SequentialFile::kPiece * 2 + 5));
  auto back = file->read(17, 3);  // and after it, a short range again
  ASSERT_TRUE(back);
  EXPECT_EQ(text_of(*back), content.substr(17, 3));
  auto tail = file->read(content.size() - 2, 10);  // cut at the end
  ASSERT_TRUE(tail);
  EXPECT_EQ(text_of(*tail), content.substr(content.size() - 2));
  // A second reader of the open file reads it even after its path names another file.
  auto second = file->again();
  ASSERT_TRUE(second);
  ASSERT_TRUE(write_file_atomically(dir / "data.bin", "replaced"));
  auto same = second->read(100, 50);
  ASSERT_TRUE(same);
  EXPECT_EQ(text_of(*same), content.substr(100, 50));
  // A file that shrinks under its reader is an I/O error, never bytes from nowhere.
  ASSERT_TRUE(write_file_atomically(dir / "shrinks.bin", content));
  auto shrinking = SequentialFile::open(dir / "shrinks.bin", "data");
  ASSERT_TRUE(shrinking);
  fs::resize_file(dir / "shrinks.bin", 1000);
  auto cut = shrinking->read(0, 2000);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().kind, ErrorKind::Io);
  EXPECT_EQ(cut.error().message,
            (dir / "shrinks.bin").string() + ": cannot read the data file: it shrank while it was read");
  auto cut_long = shrinking->read(0, SequentialFile::kPiece * 2);  // mapped: refused, not a SIGBUS
  ASSERT_FALSE(cut_long);
  EXPECT_EQ(cut_long.error().message, cut.error().message);

  ASSERT_TRUE(write_file_atomically(dir / "empty.bin", ""));
  auto empty = SequentialFile::open(dir / "empty.bin", "data");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->size(), 0u);
  auto nothing = empty->read(0, 16);
  ASSERT_TRUE(nothing);
  EXPECT_TRUE(nothing->empty());

  auto folder = SequentialFile::open(dir, "recording");
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(folder.error().message, dir.string() + ": expected a recording file, found a folder");
  auto missing = SequentialFile::open(dir / "nothing.tdrec", "recording");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, (dir / "nothing.tdrec").string() + ": expected a recording file, found nothing");
}

// Check that a given file is read whole, and that nothing at the path, a folder, a pipe (which
// would wait for a writer for ever), a device (/dev/zero never ends) and a file over its bound
// are bad input naming the path before a byte is read; an absent optional file is no file.
TEST(GivenFile, ReadsARegularFileAndRefusesEverythingElseAsBadInput) {
  const ScratchDir scratch("given");
  const fs::path dir = scratch.path();
  ASSERT_TRUE(write_file_atomically(dir / "a.txt", "twelve bytes"));
  auto read = read_given_file(dir / "a.txt", "text");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, "twelve bytes");
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  const std::pair<fs::path, std::string> refused[] = {
      {dir / "nothing", "expected a text file, found nothing"},
      {dir, "expected a text file, found a folder"},
      {dir / "pipe", "expected a text file, found something that is not a regular file"},
      {"/dev/zero", "expected a text file, found something that is not a regular file"},
  };
  for (const auto& [path, message] : refused) {
    auto refused_read = read_given_file(path, "text");
    ASSERT_FALSE(refused_read) << path;
    EXPECT_EQ(refused_read.error().kind, ErrorKind::BadInput);
    EXPECT_EQ(refused_read.error().message, path.string() + ": " + message);
  }
  auto too_big = read_given_file(dir / "a.txt", "text", 11);
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error().kind, ErrorKind::BadInput);
  EXPECT_EQ(too_big.error().message,
            (dir / "a.txt").string() + ": expected a text file of at most 11 bytes, found 12 bytes");

  auto absent = read_file_if_present(dir / "nothing", "ledger");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());
  auto present = read_file_if_present(dir / "a.txt", "ledger");
  ASSERT_TRUE(present && present->has_value());
  EXPECT_EQ(**present, "twelve bytes");
  EXPECT_FALSE(read_file_if_present(dir, "ledger"));
}

}  // namespace
}  // namespace tidemark
