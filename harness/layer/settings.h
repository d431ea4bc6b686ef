// The layer's settings as text, for a process without a host (TIDEMARK_LAYER_SETTINGS, and
// `tidemark observe --fault/--completion` checking them before it starts anything):
// comma-separated "completion=deterministic|real", "hold_frees", "never_done", "shadow_copies",
// "fail_allocation=N", "exit_at_call=N", "crash_at_call=N", "hang_at_call=N", "device_lost_at=N"
// (the device's Nth vkQueueSubmit, vkQueueSubmit2, vkWaitForFences, vkQueueWaitIdle or
// vkDeviceWaitIdle and every submit, wait and poll after it answer VK_ERROR_DEVICE_LOST),
// "drop_draw=N", "unbuffered_events", "first_device_only". Header-only: both the layer and the CLI build it.
#pragma once

#include <charconv>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "layer/tidemark_layer.h"

namespace tidemark::layer {

// "EXPECTED, found 'ITEM'" (built by append: GCC 12 at -O3 misreads string + on short literals)
inline std::string found(std::string_view expected, std::string_view item) {
  std::string message(expected);
  message.append(", found '").append(item).append("'");
  return message;
}

// The faults that fire at a device's Nth something, NAME=N with N from 1, in the order they are
// written.
struct CountedSetting {
  std::string_view name;
  uint64_t TidemarkLayerSettings::*field;
};
inline constexpr CountedSetting kCountedSettings[] = {
    {"fail_allocation", &TidemarkLayerSettings::fail_allocation},
    {"exit_at_call", &TidemarkLayerSettings::exit_at_call},
    {"crash_at_call", &TidemarkLayerSettings::crash_at_call},
    {"hang_at_call", &TidemarkLayerSettings::hang_at_call},
    {"device_lost_at", &TidemarkLayerSettings::device_lost_at},
    {"drop_draw", &TidemarkLayerSettings::drop_draw},
};

// `item` as one of kCountedSettings, read into `settings`: none when it names none of them; an
// error when it names one with no whole number from 1.
inline std::optional<std::expected<void, std::string>> parse_counted(std::string_view item,
                                                                     TidemarkLayerSettings& settings) {
  for (const CountedSetting& counted : kCountedSettings) {
    if (!item.starts_with(counted.name) || item.substr(counted.name.size(), 1) != "=") continue;
    std::string_view number = item.substr(counted.name.size() + 1);
    uint64_t& value = settings.*counted.field;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || value == 0)
      return std::expected<void, std::string>(std::unexpected(
          found(std::string("expected ").append(counted.name).append("=N with N a whole number from 1"), item)));
    return std::expected<void, std::string>();
  }
  return std::nullopt;
}

inline std::expected<TidemarkLayerSettings, std::string> parse_settings(std::string_view text) {
  TidemarkLayerSettings settings{};
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item == "hold_frees")
      settings.hold_frees = 1;
    else if (item == "never_done")
      settings.never_done = 1;
    else if (item == "shadow_copies")
      settings.shadow_copies = 1;
    else if (item == "unbuffered_events")
      settings.unbuffered_events = 1;
    else if (item == "first_device_only")
      settings.first_device_only = 1;
    else if (item == "completion=deterministic")
      settings.completion = TIDEMARK_COMPLETION_DETERMINISTIC;
    else if (item == "completion=real")
      settings.completion = TIDEMARK_COMPLETION_REAL;
    else if (auto counted = parse_counted(item, settings)) {
      if (!*counted) return std::unexpected(counted->error());
    } else if (!item.empty()) {
      return std::unexpected(
          found("expected completion=deterministic|real, hold_frees, never_done, shadow_copies, fail_allocation=N, "
                "exit_at_call=N, crash_at_call=N, hang_at_call=N, device_lost_at=N, drop_draw=N, unbuffered_events or "
                "first_device_only",
                item));
    }
  }
  return settings;
}

// The settings as parse_settings reads them: what a session hands a process of its driver's
// that has no host of its own (a renderer server's).
inline std::string format_settings(const TidemarkLayerSettings& settings) {
  std::string text = settings.completion == TIDEMARK_COMPLETION_REAL ? "completion=real" : "completion=deterministic";
  if (settings.hold_frees) text.append(",hold_frees");
  if (settings.never_done) text.append(",never_done");
  if (settings.shadow_copies) text.append(",shadow_copies");
  for (const CountedSetting& counted : kCountedSettings)
    if (uint64_t value = settings.*counted.field)
      text.append(",").append(counted.name).append("=").append(std::to_string(value));
  if (settings.unbuffered_events) text.append(",unbuffered_events");
  if (settings.first_device_only) text.append(",first_device_only");
  return text;
}

}  // namespace tidemark::layer
