// The schema of controls: red-once controls, each a mutant or knob overrides that must turn
// named checks of this scenario red, and the lanes it cannot apply in.
#include <fmt/format.h>

#include <algorithm>

#include "scenario/schema_reader.h"

namespace tidemark::scenario::schema {

using yaml::error_at;
using yaml::join;
using yaml::quote;

Result<std::vector<Control>> ControlReader::controls(const Value& value, const Scenario& scenario) const {
  TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of controls"));
  std::vector<Control> controls;
  for (const auto& item : items) {
    TIDEMARK_TRY(parsed, control(item, scenario));
    for (const auto& earlier : controls)
      if (earlier.mutant == parsed.mutant && earlier.knobs == parsed.knobs)
        return error_at(parsed.where, "each control once",
                        fmt::format("{} again (first on line {})", describe_control(parsed), earlier.where.line));
    controls.push_back(std::move(parsed));
  }
  return controls;
}

Result<Control> ControlReader::control(const Value& value, const Scenario& scenario) const {
  TIDEMARK_TRY(entries, read_.fields(value, "control", {"mutant", "knobs", "fails", "skip_lanes"}));
  Control control;
  control.where = entries.entries().empty() ? value.where : entries.entries().front().key_where;
  if (!entries.find("mutant") && !entries.find("knobs"))
    return error_at(value.where, "a mutant or knobs in a control", "neither");
  TIDEMARK_CHECK(yaml::optional(entries, "mutant", control.mutant,
                                [&](const Value& v) { return read_.dotted_name(v, "a mutant name"); }));
  TIDEMARK_CHECK(yaml::optional(entries, "knobs", control.knobs, [&](const Value& v) -> Result<KnobValues> {
    TIDEMARK_TRY(overrides, SectionReader(values_).knobs(v));
    if (overrides.empty())
      return error_at(v.where, fmt::format("at least one knob in a control's knobs ({})", join(knob_names())),
                      "an empty map");
    return overrides;
  }));
  TIDEMARK_CHECK(
      yaml::required(entries, "fails", control.fails, [&](const Value& v) { return check_references(v, scenario); }));
  TIDEMARK_CHECK(
      yaml::optional(entries, "skip_lanes", control.skip_lanes, [&](const Value& v) { return skip_lanes(v); }));
  return control;
}

// The checks a control must turn red, resolved here once: a gauge check by its expression
// (whitespace ignored), `pixels[k]`, `waits`.
Result<std::vector<CheckId>> ControlReader::check_references(const Value& value, const Scenario& scenario) const {
  std::vector<CheckId> known = scenario.checks();
  std::vector<std::string> texts;
  for (const auto& id : known) texts.push_back(scenario.check_text(id));
  std::string expected = fmt::format("a check of this scenario ({})", join(texts));
  TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of checks the control makes fail"));
  std::vector<CheckId> resolved;
  for (const auto& item : items) {
    TIDEMARK_TRY(written, read_.text(item, expected));
    std::string reference(yaml::trim(written));
    auto named = scenario.find_check(reference);
    if (!named) return error_at(item.where, expected, quote(reference));
    if (std::find(resolved.begin(), resolved.end(), *named) != resolved.end())
      return error_at(item.where, "each check once in a control", fmt::format("{} again", quote(reference)));
    resolved.push_back(*named);
  }
  return resolved;
}

Result<std::map<std::string, std::string>> ControlReader::skip_lanes(const Value& value) const {
  TIDEMARK_TRY(entries, read_.fields(value, "skip_lanes", lane_names()));
  std::map<std::string, std::string> reasons;
  for (const auto& entry : entries.entries()) {
    constexpr std::string_view kWhat = "a reason the control cannot apply in this lane";
    TIDEMARK_TRY(reason, read_.text(entry.value, kWhat));
    if (yaml::trim(reason).empty()) return error_at(entry.value.where, kWhat, yaml::describe(entry.value.node));
    reasons[entry.key] = reason;
  }
  if (reasons.size() == lane_names().size())
    return error_at(value.where, "a lane left for the control to run in (a control must apply somewhere)",
                    fmt::format("all of {} skipped", join(lane_names())));
  return reasons;
}

}  // namespace tidemark::scenario::schema
