// A pattern a user gives (a --skip or --include line, bisect --only, a drivers file's identity, a
// label as `ctest -L` reads it): an RE2 regular expression, searched for in a text. RE2, never
// std::regex: RE2 matches in time linear in the text whatever the pattern and compiles in bounded
// memory, where std::regex backtracked for minutes on '^(a+)+$' and recursed to SIGSEGV on
// 30 000 nested groups.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace re2 {
class RE2;
}

namespace tidemark {

// The bounds of one pattern, checked when it is compiled: its length, and the memory RE2 may give
// its program (a pattern past it, `[^a]{1000}` twenty times over, is bad input).
inline constexpr size_t kMaxPatternLength = 1024;
inline constexpr int64_t kMaxPatternMemory = int64_t{1} << 20;

class UserPattern {
 public:
  // `text` compiled; else bad input "PLACE: expected WHAT (an RE2 regular expression...), found ...",
  // PLACE being where the user wrote it (file:line:column, or the option).
  static Result<UserPattern> compile(std::string_view text, std::string_view place, std::string_view what);

  bool found_in(std::string_view text) const;  // anywhere in it, as grep does
  const std::string& text() const;
  int program_size() const;  // RE2's instructions: what the pattern costs kept

 private:
  explicit UserPattern(std::shared_ptr<const re2::RE2> compiled);
  std::shared_ptr<const re2::RE2> compiled_;
};

// A list of patterns from files (--skip, --include), each kept with its place. The list is bounded
// as a whole (its patterns and their programs together), so a 16 MiB file of one-character lines
// is refused at its line, not compiled into gigabytes.
inline constexpr size_t kMaxListedPatterns = 10'000;
inline constexpr int64_t kMaxListedProgram = int64_t{1} << 19;  // RE2 instructions, about 50 MB kept

struct PlacedPattern {
  UserPattern pattern;
  SourceLocation where;
};
class PatternList {
 public:
  explicit PatternList(std::string what) : what_(std::move(what)) {}  // what a pattern is: "a test name pattern"
  Status add(std::string_view text, const SourceLocation& where);
  // The first pattern found in `text`, if any.
  const PlacedPattern* first_found_in(std::string_view text) const;
  const std::vector<PlacedPattern>& patterns() const { return patterns_; }
  bool empty() const { return patterns_.empty(); }

 private:
  std::string what_;
  std::vector<PlacedPattern> patterns_;
  int64_t program_ = 0;
};

}  // namespace tidemark
