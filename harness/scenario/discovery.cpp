// Files to scenarios: reading a file, parsing its one YAML document, finding scenario files
// under folders.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <utility>
#include <sstream>

#include "core/files.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

namespace {

namespace fs = std::filesystem;
using yaml::error_at;
using yaml::quote;

bool is_scenario_file(const fs::path& path) { return path.extension() == ".yaml" || path.extension() == ".yml"; }

}  // namespace

Result<Scenario> load(const fs::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "scenario"));
  return load_text(text, file);
}

Result<Scenario> load_text(std::string_view text, const fs::path& file) {
  yaml::Source source(file.string(), text);
  SourceLocation start{source.file(), 1, 1};
  TIDEMARK_TRY(first, source.one_document());
  yaml::Value root =
      first.IsDefined() && !first.IsNull() ? source.value(first, start) : yaml::Value{YAML::Node(), start};
  return read_scenario(source, root, file);
}

Result<std::vector<fs::path>> collect_files(const std::vector<fs::path>& inputs) {
  // A file named twice is kept twice: each subject once is runner::distinct_subjects'.
  std::vector<fs::path> files;
  auto add = [&](const fs::path& path) { files.push_back(path); };
  for (const auto& input : inputs) {
    std::error_code error;
    auto status = fs::status(input, error);
    if (fs::is_directory(status)) {
      std::vector<fs::path> found;
      for (fs::recursive_directory_iterator it(input, error), end; !error && it != end; it.increment(error))
        // A capture fixture (NAME.capture.yaml, capture/capture_fixture.h) is not a scenario.
        if (std::error_code ignored; it->is_regular_file(ignored) && it->path().extension() == ".yaml" &&
                                     !it->path().filename().string().ends_with(".capture.yaml"))
          found.push_back(it->path());
      if (error) return fail(ErrorKind::Io, fmt::format("cannot read {}: {}", input.string(), error.message()));
      if (found.empty())
        return fail(ErrorKind::BadInput,
                    fmt::format("{}: expected a directory holding *.yaml scenarios, found none", input.string()));
      std::sort(found.begin(), found.end());
      for (const auto& path : found) add(path);
    } else if (fs::is_regular_file(status)) {
      if (!is_scenario_file(input))
        return fail(ErrorKind::BadInput,
                    fmt::format("{}: expected a scenario file ending in .yaml or .yml, found {}", input.string(),
                                input.has_extension() ? quote(input.extension().string()) : "no extension"));
      add(input);
    } else {
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: expected a scenario file or a directory, found {}", input.string(),
                              fs::exists(status) ? "another kind of file" : "nothing at that path"));
    }
  }
  return files;
}

}  // namespace tidemark::scenario
