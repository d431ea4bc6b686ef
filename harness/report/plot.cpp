#include "report/plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tidemark::report {

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string format_value(double value, std::string_view unit) {
  auto number = [](double v) {
    return v == std::floor(v) && std::abs(v) < 1e15 ? fmt::format("{}", static_cast<int64_t>(v))
                                                    : fmt::format("{:.3g}", v);
  };
  if (unit == "B") {
    static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    size_t k = 0;
    double scaled = value;
    while (std::abs(scaled) >= 1024 && k + 1 < std::size(kUnits)) scaled /= 1024, ++k;
    return k == 0 ? fmt::format("{} B", number(value)) : fmt::format("{:.1f} {}", scaled, kUnits[k]);
  }
  return unit.empty() ? number(value) : fmt::format("{} {}", number(value), unit);
}

std::string step_plot(const std::vector<PlotSeries>& series, const XAxis& x_axis) {
  // Each panel: the label on top, the value axis on the left, the time axis below.
  constexpr int kWidth = 380, kLeft = 64, kRight = 12, kTitle = 14, kPlot = 44, kBelow = 16;
  constexpr int kPanel = kTitle + kPlot + kBelow + 4;
  constexpr size_t kMaxPoints = 400;
  double start = std::numeric_limits<double>::max(), end = 0;
  for (const auto& s : series) {
    if (!s.points.empty()) start = std::min(start, s.points.front().first);
    end = std::max(end, s.x_end);
  }
  if (start > end) start = 0;
  const double span = end > start ? end - start : 1;
  const double plot_width = kWidth - kLeft - kRight;
  std::string svg = fmt::format(
      "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-size=\"10\" font-family=\"sans-serif\">",
      kWidth, kPanel * static_cast<int>(series.size()));
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const int top = static_cast<int>(k) * kPanel + kTitle;
    const int bottom = top + kPlot;
    double high = 0;
    for (const auto& point : s.points) high = std::max(high, point.second);
    auto x = [&](double at) { return kLeft + std::max(0.0, at - start) * plot_width / span; };
    auto y = [&](double value) { return bottom - (high > 0 ? value / high * kPlot : 0); };
    size_t step = std::max<size_t>(1, s.points.size() / kMaxPoints);
    std::string d;
    for (size_t i = 0; i < s.points.size(); i += step) {
      const auto& [px, py] = s.points[i];
      d += d.empty() ? fmt::format("M{:.1f} {:.1f}", x(px), y(py)) : fmt::format(" H{:.1f} V{:.1f}", x(px), y(py));
    }
    if (!d.empty()) d += fmt::format(" H{:.1f}", x(s.x_end));
    svg += fmt::format("<g class=\"panel\"><text class=\"label\" x=\"{}\" y=\"{}\">{}</text>", kLeft, top - 3,
                       html_escape(s.label));
    // The value axis: 0, half and the peak, in the series' unit.
    svg += fmt::format("<g class=\"axis y\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#555\"/>", kLeft,
                       top, bottom);
    for (double fraction : {0.0, 0.5, 1.0}) {
      const double at = bottom - fraction * kPlot;
      svg += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 3, at + 3,
                         html_escape(format_value(high * fraction, s.unit)));
    }
    // The time axis: start, middle and end.
    svg += fmt::format("</g><g class=\"axis x\"><line x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\" stroke=\"#555\"/>",
                       kLeft, kLeft + plot_width, bottom);
    for (double fraction : {0.0, 0.5, 1.0}) {
      const double at = start + fraction * span;
      const char* anchor = fraction == 0 ? "start" : fraction == 1 ? "end" : "middle";
      svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\">{}</text>",
                         kLeft + fraction * plot_width, bottom + 11, anchor,
                         html_escape(format_value(at * x_axis.scale, x_axis.unit)));
    }
    svg += fmt::format("</g><path class=\"track\" d=\"{}\" fill=\"none\" stroke=\"#1a5fb4\"/></g>", d);
  }
  return svg + "</svg>";
}

}  // namespace tidemark::report
