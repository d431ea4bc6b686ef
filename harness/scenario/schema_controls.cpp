// The schema of controls: red-once controls, each a mutant or knob overrides that must turn
// named checks of this scenario red, the lanes it cannot apply in and the backends it proves the
// checks on; and the backends no control can prove them on (`unproven:`).
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
  TIDEMARK_TRY(entries, read_.fields(value, "control", {"mutant", "knobs", "fails", "skip_lanes", "backends"}));
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
  TIDEMARK_CHECK(
      yaml::optional(entries, "backends", control.backends, [&](const Value& v) { return backends(v, scenario); }));
  return control;
}

// A control's backends: each one the scenario lists, once.
Result<std::vector<std::string>> ControlReader::backends(const Value& value, const Scenario& scenario) const {
  if (scenario.backends.empty())
    return error_at(value.where, "a control's backends only in a scenario that lists its own (backends: at the top)",
                    "none listed there");
  const std::string expected = fmt::format("a backend the scenario lists ({})", join(scenario.backends));
  TIDEMARK_TRY(items, read_.non_empty_list(value, "a non-empty list of backends the control proves the checks on"));
  std::vector<std::string> names;
  for (const auto& item : items) {
    TIDEMARK_TRY(name, read_.kebab_name(item));
    if (std::find(scenario.backends.begin(), scenario.backends.end(), name) == scenario.backends.end())
      return error_at(item.where, expected, quote(name));
    if (std::find(names.begin(), names.end(), name) != names.end())
      return error_at(item.where, "each backend once in a control", fmt::format("{} again", quote(name)));
    names.push_back(name);
  }
  return names;
}

Result<std::map<std::string, std::string>> ControlReader::unproven(const Value& value, const Scenario& scenario) const {
  std::vector<std::string_view> listed(scenario.backends.begin(), scenario.backends.end());
  if (listed.empty())
    return error_at(value.where, "unproven: only in a scenario that lists its backends (backends: at the top)",
                    "none listed there");
  TIDEMARK_TRY(entries, read_.fields(value, "unproven", listed));
  std::map<std::string, std::string> reasons;
  for (const auto& entry : entries.entries()) {
    constexpr std::string_view kWhat = "why no control can prove the checks on this backend";
    TIDEMARK_TRY(reason, read_.text(entry.value, kWhat));
    if (yaml::trim(reason).empty()) return error_at(entry.value.where, kWhat, yaml::describe(entry.value.node));
    for (const auto& control : scenario.controls)
      if (control.backends.empty() ||
          std::find(control.backends.begin(), control.backends.end(), entry.key) != control.backends.end())
        return error_at(entry.key_where, "a backend none of the controls applies to",
                        fmt::format("{}, where {} (line {}) applies", quote(entry.key), describe_control(control),
                                    control.where.line));
    reasons[entry.key] = reason;
  }
  if (reasons.size() == listed.size())
    return error_at(value.where, "a backend left that a control proves the checks on",
                    fmt::format("all of {} unproven", join(listed)));
  return reasons;
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
