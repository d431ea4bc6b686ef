#include "core/gauges.h"

#include <fmt/format.h>

namespace tidemark {

const GaugeSpec* find_gauge(std::string_view name) {
  for (const auto& spec : kGauges)
    if (spec.name == name) return &spec;
  return nullptr;
}

bool is_kernel_gauge(std::string_view name) {
  for (const auto& spec : kKernelGauges)
    if (spec.name == name) return true;
  return false;
}

std::vector<std::pair<std::string, int64_t>> named(const KernelGauges& gauges) {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& spec : kKernelGauges) out.emplace_back(spec.name, gauges.*spec.field);
  return out;
}

std::vector<std::pair<std::string, int64_t>> named(const Gauges& gauges) {
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(kGauges.size());
  for (const auto& spec : kGauges) out.emplace_back(spec.name, gauges.*spec.field);
  return out;
}

KernelGauges kernel_from_named(const std::map<std::string, int64_t>& values) {
  KernelGauges gauges;
  for (const auto& spec : kKernelGauges) {
    auto it = values.find(std::string(spec.name));
    gauges.*spec.field = it == values.end() ? 0 : it->second;
  }
  return gauges;
}

Gauges from_named(const std::map<std::string, int64_t>& values) {
  Gauges gauges;
  for (const auto& spec : kGauges) {
    auto it = values.find(std::string(spec.name));
    gauges.*spec.field = it == values.end() ? 0 : it->second;
  }
  return gauges;
}

std::string gauge_line(const Gauges& g) {
  return fmt::format("wbuf[wbufs={} wlivepk={} wdefpk={} wdefsync={}]", g.wbufs, g.wlivepk, g.wdefpk, g.wdefsync);
}

}  // namespace tidemark
