// Folders and files a unit test writes for itself: each a TemporaryFolder (core/temporaries.h),
// so its name is unique (never a fixed /tmp name two runs could meet at), it is removed with what
// it holds when the test is done, and a test killed outright leaves it to the next sweep.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

#include "core/temporaries.h"

namespace tidemark::test_support {

class ScratchDir {
 public:
  // `name` starts the folder's: <name>-XXXXXX (short: a Unix socket's path in it is under 108 bytes).
  explicit ScratchDir(std::string_view name = "test") {
    auto made = TemporaryFolder::make(name);
    if (made)
      folder_ = std::move(*made);
    else
      ADD_FAILURE() << "no scratch folder for the test: " << made.error().message;
  }
  const std::filesystem::path& path() const { return folder_.path(); }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path() / name; }

 private:
  TemporaryFolder folder_;
};

// A file holding `text`, byte for byte, named `name` in a scratch folder of its own.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& text) : folder_("file"), path_(folder_ / name) {
    std::ofstream(path_, std::ios::binary) << text;
  }
  const std::filesystem::path& path() const { return path_; }
  operator const std::filesystem::path&() const { return path_; }
  std::string string() const { return path_.string(); }

 private:
  ScratchDir folder_;
  std::filesystem::path path_;
};

}  // namespace tidemark::test_support
