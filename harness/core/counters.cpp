#include "core/counters.h"

#include <array>

namespace tidemark::tracer {

namespace {

struct UnitInfo {
  std::string_view name;          // the proto enum name, lower case
  std::string_view abbreviation;  // as the importer prints it
};
// Indexed by the MeasureUnit value.
constexpr std::array<UnitInfo, kMaxMeasureUnit + 1> kUnits = {{
    {"none", ""},
    {"bit", "bit"},
    {"kilobit", "Kb"},
    {"megabit", "Mb"},
    {"gigabit", "Gb"},
    {"terabit", "Tb"},
    {"petabit", "Pb"},
    {"byte", "B"},
    {"kilobyte", "KB"},
    {"megabyte", "MB"},
    {"gigabyte", "GB"},
    {"terabyte", "TB"},
    {"petabyte", "PB"},
    {"hertz", "Hz"},
    {"kilohertz", "KHz"},
    {"megahertz", "MHz"},
    {"gigahertz", "GHz"},
    {"terahertz", "THz"},
    {"petahertz", "PHz"},
    {"nanosecond", "ns"},
    {"microsecond", "us"},
    {"millisecond", "ms"},
    {"second", "s"},
    {"minute", "min"},
    {"hour", "h"},
    {"vertex", "Vertex"},
    {"pixel", "Pixel"},
    {"triangle", "Triangle"},
    {"milliwatt", "mW"},
    {"watt", "W"},
    {"kilowatt", "kW"},
    {"joule", "J"},
    {"volt", "V"},
    {"ampere", "A"},
    {"celsius", "C"},
    {"fahrenheit", "F"},
    {"kelvin", "K"},
    {"percent", "%"},
    {"primitive", "Primitive"},
    {"fragment", "Fragment"},
    {"instruction", "Instruction"},
}};

constexpr std::array<std::string_view, kMaxCounterGroup + 1> kGroups = {
    "unclassified", "system", "vertices", "fragments", "primitives", "memory", "compute", "ray_tracing"};

void join_units(std::string& out, const std::vector<MeasureUnit>& units) {
  bool first = true;
  for (MeasureUnit unit : units) {
    std::string_view text = unit_abbreviation(unit);
    if (text.empty()) continue;
    if (!first) out += ':';
    out += text;
    first = false;
  }
}

}  // namespace

std::string_view unit_abbreviation(MeasureUnit unit) {
  return unit <= kMaxMeasureUnit ? kUnits[unit].abbreviation : "";
}
std::string_view measure_unit_name(MeasureUnit unit) { return unit <= kMaxMeasureUnit ? kUnits[unit].name : ""; }

std::optional<MeasureUnit> parse_measure_unit(std::string_view name) {
  for (MeasureUnit unit = 0; unit <= kMaxMeasureUnit; ++unit)
    if (kUnits[unit].name == name) return unit;
  return std::nullopt;
}

std::optional<CounterGroup> parse_counter_group(std::string_view name) {
  for (CounterGroup group = 0; group <= kMaxCounterGroup; ++group)
    if (kGroups[group] == name) return group;
  return std::nullopt;
}

std::string unit_string(const std::vector<MeasureUnit>& numerator, const std::vector<MeasureUnit>& denominator) {
  std::string out;
  join_units(out, numerator);
  std::string below;
  join_units(below, denominator);
  if (!below.empty()) out += '/' + below;
  return out;
}

}  // namespace tidemark::tracer
