// Files and folders a unit test writes for itself, named by the process so parallel test binaries
// never meet, and removed when the test is done with them: tests that left theirs behind once
// filled /tmp with hundreds.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/temporaries.h"

namespace tidemark::test_support {

// A folder of the test's own: a temporary folder as Tidemark makes every one (core/temporaries.h),
// removed with what it holds when the value goes, or by the next Tidemark if the test is killed.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) : folder_(made(name)) {}
  const std::filesystem::path& path() const { return folder_.path(); }

 private:
  static TemporaryFolder made(const std::string& name) {
    auto folder = TemporaryFolder::make(name);
    if (folder) return std::move(*folder);
    ADD_FAILURE() << folder.error().message;
    return {};
  }
  TemporaryFolder folder_;
};

// A file holding `text`, byte for byte.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& text)
      : path_(std::filesystem::path(::testing::TempDir()) / (std::to_string(::getpid()) + "-" + name)) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  operator const std::filesystem::path&() const { return path_; }
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace tidemark::test_support
