#include "core/gauges.h"

#include <fmt/format.h>

#include <algorithm>

namespace tidemark {

namespace {

// One implementation for the three catalogues (device, kernel, observed).
template <class Catalogue, class Values>
std::vector<std::pair<std::string, int64_t>> named_in(const Catalogue& catalogue, const Values& values) {
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(catalogue.size());
  for (const auto& spec : catalogue) out.emplace_back(spec.name, values.*spec.field);
  return out;
}

template <class Values, class Catalogue>
Values from_named_in(const Catalogue& catalogue, const std::map<std::string, int64_t>& named) {
  Values values;
  for (const auto& spec : catalogue) {
    auto it = named.find(std::string(spec.name));
    values.*spec.field = it == named.end() ? 0 : it->second;
  }
  return values;
}

template <class Catalogue>
bool names(const Catalogue& catalogue, std::string_view name) {
  return std::any_of(catalogue.begin(), catalogue.end(), [&](const auto& spec) { return spec.name == name; });
}

}  // namespace

const GaugeSpec* find_gauge(std::string_view name) {
  for (const auto& spec : kGauges)
    if (spec.name == name) return &spec;
  return nullptr;
}

std::optional<Worse> worse_direction(std::string_view name) {
  for (const auto& spec : kGauges)
    if (spec.name == name) return spec.worse;
  for (const auto& spec : kKernelGauges)
    if (spec.name == name) return spec.worse;
  for (const auto& spec : kObservedGauges)
    if (spec.name == name) return spec.worse;
  for (const auto& spec : kWireGauges)
    if (spec.name == name) return spec.worse;
  if (name.starts_with(kWireCommandPrefix)) return Worse::Neither;
  return std::nullopt;
}

bool is_wire_gauge(std::string_view name) { return names(kWireGauges, name) || name.starts_with(kWireCommandPrefix); }

bool is_kernel_gauge(std::string_view name) { return names(kKernelGauges, name); }
std::string_view lost_call_name(int64_t call) {
  static constexpr std::string_view kNames[] = {"",
                                                "vkQueueSubmit",
                                                "vkQueueSubmit2",
                                                "vkWaitForFences",
                                                "vkQueueWaitIdle",
                                                "vkDeviceWaitIdle",
                                                "vkGetFenceStatus",
                                                "vkWaitSemaphores",
                                                "vkGetSemaphoreCounterValue"};
  return call > 0 && call < static_cast<int64_t>(std::size(kNames)) ? kNames[call] : "";
}

bool is_observed_gauge(std::string_view name) { return names(kObservedGauges, name); }

std::vector<std::pair<std::string, int64_t>> named(const Gauges& gauges) { return named_in(kGauges, gauges); }
std::vector<std::pair<std::string, int64_t>> named(const KernelGauges& gauges) {
  return named_in(kKernelGauges, gauges);
}
std::vector<std::pair<std::string, int64_t>> named(const ObservedGauges& gauges) {
  return named_in(kObservedGauges, gauges);
}

Gauges from_named(const std::map<std::string, int64_t>& values) { return from_named_in<Gauges>(kGauges, values); }
KernelGauges kernel_from_named(const std::map<std::string, int64_t>& values) {
  return from_named_in<KernelGauges>(kKernelGauges, values);
}
ObservedGauges observed_from_named(const std::map<std::string, int64_t>& values) {
  return from_named_in<ObservedGauges>(kObservedGauges, values);
}

std::string gauge_line(const Gauges& g) {
  return fmt::format("wbuf[wbufs={} wlivepk={} wdefpk={} wdefsync={}]", g.wbufs, g.wlivepk, g.wdefpk, g.wdefsync);
}

std::string gauge_line(const ObservedGauges& g) {
  return fmt::format("layer[vkbufs={} vkbufspk={} vkallocspk={} vkbytespk={}]", g.vkbufs, g.vkbufspk, g.vkallocspk,
                     g.vkbytespk);
}

}  // namespace tidemark
