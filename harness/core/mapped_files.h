// The files mapped into this process, as /proc/self/maps names them: what a driver build's
// identity holds its libraries to. Header-only, because the Tidemark layer (a module that links
// none of Tidemark's libraries) records them too.
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace tidemark {

// Each file once, in the order of the maps; a file deleted since it was mapped under its old name.
inline std::vector<std::filesystem::path> mapped_files() {
  std::ifstream maps("/proc/self/maps");
  std::set<std::string> seen;
  std::vector<std::filesystem::path> files;
  for (std::string line; std::getline(maps, line);) {
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.ends_with(" (deleted)")) path.resize(path.size() - 10);
    if (seen.insert(path).second) files.emplace_back(path);
  }
  return files;
}

}  // namespace tidemark
