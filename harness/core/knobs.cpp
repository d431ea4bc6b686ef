#include "core/knobs.h"

#include <fmt/format.h>

namespace tidemark {

const std::vector<KnobSpec>& known_knobs() {
  static const std::vector<KnobSpec> knobs = {
      {"wire_deferred_mb", 0, 65536, 64,
       "parked-byte watermark in MiB; 0 turns both watermarks off (a negative control)"},
      {"retire_lag", 0, 1000000, 0, "after each submit, wait for the submit this many submits earlier; 0 = off"},
      {"layer_fail_allocation", 0, 1000000000, 0,
       "with the layer on: its Nth vkAllocateMemory returns VK_ERROR_OUT_OF_DEVICE_MEMORY; 0 = off"},
      {"layer_exit_at_call", 0, 1000000000, 0,
       "on a build with a server: its renderer ends (exit status 70) at the layer's Nth intercepted call beneath it, a "
       "server that dies mid-run; 0 = off"},
      {"layer_crash_at_call", 0, 1000000000, 0,
       "with the layer on: SIGSEGV is raised beneath its Nth intercepted call on a device, in the process whose driver "
       "it is "
       "beneath (Tidemark's, its lane's server or a build's renderer server), a driver that crashes; 0 = off"},
      {"layer_device_lost_at", 0, 1000000000, 0,
       "with the layer on: its device's Nth submit or wait (vkQueueSubmit, vkQueueSubmit2, vkWaitForFences, "
       "vkQueueWaitIdle, vkDeviceWaitIdle) and every submit, wait and poll after it answer VK_ERROR_DEVICE_LOST, a "
       "device that is lost; 0 = off"},
      {"layer_hang_at_call", 0, 1000000000, 0,
       "with the layer on: its Nth intercepted call on a device never returns, in the process whose driver it is "
       "beneath, a driver that hangs (the run's time limits end it: a timeout verdict); 0 = off"},
      {"layer_drop_draw", 0, 1000000000, 0,
       "with the layer on: the Nth draw command a device records (vkCmdDraw*) never reaches its driver, in-process "
       "or in a renderer server, a driver that loses a draw (what it draws changes); 0 = off"},
      {"layer_faults_first_device", 0, 1, 0,
       "with the layer on, 1: the layer's faults strike the first device a process makes only, a driver that fails "
       "cold and then works (a flake: `run --retry` tries it again in the same process)"},
      {"layer_never_done", 0, 1, 0,
       "with the layer on, 1: polls never show work done, only a blocking wait shows what it waited on (a client "
       "that reclaims by polling never does; the built-in backend never polls)"},
      {"gl_drop_draw", 0, 1000000000, 0,
       "on a gl backend: its Nth draw (glDrawArraysInstanced) never reaches the GL driver, a driver that loses a "
       "draw at its API, where no layer reaches (llvmpipe's GL has no Vulkan beneath it); 0 = off"},
  };
  return knobs;
}

std::string KnobSpec::expected() const { return fmt::format("{} in {}..{}", name, min, max); }

const KnobSpec* find_knob(std::string_view name) {
  for (const auto& knob : known_knobs())
    if (knob.name == name) return &knob;
  return nullptr;
}

Result<KnobValues> resolve_knobs(const std::vector<KnobLayer>& layers) {
  KnobValues knobs;
  for (const auto& spec : known_knobs()) knobs[spec.name] = spec.default_value;
  for (const auto& [layer, source] : layers) {
    for (const auto& [name, value] : *layer) {
      const KnobSpec* spec = find_knob(name);
      if (!spec) return fail(ErrorKind::BadInput, fmt::format("{}: unknown knob '{}'", source, name));
      if (!spec->accepts(value))
        return fail(ErrorKind::BadInput, fmt::format("{}: expected {}, found {}", source, spec->expected(), value));
      knobs[name] = value;
    }
  }
  return knobs;
}

}  // namespace tidemark
