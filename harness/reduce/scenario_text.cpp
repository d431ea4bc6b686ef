#include "reduce/scenario_text.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/expr.h"
#include "scenario/check_kinds.h"

namespace tidemark::reduce {

// The file's lines and the YAML nodes' marks, to turn a node into the bytes it was written in.
// By hand: yaml-cpp gives where a node starts, never where it ends, and keeps no comments.
class TextWalker {
 public:
  explicit TextWalker(const std::string& text) : text_(text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  size_t lines() const { return starts_.size(); }
  size_t begin_of(size_t line) const { return line < starts_.size() ? starts_[line] : text_.size(); }
  std::string_view line(size_t line) const {
    if (line >= starts_.size()) return {};
    size_t end = line + 1 < starts_.size() ? starts_[line + 1] - 1 : text_.size();
    return std::string_view(text_).substr(starts_[line], end - starts_[line]);
  }
  size_t indent(size_t line) const {
    auto text = this->line(line);
    size_t n = text.find_first_not_of(' ');
    return n == std::string_view::npos ? text.size() : n;
  }
  bool blank(size_t line) const { return indent(line) == this->line(line).size(); }
  bool comment(size_t line) const {
    auto text = this->line(line);
    size_t n = indent(line);
    return n < text.size() && text[n] == '#';
  }

  // Where a value written at `pos` ends: a quoted scalar at its closing quote, a flow list or
  // map at its closing bracket, a plain scalar before `,`, `]`, `}`, ` #` or the line's end.
  size_t value_end(size_t pos) const {
    if (pos >= text_.size()) return pos;
    char first = text_[pos];
    if (first == '"' || first == '\'') {
      for (size_t i = pos + 1; i < text_.size(); ++i) {
        if (first == '"' && text_[i] == '\\') {
          ++i;
          continue;
        }
        if (text_[i] == first) return i + 1;
      }
      return text_.size();
    }
    if (first == '[' || first == '{') {
      int depth = 0;
      for (size_t i = pos; i < text_.size(); ++i) {
        char c = text_[i];
        if (c == '"' || c == '\'') {
          i = value_end(i) - 1;
          continue;
        }
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}')
          if (--depth == 0) return i + 1;
      }
      return text_.size();
    }
    size_t end = pos;
    while (end < text_.size() && text_[end] != '\n' && text_[end] != ',' && text_[end] != ']' && text_[end] != '}' &&
           !(text_[end] == '#' && end > pos && text_[end - 1] == ' '))
      ++end;
    while (end > pos && text_[end - 1] == ' ') --end;
    return end;
  }

  // The first line of the comments just above `line` at its indentation, or `line`.
  size_t attached_start(size_t line, size_t column) const {
    while (line > 0 && comment(line - 1) && indent(line - 1) == column) --line;
    return line;
  }
  // Where a block that starts at `line`, at `column`, ends when nothing follows it at its own
  // level: before the first line less indented (or as indented, when it is not a list dash
  // continuing a compact list), blank lines before that left outside.
  size_t block_end(size_t line, size_t column, bool list_item) const {
    size_t stop = line + 1;
    for (; stop < lines(); ++stop) {
      if (blank(stop)) continue;
      size_t ind = indent(stop);
      if (ind < column) break;
      if (ind == column && !(list_item ? false : this->line(stop)[ind] == '-')) break;
    }
    while (stop > line + 1 && blank(stop - 1)) --stop;
    return begin_of(stop);
  }

  // A block list item or block map entry starting the line at `mark` (the node, or its key):
  // its lines; nullopt when something else shares its first line (a flow collection).
  std::optional<size_t> block_column(const YAML::Mark& mark, bool list_item) const {
    auto text = line(static_cast<size_t>(mark.line));
    size_t column = static_cast<size_t>(mark.column);
    size_t ind = indent(static_cast<size_t>(mark.line));
    if (!list_item) return column == ind ? std::optional<size_t>(column) : std::nullopt;
    // "  - key: ..." : the dash starts the line and only spaces lie between it and the node.
    if (ind >= text.size() || text[ind] != '-' || column <= ind) return std::nullopt;
    for (size_t i = ind + 1; i < column; ++i)
      if (text[i] != ' ') return std::nullopt;
    return ind;
  }

  // The blocks of the items of a block list (or entries of a block map), in order: each from
  // the comments above it to where the next begins; nullopt where one is not a block.
  std::vector<std::optional<Span>> blocks(const std::vector<YAML::Mark>& marks, bool list_items) const {
    std::vector<std::optional<Span>> spans(marks.size());
    std::vector<std::optional<size_t>> columns;
    for (const auto& mark : marks) columns.push_back(block_column(mark, list_items));
    for (size_t i = 0; i < marks.size(); ++i) {
      if (!columns[i]) continue;
      size_t line = static_cast<size_t>(marks[i].line);
      size_t begin = begin_of(attached_start(line, *columns[i]));
      size_t end = 0;
      if (i + 1 < marks.size()) {
        if (!columns[i + 1] || static_cast<size_t>(marks[i + 1].line) <= line) continue;
        end = begin_of(attached_start(static_cast<size_t>(marks[i + 1].line), *columns[i + 1]));
      } else {
        end = block_end(line, *columns[i], list_items);
      }
      spans[i] = Span{begin, end};
    }
    return spans;
  }

 private:
  const std::string& text_;
  std::vector<size_t> starts_;
};

namespace {

std::vector<YAML::Mark> item_marks(const YAML::Node& list) {
  std::vector<YAML::Mark> marks;
  for (const auto& item : list) marks.push_back(item.Mark());
  return marks;
}
std::vector<YAML::Mark> key_marks(const YAML::Node& map) {
  std::vector<YAML::Mark> marks;
  for (const auto& entry : map) marks.push_back(entry.first.Mark());
  return marks;
}
std::optional<int64_t> literal(const YAML::Node& node) {
  if (!node.IsScalar()) return std::nullopt;
  auto parsed = Expression::parse(node.Scalar());
  if (!parsed) return std::nullopt;
  return parsed->literal_value();
}
bool is_flow(const std::string& text, const YAML::Node& node) {
  auto pos = static_cast<size_t>(node.Mark().pos);
  return pos < text.size() && (text[pos] == '[' || text[pos] == '{');
}

}  // namespace

Result<ScenarioText> ScenarioText::parse(std::string text) {
  ScenarioText parsed;
  parsed.text_ = std::move(text);
  YAML::Node root;
  try {
    root = YAML::Load(parsed.text_);
  } catch (const YAML::Exception& e) {
    return fail(ErrorKind::BadInput, fmt::format("line {}: {}", e.mark.line + 1, e.msg));
  }
  if (!root.IsMap() || !root["workload"] || !root["workload"].IsSequence())
    return fail(ErrorKind::BadInput, "expected a scenario with a workload list, found none");
  TextWalker walk(parsed.text_);

  // Every step, depth first in file order, each after its repeat.
  auto add_steps = [&](auto& self, const YAML::Node& list, std::optional<size_t> parent) -> void {
    auto marks = item_marks(list);
    auto blocks = walk.blocks(marks, true);
    size_t k = 0;
    for (const auto& item : list) {
      StepSite site;
      site.line = item.Mark().line + 1;
      site.block = blocks[k++];
      site.parent = parent;
      if (item.IsMap() && item.size() > 0) site.key = item.begin()->first.Scalar();
      size_t index = parsed.steps_.size();
      parsed.steps_.push_back(site);
      if (parent) parsed.steps_[*parent].children.push_back(index);
      if (!item.IsMap()) continue;
      if (site.key == "repeat") {
        const YAML::Node count = item["repeat"];
        if (auto value = literal(count); value && *value > 1) {
          auto pos = static_cast<size_t>(count.Mark().pos);
          parsed.numbers_.push_back({NumberSite::Kind::RepeatCount, {pos, walk.value_end(pos)}, *value, index});
        }
        if (item["as"]) {
          size_t k = 0;
          auto keys = key_marks(item);
          auto entries = walk.blocks(keys, false);
          for (const auto& entry : item) {
            if (entry.first.Scalar() == "as") parsed.steps_[index].loop_variable = entries[k];
            ++k;
          }
        }
        if (item["steps"] && item["steps"].IsSequence()) self(self, item["steps"], index);
        continue;
      }
      const YAML::Node fields = item.begin()->second;
      if ((site.key == "buffer_data" || site.key == "buffer_sub_data") && fields.IsMap() && fields["size"]) {
        const YAML::Node size = fields["size"];
        if (auto value = literal(size); value && *value > 1) {
          auto pos = static_cast<size_t>(size.Mark().pos);
          parsed.numbers_.push_back({NumberSite::Kind::Size, {pos, walk.value_end(pos)}, *value, index});
        }
      }
      if (site.key == "client_wait" && fields.IsMap() && fields["expect"]) {
        // The entry `expect: X` with the comma before it (or after it, when it comes first).
        size_t entry = 0;
        auto keys = key_marks(fields);
        for (const auto& field : fields) {
          if (field.first.Scalar() == "expect") break;
          ++entry;
        }
        size_t key_pos = static_cast<size_t>(keys[entry].pos);
        size_t value_pos = static_cast<size_t>(fields["expect"].Mark().pos);
        if (is_flow(parsed.text_, fields)) {
          size_t end = walk.value_end(value_pos);
          if (entry > 0) {
            size_t begin = parsed.text_.rfind(',', key_pos);
            parsed.wait_expects_.push_back({begin, end});
          } else if (keys.size() > 1) {
            parsed.wait_expects_.push_back({key_pos, static_cast<size_t>(keys[1].pos)});
          }
        } else if (auto blocks_of = walk.blocks(keys, false); blocks_of[entry]) {
          parsed.wait_expects_.push_back(*blocks_of[entry]);
        }
      }
    }
  };
  add_steps(add_steps, root["workload"], std::nullopt);
  return parsed;
}

Edits ScenarioText::checks_except(std::string_view kind, size_t index, std::string_view name) const {
  Edits edits;
  YAML::Node root = YAML::Load(text_);
  const YAML::Node expect = root["expect"];
  if (!expect || !expect.IsMap()) return edits;
  TextWalker walk(text_);
  // Keeps only item `keep` of a list (nullopt: none), or cuts the whole entry.
  auto keep_one = [&](const YAML::Node& list, std::optional<size_t> keep, const std::optional<Span>& entry) {
    if (!keep || !list.IsSequence() || *keep >= list.size()) {
      if (entry) edits.cut.push_back(*entry);
      return;
    }
    if (is_flow(text_, list)) {
      auto pos = static_cast<size_t>(list[*keep].Mark().pos);
      auto at = static_cast<size_t>(list.Mark().pos);
      edits.replaced.emplace_back(Span{at, walk.value_end(at)},
                                  fmt::format("[{}]", std::string_view(text_).substr(pos, walk.value_end(pos) - pos)));
      return;
    }
    auto blocks = walk.blocks(item_marks(list), true);
    for (size_t k = 0; k < blocks.size(); ++k)
      if (k != *keep && blocks[k]) edits.cut.push_back(*blocks[k]);
  };
  // Keeps only entry `keep` of a map by its key, or cuts the whole entry.
  auto keep_named = [&](const YAML::Node& map, std::string_view keep, const std::optional<Span>& entry) {
    if (!map.IsMap() || keep.empty() || !map[std::string(keep)]) {
      if (entry) edits.cut.push_back(*entry);
      return;
    }
    if (is_flow(text_, map)) {
      auto at = static_cast<size_t>(map.Mark().pos);
      for (const auto& entry : map)
        if (entry.first.Scalar() == keep) {
          auto from = static_cast<size_t>(entry.first.Mark().pos);
          size_t to = walk.value_end(static_cast<size_t>(entry.second.Mark().pos));
          edits.replaced.emplace_back(Span{at, walk.value_end(at)},
                                      fmt::format("{{{}}}", std::string_view(text_).substr(from, to - from)));
        }
      return;
    }
    auto blocks = walk.blocks(key_marks(map), false);
    size_t k = 0;
    for (const auto& entry : map) {
      if (entry.first.Scalar() != keep && blocks[k]) edits.cut.push_back(*blocks[k]);
      ++k;
    }
  };
  std::optional<size_t> keep_index = index;
  auto entries = walk.blocks(key_marks(expect), false);
  size_t e = 0;
  bool any_left = false;
  for (const auto& section_entry : expect) {
    const std::string section = section_entry.first.Scalar();
    const YAML::Node value = section_entry.second;
    const std::optional<Span>& entry = entries[e++];
    const std::string_view key = scenario::expect_key_of(kind);  // the check's row in the registry
    const bool holds = !key.empty() && section == key;
    any_left = any_left || holds;
    if (!holds) {
      if (entry) edits.cut.push_back(*entry);
      continue;
    }
    if (section == "gauges" || section == "pixels" || section == "trace")
      keep_one(value, keep_index, entry);
    else if (section == "kmd" || section == "kgsl")
      keep_named(value, name, entry);
    else if (section == "kernel" && value.IsMap() && !is_flow(text_, value)) {
      auto parts = walk.blocks(key_marks(value), false);
      size_t p = 0;
      for (const auto& part : value) {
        const std::string part_key = part.first.Scalar();
        const YAML::Node part_value = part.second;
        const std::optional<Span>& part_entry = parts[p++];
        if (part_key == "nodes")
          keep_one(part_value, kind == "nodes" ? keep_index : std::nullopt, part_entry);
        else if (kind != "dump" && part_entry)
          edits.cut.push_back(*part_entry);
      }
    }
  }
  // Nothing of expect: left (the check is `waits`): the section goes whole.
  if (!any_left) {
    edits.cut.clear();
    edits.replaced.clear();
    if (auto whole = top_level("expect")) edits.cut.push_back(*whole);
  }
  return edits;
}

std::optional<Span> ScenarioText::top_level(std::string_view key) const {
  YAML::Node root = YAML::Load(text_);
  TextWalker walk(text_);
  auto blocks = walk.blocks(key_marks(root), false);
  size_t k = 0;
  for (const auto& entry : root) {
    if (entry.first.Scalar() == key) return blocks[k];
    ++k;
  }
  return std::nullopt;
}

std::vector<Span> ScenarioText::wait_expectations() const { return wait_expects_; }

std::optional<Span> ScenarioText::top_level_value(std::string_view key) const {
  YAML::Node root = YAML::Load(text_);
  const YAML::Node value = root[std::string(key)];
  if (!value || (!value.IsScalar() && !is_flow(text_, value))) return std::nullopt;
  TextWalker walk(text_);
  auto pos = static_cast<size_t>(value.Mark().pos);
  return Span{pos, walk.value_end(pos)};
}

Span ScenarioText::leading_comments() const {
  TextWalker walk(text_);
  size_t line = 0;
  while (line < walk.lines() && (walk.comment(line) || (walk.blank(line) && line + 1 < walk.lines() && line > 0)))
    ++line;
  while (line > 0 && walk.blank(line - 1)) --line;
  return {0, walk.begin_of(line)};
}

std::string ScenarioText::format_number(int64_t value) {
  constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;
  if (value >= kMiB && value % kMiB == 0) return fmt::format("{}MiB", value / kMiB);
  if (value >= kKiB && value % kKiB == 0) return fmt::format("{}KiB", value / kKiB);
  return fmt::format("{}", value);
}

std::string ScenarioText::render(const Edits& edits) const {
  std::vector<std::pair<Span, std::string>> changes;  // a cut is a change to ""
  for (size_t step : edits.cut_steps)
    if (step < steps_.size() && steps_[step].block) changes.push_back({*steps_[step].block, ""});
  for (const auto& span : edits.cut) changes.push_back({span, ""});
  for (const auto& [site, value] : edits.numbers)
    if (site < numbers_.size()) changes.push_back({numbers_[site].span, format_number(value)});
  for (const auto& change : edits.replaced) changes.push_back(change);
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  size_t at = 0;
  for (const auto& [span, with] : changes) {
    if (span.begin < at) continue;  // inside a span already cut (a step of a cut repeat)
    out.append(text_, at, span.begin - at);
    out += with;
    at = span.end;
  }
  out.append(text_, at, std::string::npos);
  return out;
}

}  // namespace tidemark::reduce
