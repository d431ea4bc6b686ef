#include "bisect/candidates.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "core/digest.h"
#include "core/files.h"
#include "core/process.h"
#include "core/user_pattern.h"
#include "drivers/driver_builds.h"

namespace tidemark::bisect {

namespace fs = std::filesystem;

namespace {

// `git ARGS` in `repo`, its standard output (and error) as text; an exit other than 0 is
// `kind`, naming the command and what git said.
Result<std::string> git(const fs::path& repo, std::vector<std::string> args, const fs::path& scratch,
                        ErrorKind kind = ErrorKind::BadInput) {
  args.insert(args.begin(), {"git", "-C", repo.string()});
  const fs::path log = scratch / fmt::format("git-{}.out", ::getpid());
  TIDEMARK_TRY(code, run_to_file(args, {}, log, " (install git)"));
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::error_code ignored;
  fs::remove(log, ignored);
  if (code != 0) {
    std::string said = text.str();
    if (auto end = said.find('\n'); end != std::string::npos) said.resize(end);
    return fail(kind, fmt::format("{}: exit {}: {}", fmt::join(args, " "), code, said));
  }
  return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// "HASH\x1fSUBJECT\x1fAUTHOR" (git's --format=%H%x1f%s%x1f%an <%ae>) as a candidate.
Candidate commit_of(const std::string& line) {
  Candidate candidate;
  const size_t first = line.find('\x1f'), second = line.find('\x1f', first + 1);
  candidate.revision = line.substr(0, first);
  candidate.subject = line.substr(first + 1, second - first - 1);
  candidate.author = line.substr(second + 1);
  candidate.label = candidate.revision.substr(0, 12);
  return candidate;
}

// What a failed build said: its first line naming an error (a compiler's), else its last line.
std::string telling_line(const fs::path& file) {
  const auto lines = last_lines(file, 64);
  for (const auto& line : lines)
    if (line.find("error") != std::string::npos) return line;
  return lines.empty() ? "" : lines.back();
}

}  // namespace

Result<std::vector<Candidate>> list_candidates(const std::vector<fs::path>& paths, const std::string& only) {
  std::optional<UserPattern> pattern;
  if (!only.empty()) {
    TIDEMARK_TRY(compiled, UserPattern::compile(only, "--only", "a build name pattern"));
    pattern = std::move(compiled);
  }
  std::vector<fs::path> files;
  for (const auto& path : paths) {
    std::error_code error;
    if (!fs::is_directory(path, error)) {
      files.push_back(path);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(path, error))
      if (entry.path().extension() == ".yaml") found.push_back(entry.path());
    if (found.empty())
      return fail(ErrorKind::BadInput, fmt::format("{}: expected drivers files (*.yaml), found none", path.string()));
    std::ranges::sort(found);
    files.insert(files.end(), found.begin(), found.end());
  }
  std::vector<Candidate> candidates;
  for (const auto& file : files) {
    TIDEMARK_TRY(builds, drivers::load_driver_builds(file));
    for (const auto& build : builds.builds)
      if (!pattern || pattern->found_in(build.name))
        candidates.push_back({.label = build.name, .drivers_file = builds.file, .build = build.name});
  }
  return candidates;
}

Result<GitRange> GitRange::open(const fs::path& repo, const std::string& good, const std::string& bad,
                                const std::string& build_command, const fs::path& cache) {
  GitRange range;
  range.repo_ = fs::absolute(repo).lexically_normal();
  range.cache_ = fs::absolute(cache).lexically_normal();
  range.command_ = build_command;
  range.command_key_ = trace_hash(build_command).substr(0, 12);
  TIDEMARK_CHECK(make_directories(range.cache_));
  auto resolve = [&](const std::string& revision, std::string_view option) -> Result<std::string> {
    auto hash = git(range.repo_, {"rev-parse", "--verify", "--quiet", revision + "^{commit}"}, range.cache_);
    if (!hash)
      return fail(ErrorKind::BadInput,
                  fmt::format("{}: expected a commit of {}, found '{}'", option, range.repo_.string(), revision));
    return lines_of(*hash).at(0);
  };
  TIDEMARK_TRY(good_hash, resolve(good, "--good"));
  TIDEMARK_TRY(bad_hash, resolve(bad, "--bad"));
  const std::string format = "--format=%H%x1f%s%x1f%an <%ae>";
  TIDEMARK_TRY(good_line, git(range.repo_, {"show", "-s", format, good_hash}, range.cache_));
  TIDEMARK_TRY(
      between,
      git(range.repo_, {"log", "--first-parent", "--ancestry-path", "--reverse", format, good_hash + ".." + bad_hash},
          range.cache_));
  range.candidates_.push_back(commit_of(lines_of(good_line).at(0)));
  for (const auto& line : lines_of(between)) range.candidates_.push_back(commit_of(line));
  if (range.candidates_.size() < 2 || range.candidates_.back().revision != bad_hash)
    return fail(ErrorKind::BadInput, fmt::format("--bad: expected a descendant of --good {} on its first-parent line, "
                                                 "found {}",
                                                 good, bad));
  // A clone sharing the user's objects: its checkouts never touch the user's work tree or index.
  range.clone_ = Clone::adopt(range.cache_ / fmt::format("source-{}", ::getpid()));
  std::error_code ignored;
  fs::remove_all(range.clone_.path(), ignored);
  TIDEMARK_CHECK(
      git(range.cache_,
          {"clone", "--quiet", "--shared", "--no-checkout", range.repo_.string(), range.clone_.path().string()},
          range.cache_, ErrorKind::Environment));
  return range;
}

fs::path GitRange::entry_of(size_t index) const {
  return cache_ / fmt::format("{}-{}", candidates_.at(index).revision, command_key_);
}

// prefix/driver.yaml is the build's drivers entry (its paths relative to the prefix); `built` or
// `failed` is written last, so a build that was stopped half-way is built again.
bool GitRange::cached(size_t index) const {
  std::error_code error;
  return fs::exists(entry_of(index) / "built", error) || fs::exists(entry_of(index) / "failed", error);
}

Result<GitRange::Running> GitRange::start(size_t index, const fs::path& clone) {
  const Candidate& candidate = candidates_.at(index);
  const fs::path entry = entry_of(index), prefix = entry / "prefix";
  std::error_code error;
  fs::remove_all(entry, error);
  TIDEMARK_CHECK(make_directories(prefix));
  TIDEMARK_CHECK(
      git(clone, {"checkout", "--quiet", "--force", "--detach", candidate.revision}, cache_, ErrorKind::Environment));
  TIDEMARK_CHECK(git(clone, {"clean", "--quiet", "-dffx"}, cache_, ErrorKind::Environment));
  // Its standard output is the drivers entry when it writes none; its standard error the log.
  ChildProcess::Options options{
      .program = "bash",
      .args = {"-c", "cd -- \"$0\" && eval \"$1\" >\"$2\"", clone.string(), command_,
               (entry / "printed.yaml").string()},
      .inherit_env = true,
      .set_env = {{"TIDEMARK_BISECT_REVISION", candidate.revision}, {"TIDEMARK_BISECT_PREFIX", prefix.string()}},
      .stderr_path = (entry / "build.log").string(),
      .truncate = true,
      .keep_last = kLogKept};
  TIDEMARK_TRY(child, ChildProcess::spawn(options));
  built_here_.insert(index);
  return Running{std::move(child), {}};
}

Status GitRange::finish(size_t index, Running& running) {
  const fs::path entry = entry_of(index), drivers_file = entry / "prefix" / "driver.yaml";
  const fs::path printed = entry / "printed.yaml", log = entry / "build.log";
  const int status = running.child.wait();
  std::error_code error;
  std::string reason;
  if (status != 0) {
    if (auto full = full_device_error(entry, log)) return std::unexpected(std::move(*full));  // not the revision's
    reason = fmt::format("the build {}: {}", describe_wait_status(status), telling_line(log));
  } else if (!fs::exists(drivers_file, error)) {
    if (fs::file_size(printed, error) > 0) {
      fs::rename(printed, drivers_file, error);
      if (error) return fail(ErrorKind::Io, fmt::format("{}: {}", drivers_file.string(), error.message()));
    } else {
      reason = "the build wrote no drivers entry ($TIDEMARK_BISECT_PREFIX/driver.yaml) and printed none";
    }
  }
  if (!reason.empty()) return write_file_atomically(entry / "failed", reason);
  return write_file_atomically(entry / "built", candidates_.at(index).revision);
}

Status GitRange::build_ahead(const std::vector<size_t>& indices, size_t slots) {
  // Builds ahead that have ended are finished (their outcome cached), freeing their slots.
  for (auto running = ahead_.begin(); running != ahead_.end();) {
    if (!running->second.child.wait_for(std::chrono::milliseconds(0))) {
      ++running;
      continue;
    }
    TIDEMARK_CHECK(finish(running->first, running->second));
    running = ahead_.erase(running);
  }
  for (size_t index : indices) {
    if (ahead_.size() >= slots) break;
    if (index >= candidates_.size() || ahead_.contains(index) || cached(index)) continue;
    // A clone of its own, sharing the user's objects as the first does.
    Clone clone = Clone::adopt(cache_ / fmt::format("source-{}-{}", ::getpid(), index));
    std::error_code ignored;
    fs::remove_all(clone.path(), ignored);
    TIDEMARK_CHECK(git(cache_, {"clone", "--quiet", "--shared", "--no-checkout", repo_.string(), clone.path().string()},
                       cache_, ErrorKind::Environment));
    TIDEMARK_TRY(running, start(index, clone.path()));
    running.clone = std::move(clone);
    ahead_.emplace(index, std::move(running));
  }
  return {};
}

Result<Built> GitRange::build(size_t index) {
  Candidate& candidate = candidates_.at(index);
  const fs::path entry = entry_of(index);
  if (auto running = ahead_.find(index); running != ahead_.end()) {
    TIDEMARK_CHECK(finish(index, running->second));
    ahead_.erase(running);
  } else if (!cached(index)) {
    TIDEMARK_TRY(running, start(index, clone_.path()));
    TIDEMARK_CHECK(finish(index, running));
  }
  Built built{.cached = !built_here_.contains(index), .log = entry / "build.log"};
  std::error_code error;
  if (fs::exists(entry / "failed", error)) {
    TIDEMARK_TRY(reason, read_given_file(entry / "failed", "a cached build's failure"));
    built.skipped = reason;
    return built;
  }
  auto builds = drivers::load_driver_builds(entry / "prefix" / "driver.yaml");
  if (!builds) {
    built.skipped = "its drivers entry is bad input: " + builds.error().message;
  } else if (builds->builds.empty()) {
    built.skipped = "its drivers entry names no build";
  } else {
    candidate.drivers_file = builds->file;
    candidate.build = builds->builds.front().name;
  }
  return built;
}

}  // namespace tidemark::bisect
