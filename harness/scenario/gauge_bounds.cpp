#include "scenario/gauge_bounds.h"

#include <fmt/format.h>

#include "core/files.h"
#include "scenario/yaml_reader.h"

namespace tidemark::scenario {

namespace {

Result<std::vector<GaugeCheck>> comparisons(yaml::Reader& read, const yaml::Source& source, const yaml::Value& list) {
  TIDEMARK_TRY(items, read.non_empty_list(list, "a list of comparisons such as 'vkbufspk <= 64'"));
  std::vector<GaugeCheck> bounds;
  for (const auto& item : items) {
    constexpr std::string_view kWhat = "a comparison such as 'vkbufspk <= 64'";
    TIDEMARK_TRY(expression, read.expression(item, kWhat));
    if (!expression.is_comparison()) return yaml::error_at(item.where, kWhat, yaml::quote(expression.text()));
    for (const auto& name : expression.identifiers())
      if (!is_observed_gauge(name) && !is_kernel_gauge(name) && !is_wire_gauge(name))
        return yaml::error_at(source.inside(item, yaml::word_offset(expression.text(), name)),
                              "a gauge of the layer (vk...), the kernel model (k...) or a tapped wire (wire...), see "
                              "docs/gauges.md",
                              yaml::quote(name));
    bounds.push_back({std::move(expression), item.where});
  }
  return bounds;
}

}  // namespace

Result<GaugeBounds> load_gauge_bounds(const std::filesystem::path& file) {
  TIDEMARK_TRY(text, read_given_file(file, "gauge bounds"));
  yaml::Source source(file.string(), text);
  const SourceLocation start{source.file(), 1, 1};
  TIDEMARK_TRY(root, source.one_document());  // a second document's bounds are an error, never ignored
  if (!root.IsDefined() || root.IsNull())
    return yaml::error_at(start, "a map with an expect or whole list", "an empty file");
  yaml::Reader read(source);
  TIDEMARK_TRY(top, read.fields(source.value(root, start), "the gauge bounds", {"expect", "whole"}));
  return read_gauge_bounds(read, source, top, start);
}

Result<GaugeBounds> read_gauge_bounds(yaml::Reader& read, const yaml::Source& source, const yaml::Fields& top,
                                      const SourceLocation& start) {
  GaugeBounds bounds;
  auto each = top.optional("expect");
  auto whole = top.optional("whole");
  if (!each && !whole)
    return yaml::error_at(start, "an expect list (each process) or a whole list (the tree)", "neither");
  if (each) {
    TIDEMARK_TRY(list, comparisons(read, source, *each));
    bounds.each = std::move(list);
  }
  if (whole) {
    TIDEMARK_TRY(list, comparisons(read, source, *whole));
    bounds.whole = std::move(list);
  }
  return bounds;
}

}  // namespace tidemark::scenario
