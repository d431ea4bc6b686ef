// Small SVG step plots for the HTML reports: one panel and one <path> per series, so a person
// sees a trend (parked bytes rising and falling at each sync, a soak's memory staying flat).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tidemark::runner {

struct PlotSeries {
  std::string label;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending; a value holds until the next
  double x_end = 0;                                // where the last value ends
};

std::string html_escape(std::string_view text);
// A series of many points keeps at most 400 of them, evenly spaced.
std::string step_plot(const std::vector<PlotSeries>& series);

}  // namespace tidemark::runner
