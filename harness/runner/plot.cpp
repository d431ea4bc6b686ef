#include "runner/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace tidemark::runner {

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string step_plot(const std::vector<PlotSeries>& series) {
  constexpr int kWidth = 320, kPanel = 40, kLabel = 12, kPlot = kPanel - kLabel - 4;
  constexpr size_t kMaxPoints = 400;
  double start = std::numeric_limits<double>::max(), end = 0;
  for (const auto& s : series) {
    if (!s.points.empty()) start = std::min(start, s.points.front().first);
    end = std::max(end, s.x_end);
  }
  double span = end > start ? end - start : 1;
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "font-size=\"10\" font-family=\"sans-serif\">",
                                kWidth, kPanel * static_cast<int>(series.size()));
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    int top = static_cast<int>(k) * kPanel;
    double high = 0;
    for (const auto& point : s.points) high = std::max(high, point.second);
    auto x = [&](double at) { return std::max(0.0, at - start) * (kWidth - 2) / span + 1; };
    auto y = [&](double value) { return top + kLabel + 2 + kPlot - (high > 0 ? value / high * kPlot : 0); };
    size_t step = std::max<size_t>(1, s.points.size() / kMaxPoints);
    std::string d;
    for (size_t i = 0; i < s.points.size(); i += step) {
      const auto& [px, py] = s.points[i];
      d += d.empty() ? fmt::format("M{:.1f} {:.1f}", x(px), y(py)) : fmt::format(" H{:.1f} V{:.1f}", x(px), y(py));
    }
    if (!d.empty()) d += fmt::format(" H{:.1f}", x(s.x_end));
    svg += fmt::format("<text x=\"1\" y=\"{}\">{} (max {})</text>", top + kLabel - 2, html_escape(s.label),
                       static_cast<int64_t>(high));
    svg += fmt::format("<path class=\"track\" d=\"{}\" fill=\"none\" stroke=\"#1a5fb4\"/>", d);
  }
  return svg + "</svg>";
}

}  // namespace tidemark::runner
