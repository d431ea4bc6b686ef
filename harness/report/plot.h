// SVG step plots for the HTML reports, one panel per series with a time (or call) axis and a
// value axis in the series' unit, so a person reads a trend and its size at a glance: parked
// bytes rising to the watermark and falling at each sync, a soak's memory staying flat.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidemark::report {

struct PlotSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending; a value holds until the next
  double x_end = 0;                               // where the last value ends
  std::string unit;                               // "B" is shown as KiB/MiB/GiB; empty: a count
  bool operator==(const PlotSeries&) const = default;
};

// What the x values are: a trace's nanoseconds shown as ms, or calls shown as they are.
struct XAxis {
  std::string unit;  // shown after each tick value
  double scale = 1;  // tick value = x * scale
};
inline const XAxis kTraceTime{"ms", 1e-6};

std::string html_escape(std::string_view text);
// A value with its unit: "1.5 MiB" for 1572864 B, "1025" for a count, "3 ms".
std::string format_value(double value, std::string_view unit);
// A series of many points keeps at most 400 of them, evenly spaced.
std::string step_plot(const std::vector<PlotSeries>& series, const XAxis& x_axis = {});

}  // namespace tidemark::report
