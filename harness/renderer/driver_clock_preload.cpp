// libtidemark_driver_clock.so's start: preloaded into a driver's client in a process of its own
// (a capture's replayer on a build with a server), with kDriverClockStep naming the step, the
// driver's clock (driver_clock.h) is started as the library loads and lives as long as the
// process. Without the variable the library changes nothing.
#include <cstdlib>
#include <memory>
#include <string>

#include "renderer/driver_clock.h"

namespace {

std::unique_ptr<tidemark::renderer::DriverClock> started_from_environment() {
  const char* step = std::getenv(std::string(tidemark::renderer::kDriverClockStep).c_str());
  if (step == nullptr || *step == '\0') return nullptr;
  char* end = nullptr;
  const long long nanoseconds = std::strtoll(step, &end, 10);
  if (*end != '\0' || nanoseconds <= 0) return nullptr;  // not a step: the real clock, as without it
  return std::make_unique<tidemark::renderer::DriverClock>(std::chrono::nanoseconds(nanoseconds));
}

const std::unique_ptr<tidemark::renderer::DriverClock> g_clock = started_from_environment();

}  // namespace
