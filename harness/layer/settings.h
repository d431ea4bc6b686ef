// The layer's settings as text, for a process without a host (TIDEMARK_LAYER_SETTINGS, and
// `tidemark observe --fault/--completion` checking them before it starts anything):
// comma-separated "completion=deterministic|real", "hold_frees", "never_done", "shadow_copies",
// "fail_allocation=N", "exit_at_call=N", "crash_at_call=N", "hang_at_call=N", "device_lost_at=N"
// (the device's Nth vkQueueSubmit, vkQueueSubmit2, vkWaitForFences, vkQueueWaitIdle or
// vkDeviceWaitIdle and every submit, wait and poll after it answer VK_ERROR_DEVICE_LOST),
// "drop_draw=N", "unbuffered_events", "first_device_only". Header-only: both the layer and the CLI build it.
#pragma once

#include <charconv>
#include <expected>
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
    else if (item.starts_with("exit_at_call=")) {
      std::string_view number = item.substr(13);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.exit_at_call);
      if (error != std::errc() || end != number.data() + number.size() || settings.exit_at_call == 0)
        return std::unexpected(found("expected exit_at_call=N with N a whole number from 1", item));
    } else if (item.starts_with("crash_at_call=")) {
      std::string_view number = item.substr(14);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.crash_at_call);
      if (error != std::errc() || end != number.data() + number.size() || settings.crash_at_call == 0)
        return std::unexpected(found("expected crash_at_call=N with N a whole number from 1", item));
    } else if (item.starts_with("hang_at_call=")) {
      std::string_view number = item.substr(13);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.hang_at_call);
      if (error != std::errc() || end != number.data() + number.size() || settings.hang_at_call == 0)
        return std::unexpected(found("expected hang_at_call=N with N a whole number from 1", item));
    } else if (item.starts_with("device_lost_at=")) {
      std::string_view number = item.substr(15);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.device_lost_at);
      if (error != std::errc() || end != number.data() + number.size() || settings.device_lost_at == 0)
        return std::unexpected(found("expected device_lost_at=N with N a whole number from 1", item));
    } else if (item.starts_with("drop_draw=")) {
      std::string_view number = item.substr(10);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.drop_draw);
      if (error != std::errc() || end != number.data() + number.size() || settings.drop_draw == 0)
        return std::unexpected(found("expected drop_draw=N with N a whole number from 1", item));
    } else if (item.starts_with("fail_allocation=")) {
      std::string_view number = item.substr(16);
      auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), settings.fail_allocation);
      if (error != std::errc() || end != number.data() + number.size() || settings.fail_allocation == 0)
        return std::unexpected(found("expected fail_allocation=N with N a whole number from 1", item));
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
  if (settings.fail_allocation) text.append(",fail_allocation=").append(std::to_string(settings.fail_allocation));
  if (settings.exit_at_call) text.append(",exit_at_call=").append(std::to_string(settings.exit_at_call));
  if (settings.crash_at_call) text.append(",crash_at_call=").append(std::to_string(settings.crash_at_call));
  if (settings.hang_at_call) text.append(",hang_at_call=").append(std::to_string(settings.hang_at_call));
  if (settings.device_lost_at) text.append(",device_lost_at=").append(std::to_string(settings.device_lost_at));
  if (settings.drop_draw) text.append(",drop_draw=").append(std::to_string(settings.drop_draw));
  if (settings.unbuffered_events) text.append(",unbuffered_events");
  if (settings.first_device_only) text.append(",first_device_only");
  return text;
}

}  // namespace tidemark::layer
