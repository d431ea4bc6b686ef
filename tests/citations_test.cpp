// Docs that cannot lie about the tree: every path a comment or a doc cites exists, and
// lanes/README.md names the wire protocol the code speaks.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/testing/scratch.h"
#include "wire/codec.h"

namespace {

namespace fs = std::filesystem;

// Repository folders a citation may start with; a path may also start with a folder of harness/
// (`runner/pipeline/subject.h`). Output folders (build/, reports/) are not cited paths.
constexpr std::array kTopFolders = {"harness",  "scenarios", "fixtures", "tests", "scripts",  "lanes", "docs",
                                    "red_once", "captures",  "tools",    "bench", "examples", "cmake", ".ci"};

struct Citation {
  size_t line = 0;
  std::string path;
};

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./+-*?<>{}$@~").contains(c);
}

std::string_view first_folder(std::string_view path) { return path.substr(0, path.find('/')); }

// A token is a citation when it starts with a known folder; globs, placeholders (<group>,
// $VAR, ...), absolute paths and URLs (`//host/...` after the scheme's colon) are not. A path
// under harness/ without the folder (`runner/pipeline/subject.h`) names a source file or a folder: prose
// such as `report/layer` (a report folder's part) is not one.
std::optional<std::string> citation_in(std::string_view token, const std::set<std::string, std::less<>>& subsystems) {
  if (token.contains("...")) return std::nullopt;
  while (!token.empty() && (token.back() == '.' || token.back() == ',')) token.remove_suffix(1);
  if (token.starts_with("./")) token.remove_prefix(2);
  if (!token.contains('/') || token.starts_with('/') || token.find_first_of("*?<>{}$@~") != std::string_view::npos)
    return std::nullopt;
  const auto folder = first_folder(token);
  if (std::ranges::find(kTopFolders, folder) != kTopFolders.end()) return std::string(token);
  if (!subsystems.contains(folder)) return std::nullopt;
  const auto extension = fs::path(token).extension();
  if (token.ends_with('/') || extension == ".h" || extension == ".cpp" || extension == ".cmake" ||
      token.ends_with("CMakeLists.txt"))
    return std::string(token);
  return std::nullopt;
}

// The text of a line a reader is told things in: all of a Markdown file, the comment of a line
// of code (C++'s `//`, a script's or CMake's `#`; a marker inside quotes is not one).
std::string_view told(std::string_view line, std::string_view marker) {
  if (marker.empty()) return line;
  bool quoted = false;
  for (size_t at = 0; at + marker.size() <= line.size(); ++at) {
    if (line[at] == '"') quoted = !quoted;
    if (quoted || line.substr(at, marker.size()) != marker) continue;
    if (marker == "#" && at > 0 && !std::isspace(static_cast<unsigned char>(line[at - 1]))) continue;  // $#, ${#x}
    if (marker == "#" && line.substr(at).starts_with("#!")) return {};
    return line.substr(at + marker.size());
  }
  return {};
}

// The citations of a file's text. A Markdown page's fenced blocks are not read: their commands
// are run by the docs' own test (a page may make the file it runs next), the rest are examples.
std::vector<Citation> citations(std::string_view text, std::string_view marker,
                                const std::set<std::string, std::less<>>& subsystems) {
  std::vector<Citation> found;
  size_t number = 0;
  bool fenced = false;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    ++number;
    const auto whole = text.substr(begin, end - begin);
    const bool fence =
        marker.empty() && whole.substr(std::min(whole.find_first_not_of(' '), whole.size())).starts_with("```");
    if (fence) fenced = !fenced;
    const auto line = fence || fenced ? std::string_view() : told(whole, marker);
    for (size_t at = 0; at < line.size();) {
      if (!path_char(line[at])) {
        ++at;
        continue;
      }
      const size_t start = at;
      while (at < line.size() && path_char(line[at])) ++at;
      if (auto path = citation_in(line.substr(start, at - start), subsystems)) found.push_back({number, *path});
    }
    begin = end + 1;
  }
  return found;
}

// A Markdown link's target within the tree (`[text](lanes.md#anchor)`: lanes.md), relative to
// the linking file's folder; a URL, an anchor of the same page or a placeholder is not one.
std::vector<Citation> link_targets(std::string_view text) {
  std::vector<Citation> found;
  for (size_t at = text.find("]("); at != std::string_view::npos; at = text.find("](", at + 2)) {
    const size_t end = text.find_first_of(")\n", at + 2);
    if (end == std::string_view::npos || text[end] != ')') continue;
    auto target = text.substr(at + 2, end - at - 2);
    target = target.substr(0, target.find('#'));
    if (target.empty() || target.contains(':') || target.find_first_of(" *<>{}$") != std::string_view::npos) continue;
    found.push_back({static_cast<size_t>(std::ranges::count(text.substr(0, at), '\n')) + 1, std::string(target)});
  }
  return found;
}

// What marks a comment in `file`, or nullopt for a file whose citations are not checked.
std::optional<std::string_view> comment_marker(const fs::path& file) {
  static const std::set<std::string, std::less<>> cxx = {".h", ".hpp", ".cpp", ".cc", ".c"};
  static const std::set<std::string, std::less<>> hashed = {".cmake", ".bash", ".sh", ".py"};
  const auto extension = file.extension().string();
  if (cxx.contains(extension)) return "//";
  if (hashed.contains(extension) || file.filename() == "CMakeLists.txt") return "#";
  if (extension.empty()) {  // a script: its first line names its interpreter
    std::ifstream in(file);
    std::string first;
    if (std::getline(in, first) && first.starts_with("#!")) return "#";
  }
  return std::nullopt;
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Every file whose cited paths are checked, with the marker of what it tells (empty: all of it);
// a test's inputs (testdata/) are not.
std::vector<std::pair<fs::path, std::string_view>> cited_from(const fs::path& root) {
  std::vector<std::pair<fs::path, std::string_view>> files;
  const auto walk = [&](const fs::path& folder, auto&& pick) {
    if (!fs::is_directory(root / folder)) return;
    for (auto entry = fs::recursive_directory_iterator(root / folder); entry != fs::end(entry); ++entry) {
      if (entry->is_directory() && entry->path().filename() == "testdata") entry.disable_recursion_pending();
      if (!entry->is_regular_file()) continue;
      if (auto marker = pick(entry->path())) files.emplace_back(fs::relative(entry->path(), root), *marker);
    }
  };
  for (const char* folder : {"harness", "tests", "scripts", ".ci"}) walk(folder, comment_marker);
  const auto markdown = [](const fs::path& file) -> std::optional<std::string_view> {
    return file.extension() == ".md" ? std::optional<std::string_view>("") : std::nullopt;
  };
  const auto readme = [](const fs::path& file) -> std::optional<std::string_view> {
    return file.filename() == "README.md" ? std::optional<std::string_view>("") : std::nullopt;
  };
  walk("docs", markdown);
  walk("scenarios", readme);
  for (const char* file : {"README.md", "lanes/README.md"})
    if (fs::exists(root / file)) files.emplace_back(file, "");
  std::ranges::sort(files);
  return files;
}

// Every citation under `root` whose path exists neither from the top nor from harness/ (a
// Markdown link: from its file's folder), as "file:line: path".
std::vector<std::string> broken_citations(const fs::path& root) {
  std::set<std::string, std::less<>> subsystems;
  for (const auto& entry : fs::directory_iterator(root / "harness"))
    if (entry.is_directory()) subsystems.insert(entry.path().filename().string());
  std::vector<std::string> broken;
  std::set<std::string, std::less<>> noted;  // a path both written and linked on a line is named once
  for (const auto& [file, marker] : cited_from(root)) {
    const auto note = [&](size_t line, const std::string& path) {
      auto text = file.string() + ":" + std::to_string(line) + ": " + path;
      if (noted.insert(text).second) broken.push_back(std::move(text));
    };
    const auto text = read(root / file);
    for (const auto& [line, path] : citations(text, marker, subsystems))
      if (!fs::exists(root / path) && !fs::exists(root / "harness" / path)) note(line, path);
    if (!marker.empty()) continue;
    for (const auto& [line, target] : link_targets(text))
      if (!fs::exists(root / file.parent_path() / target))
        note(line, fs::path(file.parent_path() / target).lexically_normal().string());
  }
  return broken;
}

struct ProtocolMention {
  size_t line = 0;
  unsigned number = 0;
};

// "protocol N", "protocol version N", "protocol is version N" (any case), each with its line.
std::vector<ProtocolMention> protocol_mentions(std::string_view text) {
  std::string lower(text);
  std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<ProtocolMention> found;
  for (size_t at = lower.find("protocol "); at != std::string::npos; at = lower.find("protocol ", at + 1)) {
    std::string_view rest = std::string_view(lower).substr(at + 9);
    for (std::string_view word : {"is ", "version "})
      if (rest.starts_with(word)) rest.remove_prefix(word.size());
    if (rest.empty() || !std::isdigit(static_cast<unsigned char>(rest[0]))) continue;
    unsigned number = 0;
    for (size_t digit = 0; digit < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digit])); ++digit)
      number = number * 10 + (rest[digit] - '0');
    found.push_back({static_cast<size_t>(std::ranges::count(lower.begin(), lower.begin() + at, '\n')) + 1, number});
  }
  return found;
}

const fs::path kRoot = TIDEMARK_SOURCE_DIR;

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& line : lines) all += line + "\n";
  return all;
}

TEST(Citations, EveryPathACommentOrADocCitesExists) {
  const auto broken = broken_citations(kRoot);
  EXPECT_TRUE(broken.empty()) << "cited paths that do not exist (under " << kRoot.string() << "):\n" << joined(broken);
}

TEST(Citations, LanesReadmeSaysTheProtocolVersionOfTheCode) {
  const auto mentions = protocol_mentions(read(kRoot / "lanes/README.md"));
  ASSERT_FALSE(mentions.empty()) << "lanes/README.md names no protocol version (\"protocol is version N\")";
  for (const auto& [line, number] : mentions)
    EXPECT_EQ(number, tidemark::wire::kProtocolVersion)
        << "lanes/README.md:" << line << ": protocol " << number
        << ", where harness/api/calls.yaml's protocol version is " << tidemark::wire::kProtocolVersion;
}

// Which tokens are citations: a known folder first, an optional :line after; no glob or placeholder.
TEST(Citations, ACitationStartsWithAKnownFolder) {
  const std::set<std::string, std::less<>> subsystems = {"core", "runner"};
  const auto found = citations(
      "see harness/wire/codec.h:32, runner/pipeline/subject.h's prepare and ./scripts/test.\n"
      "not scenarios/<group>/x.yaml, harness/*/CMakeLists.txt, /tmp/x/y, https://github.com/google/dawn,\n"
      "dri/libgallium.so, build/default/tidemark, scenarios/..., $ROOT/tests/x\n"
      "nor a word/another word or runner/the-run;\n"
      "but docs/ and core/files.h.\n"
      "```sh\ntidemark fixture new ID-1 && tidemark run fixtures/ID-1\n```\n",
      "", subsystems);
  std::vector<std::string> paths;
  for (const auto& citation : found) paths.push_back(std::to_string(citation.line) + " " + citation.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"1 harness/wire/codec.h", "1 runner/pipeline/subject.h", "1 scripts/test",
                                             "5 docs/", "5 core/files.h"}));
}

// Code is not a citation: only the comment of a line is read, and a marker inside quotes is not one.
TEST(Citations, OnlyTheCommentOfALineOfCodeIsRead) {
  EXPECT_EQ(told(R"(auto x = "core/a.h";  // core/b.h)", "//"), " core/b.h");
  EXPECT_EQ(told(R"(echo "$#" "a # b" # core/c.h)", "#"), " core/c.h");
  EXPECT_EQ(told("#!/usr/bin/env bash", "#"), "");
  EXPECT_EQ(told("plain markdown core/d.h", ""), "plain markdown core/d.h");
}

// The check's own red: a tree whose comment and README cite files that are not there.
TEST(Citations, ABrokenCitationIsNamedByFileAndLine) {
  tidemark::test_support::ScratchDir tree("docs-broken-citation");
  fs::create_directories(tree.path() / "harness/core");
  fs::create_directories(tree.path() / "lanes");
  std::ofstream(tree.path() / "harness/core/a.h") << "#pragma once\n// Read by core/a.h and core/gone.h:12.\n";
  std::ofstream(tree.path() / "lanes/README.md") << "# Lanes\n\nSee `harness/core/a.h` and `lanes/gone.md`,\n"
                                                 << "[a link](../harness/core/a.h) and [another](gone.md#why).\n";
  EXPECT_EQ(broken_citations(tree.path()),
            (std::vector<std::string>{"harness/core/a.h:2: core/gone.h", "lanes/README.md:3: lanes/gone.md",
                                      "lanes/README.md:4: lanes/gone.md"}));
}

TEST(Citations, EveryProtocolVersionPhraseIsFound) {
  const auto found = protocol_mentions("The wire\n\nThe Protocol is version 7; wire protocol 9.\nA protocol: none.\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].line, 3u);
  EXPECT_EQ(found[0].number, 7u);
  EXPECT_EQ(found[1].number, 9u);
}

}  // namespace
