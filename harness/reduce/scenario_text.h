// A scenario file as text the reducer can cut: where each workload step lies (its lines, with
// the comments just above it), which numbers may shrink (repeat counts, literal sizes), and
// the spans of the other checks, the controls and the buffer list. A candidate is the file
// with some of those spans cut or rewritten, so what survives keeps its layout and comments,
// and the loader judges it like any file: an ill-formed candidate never runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <string>
#include <vector>

#include "core/error.h"

namespace tidemark::reduce {

struct Span {  // bytes [begin, end) of the text
  size_t begin = 0;
  size_t end = 0;
  bool operator<(const Span& other) const { return begin != other.begin ? begin < other.begin : end > other.end; }
};

struct StepSite {
  std::string key;                    // "buffer_data", "repeat", ...
  int line = 0;                       // 1-based, where its key is
  std::optional<Span> block;          // its lines; nullopt when it shares a line (a flow list)
  std::optional<size_t> parent;       // the repeat whose steps it is in
  std::vector<size_t> children;       // a repeat's steps
  std::optional<Span> loop_variable;  // a repeat's `as:` line
};

struct NumberSite {
  enum class Kind { RepeatCount, Size };
  Kind kind = Kind::RepeatCount;
  Span span;          // the scalar as written
  int64_t value = 0;  // its literal value
  size_t step = 0;    // the step it belongs to
};

// What a candidate changes: steps cut (a cut repeat takes its steps with it), numbers
// rewritten, and other spans cut or replaced.
struct Edits {
  std::set<size_t> cut_steps;
  std::map<size_t, int64_t> numbers;  // NumberSite index -> value
  std::vector<Span> cut;
  std::vector<std::pair<Span, std::string>> replaced;
};

class ScenarioText {
 public:
  // The text must be YAML with a `workload:` list; anything the loader would refuse is left to it.
  static Result<ScenarioText> parse(std::string text);

  const std::string& text() const { return text_; }
  const std::vector<StepSite>& steps() const { return steps_; }
  const std::vector<NumberSite>& numbers() const { return numbers_; }

  // The edits that keep, of the checks under `expect:`, only the one a control names as
  // `kind` ("gauge", "pixels", "nodes", "dump", "kmd", "kgsl", "trace", "reconcile",
  // "observed"), its `index` within its list or its `name` (kmd, kgsl); kind "waits" or ""
  // keeps none.
  Edits checks_except(std::string_view kind, size_t index, std::string_view name) const;
  // The top-level `controls:` entry, whole; the `expect:` entry, whole.
  std::optional<Span> top_level(std::string_view key) const;
  // The `expect` field of every client_wait (in a flow or a block map).
  std::vector<Span> wait_expectations() const;
  // The value of a top-level scalar (`name`) or of a flow list (`buffers: [a, b]`).
  std::optional<Span> top_level_value(std::string_view key) const;
  // The comment lines the file starts with.
  Span leading_comments() const;

  std::string render(const Edits& edits) const;
  // How a number is written back: 64KiB, 2MiB, 300.
  static std::string format_number(int64_t value);

 private:
  std::string text_;
  std::vector<StepSite> steps_;
  std::vector<NumberSite> numbers_;
  std::vector<Span> wait_expects_;
  friend class TextWalker;
};

}  // namespace tidemark::reduce
