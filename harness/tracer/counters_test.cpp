#include "core/counters.h"
#include "tracer/measure_units_test.h"

#include <gtest/gtest.h>

namespace tidemark::tracer {
namespace {

using namespace test_units;

// Check that a unit string joins numerators, then '/' and denominators, as the importer prints them.
TEST(UnitString, NumeratorsSlashDenominatorsJoinedByColons) {
  EXPECT_EQ(unit_string({kVertex}, {kSecond}), "Vertex/s");
  EXPECT_EQ(unit_string({kTriangle}, {kMillisecond, kMillisecond}), "Triangle/ms:ms");
  EXPECT_EQ(unit_string({kByte}, {}), "B");
  EXPECT_EQ(unit_string({kHertz}, {}), "Hz");
  EXPECT_EQ(unit_string({kPixel, kTriangle}, {kSecond}), "Pixel:Triangle/s");
  EXPECT_EQ(unit_string({}, {}), "");
}

// Check that NONE units are skipped on either side, and that an all-NONE denominator adds no slash.
TEST(UnitString, NoneUnitsAreSkipped) {
  EXPECT_EQ(unit_string({kNone, kVertex, kNone}, {kNone, kSecond}), "Vertex/s");
  EXPECT_EQ(unit_string({kPercent}, {kNone}), "%");
  EXPECT_EQ(unit_string({kNone}, {kSecond}), "/s");
  EXPECT_EQ(unit_string({kNone}, {kNone}), "");
}

// Check that units beyond INSTRUCTION (40) print as nothing, like NONE, rather than crash.
TEST(UnitString, UnknownUnitsPrintAsNothing) {
  EXPECT_EQ(unit_abbreviation(41), "");
  EXPECT_EQ(unit_abbreviation(0xffffffffu), "");
  EXPECT_EQ(measure_unit_name(41), "");
  EXPECT_EQ(unit_string({kInstruction, 41}, {99}), "Instruction");
}

// Check that each unit's abbreviation is the importer's, for every value in the table.
TEST(UnitAbbreviation, EveryUnitMatchesTheImportersTable) {
  const char* expected[] = {"",         "bit", "Kb",        "Mb",       "Gb",         "Tb",  "Pb",  "B",      "KB",
                            "MB",       "GB",  "TB",        "PB",       "Hz",         "KHz", "MHz", "GHz",    "THz",
                            "PHz",      "ns",  "us",        "ms",       "s",          "min", "h",   "Vertex", "Pixel",
                            "Triangle", "mW",  "W",         "kW",       "J",          "V",   "A",   "C",      "F",
                            "K",        "%",   "Primitive", "Fragment", "Instruction"};
  static_assert(std::size(expected) == kMaxMeasureUnit + 1);
  for (MeasureUnit unit = 0; unit <= kMaxMeasureUnit; ++unit)
    EXPECT_EQ(unit_abbreviation(unit), expected[unit]) << unit;
}

// Check that unit names parse to their proto values, lower case only, and unknown names to nullopt.
TEST(ParseMeasureUnit, LowerCaseEnumNamesGiveTheirValues) {
  EXPECT_EQ(parse_measure_unit("pixel"), 26u);
  EXPECT_EQ(parse_measure_unit("none"), 0u);
  EXPECT_EQ(parse_measure_unit("byte"), 7u);
  EXPECT_EQ(parse_measure_unit("second"), 22u);
  EXPECT_EQ(parse_measure_unit("millisecond"), 21u);
  EXPECT_EQ(parse_measure_unit("percent"), 37u);
  EXPECT_EQ(parse_measure_unit("instruction"), 40u);
  EXPECT_EQ(parse_measure_unit("PIXEL"), std::nullopt);
  EXPECT_EQ(parse_measure_unit("pixels"), std::nullopt);
  EXPECT_EQ(parse_measure_unit(""), std::nullopt);
}

// Check that every unit's name parses back to the same unit.
TEST(ParseMeasureUnit, NamesRoundTripForEveryUnit) {
  for (MeasureUnit unit = 0; unit <= kMaxMeasureUnit; ++unit) {
    ASSERT_FALSE(measure_unit_name(unit).empty()) << unit;
    EXPECT_EQ(parse_measure_unit(measure_unit_name(unit)), unit) << measure_unit_name(unit);
  }
  EXPECT_EQ(measure_unit_name(26), "pixel");
}

// Check that counter group names parse to their proto values (UNCLASSIFIED 0 ... RAY_TRACING 7).
TEST(ParseCounterGroup, LowerCaseEnumNamesGiveTheirValues) {
  EXPECT_EQ(parse_counter_group("unclassified"), 0u);
  EXPECT_EQ(parse_counter_group("system"), 1u);
  EXPECT_EQ(parse_counter_group("vertices"), 2u);
  EXPECT_EQ(parse_counter_group("fragments"), 3u);
  EXPECT_EQ(parse_counter_group("primitives"), 4u);
  EXPECT_EQ(parse_counter_group("memory"), 5u);
  EXPECT_EQ(parse_counter_group("compute"), 6u);
  EXPECT_EQ(parse_counter_group("ray_tracing"), 7u);
  EXPECT_EQ(parse_counter_group("raytracing"), std::nullopt);
  EXPECT_EQ(parse_counter_group("MEMORY"), std::nullopt);
}

}  // namespace
}  // namespace tidemark::tracer
