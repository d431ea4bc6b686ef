#include "report/plot.h"

#include <gtest/gtest.h>

namespace tidemark::report {
namespace {

// Check that values carry their units, bytes in binary multiples.
TEST(Plot, ValuesAreShownInTheirUnits) {
  EXPECT_EQ(format_value(1572864, "B"), "1.5 MiB");
  EXPECT_EQ(format_value(512, "B"), "512 B");
  EXPECT_EQ(format_value(2147483648.0, "B"), "2.0 GiB");
  EXPECT_EQ(format_value(1025, ""), "1025");
  EXPECT_EQ(format_value(12.3456, "ms"), "12.3 ms");
}

// Check that a panel has a value axis up to the peak and a time axis from start to end.
TEST(Plot, APanelHasAValueAxisAndATimeAxis) {
  PlotSeries parked{"Parked bytes (gpu 0)", {{0, 0}, {2'000'000, 8 << 20}, {4'000'000, 0}}, 10'000'000, "B"};
  std::string svg = step_plot({parked}, kTraceTime);
  EXPECT_NE(svg.find("<g class=\"axis y\">"), std::string::npos);
  EXPECT_NE(svg.find("<g class=\"axis x\">"), std::string::npos);
  EXPECT_NE(svg.find(">8.0 MiB</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">4.0 MiB</text>"), std::string::npos);
  EXPECT_NE(svg.find(">0 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">5 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find(">10 ms</text>"), std::string::npos);
  EXPECT_NE(svg.find("Parked bytes (gpu 0)"), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
}

// Check that labels are escaped.
TEST(Plot, LabelsAreEscaped) {
  std::string svg = step_plot({PlotSeries{"a<b & \"c\"", {{0, 1}}, 1, ""}});
  EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
}

}  // namespace
}  // namespace tidemark::report
