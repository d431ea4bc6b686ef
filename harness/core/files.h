// Files the harness writes. Folders are created with a message, never an exception; a file
// is written beside its final name and renamed over it, so a failed write (a full disk)
// leaves nothing that looks complete, and the error names the file that failed.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "core/error.h"

namespace tidemark {

Status make_directories(const std::filesystem::path& dir);

// The folder of the running executable (what is built beside it: tidemark-server, the layer);
// empty when /proc/self/exe cannot be read.
std::filesystem::path this_executable_dir();

// A whole file a command was given (`what` names it: "trace", "digests"). A folder, a pipe or
// a device is bad input naming the path; a file that cannot be read is an I/O error.
Result<std::string> read_given_file(const std::filesystem::path& file, std::string_view what);

// Runs `write` against a temporary path beside `file`, then renames it over `file`; on any
// failure the temporary file is removed and `file` is left as it was.
Status replace_file(const std::filesystem::path& file,
                    const std::function<Status(const std::filesystem::path& temporary)>& write);
Status write_file_atomically(const std::filesystem::path& file, std::string_view content);

}  // namespace tidemark
