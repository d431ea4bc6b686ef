#include "core/user_pattern.h"

#include <fmt/format.h>
#include <re2/re2.h>

namespace tidemark {

namespace {

const re2::RE2::Options& bounded_options() {
  static const re2::RE2::Options options = [] {
    re2::RE2::Options made;
    made.set_log_errors(false);  // the error is ours to report, at the pattern's place
    made.set_max_mem(kMaxPatternMemory);
    return made;
  }();
  return options;
}

// A pattern as an error shows it: its first characters, on one line.
std::string shown(std::string_view text) {
  constexpr size_t kMaxShown = 80;
  std::string out;
  for (char c : text.substr(0, kMaxShown)) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return fmt::format("'{}'{}", out, text.size() > kMaxShown ? fmt::format("... ({} characters)", text.size()) : "");
}

}  // namespace

UserPattern::UserPattern(std::shared_ptr<const re2::RE2> compiled) : compiled_(std::move(compiled)) {}

Result<UserPattern> UserPattern::compile(std::string_view text, std::string_view place, std::string_view what) {
  if (text.size() > kMaxPatternLength)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected {} (an RE2 regular expression) of at most {} characters, found {} characters",
                            place, what, kMaxPatternLength, text.size()));
  auto compiled = std::make_shared<const re2::RE2>(re2::StringPiece(text.data(), text.size()), bounded_options());
  if (!compiled->ok())
    return fail(ErrorKind::BadInput, fmt::format("{}: expected {} (an RE2 regular expression), found {} ({})", place,
                                                 what, shown(text), compiled->error()));
  return UserPattern(std::move(compiled));
}

bool UserPattern::found_in(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *compiled_);
}

const std::string& UserPattern::text() const { return compiled_->pattern(); }

int UserPattern::program_size() const { return compiled_->ProgramSize(); }

Status PatternList::add(std::string_view text, const SourceLocation& where) {
  const std::string place = format_location(where);
  if (patterns_.size() == kMaxListedPatterns)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected at most {} patterns in all, found more", place, kMaxListedPatterns));
  TIDEMARK_TRY(pattern, UserPattern::compile(text, place, what_));
  program_ += pattern.program_size();
  if (program_ > kMaxListedProgram)
    return fail(ErrorKind::BadInput,
                fmt::format("{}: expected patterns of at most {} RE2 instructions in all, found {} by this line", place,
                            kMaxListedProgram, program_));
  patterns_.push_back({std::move(pattern), where});
  return {};
}

const PlacedPattern* PatternList::first_found_in(std::string_view text) const {
  for (const auto& placed : patterns_)
    if (placed.pattern.found_in(text)) return &placed;
  return nullptr;
}

}  // namespace tidemark
