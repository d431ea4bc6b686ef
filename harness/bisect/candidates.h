// What `tidemark bisect` searches: an ordered list of driver builds (drivers files, or folders of
// them, oldest first), or the commits of a git range of a driver's source, each built on demand
// into a driver build of its own by the user's command and kept in a cache by revision.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/process.h"
#include "core/temporaries.h"

namespace tidemark::bisect {

struct Candidate {
  std::string label;                   // the build's name, or the revision's short hash
  std::filesystem::path drivers_file;  // where its build is named; empty until a revision is built
  std::string build;                   // the build's name in that file
  std::string revision;                // a git candidate's full hash, its subject line and author
  std::string subject;
  std::string author;
};

// Every build of each drivers file of `paths` in the order given (a folder: its *.yaml files by
// name, each file's builds in its order), keeping those whose name `only` (an ECMAScript regular
// expression, empty: all) finds. Bad input names the path or the pattern.
Result<std::vector<Candidate>> list_candidates(const std::vector<std::filesystem::path>& paths,
                                               const std::string& only);

// How a git candidate became a build, or why it did not: a skip's reason.
struct Built {
  bool cached = false;        // taken from the cache, nothing run
  std::string skipped;        // non-empty: the build failed (its reason, the log's last line)
  std::filesystem::path log;  // the build command's output
};

// A git range of a driver's source. Its commits are read from the user's repository, which is
// never written to: a clone of it that shares its objects (git clone --shared) is made in the
// cache, each revision checked out there, and removed when this value goes.
class GitRange {
  // The clone: removed, with everything in it, when the range goes.
  // A clone of the repository: a temporary folder in the cache (core/temporaries.h).
  using Clone = TemporaryFolder;

 public:
  // `good`..`bad` along the first-parent line (--ancestry-path: only commits descended from the
  // good end), the good end first. `cache` holds a folder per revision and build command:
  // <cache>/<hash>-<command hash>/ with prefix/ (what the command built), driver.yaml and build.log.
  static Result<GitRange> open(const std::filesystem::path& repo, const std::string& good, const std::string& bad,
                               const std::string& build_command, const std::filesystem::path& cache);
  GitRange(GitRange&&) noexcept = default;
  GitRange& operator=(GitRange&&) noexcept = default;

  const std::vector<Candidate>& candidates() const { return candidates_; }
  // Builds candidate `index` (unless its revision is cached, failed builds included) and names
  // its build in it. The command runs in the clone, checked out at the revision, with
  // TIDEMARK_BISECT_REVISION and TIDEMARK_BISECT_PREFIX (the folder to install into) set; it
  // writes $TIDEMARK_BISECT_PREFIX/driver.yaml or prints the drivers entry on its standard output.
  Result<Built> build(size_t index);
  // Starts building those of `indices` not yet built (at most `slots` under way at once), each in
  // a clone of its own, without waiting: the candidates the search may judge next, built while
  // one is judged (--jobs). build() of one of them waits for it.
  Status build_ahead(const std::vector<size_t>& indices, size_t slots);
  const std::filesystem::path& cache() const { return cache_; }

 private:
  struct Running {
    ChildProcess child;  // the build command
    Clone clone;         // its own clone (none: the range's)
  };
  GitRange() = default;
  std::filesystem::path entry_of(size_t index) const;
  bool cached(size_t index) const;
  Result<Running> start(size_t index, const std::filesystem::path& clone);
  Status finish(size_t index, Running& running);
  std::map<size_t, Running> ahead_;
  std::set<size_t> built_here_;  // the candidates this range built (the others were cached)
  std::filesystem::path repo_, cache_;
  Clone clone_;
  std::string command_, command_key_;
  std::vector<Candidate> candidates_;
};

}  // namespace tidemark::bisect
