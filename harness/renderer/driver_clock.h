// The clock a driver's client reads while a session of a build with a server is open. Mesa's virgl
// winsys expires the resources it keeps for reuse by CLOCK_MONOTONIC, so what it reused depended on
// how fast the run went. While a DriverClock lives, clock_gettime() called from Mesa's driver
// library reads a clock that advances a fixed step a reading: the same reuse on every run and in
// every lane. Every other caller reads the real clock (driver_clock_interposer.cpp).
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>
#include <string_view>

namespace tidemark::renderer {

class DriverClock {
 public:
  // Near the pace of real runs here: 200 respecifies of 1 MiB read Mesa's clock 403 times in
  // about 1.6 s (4 ms a reading), 3 000 small ones 6 003 times in about 1.3 s (0.2 ms).
  static constexpr std::chrono::nanoseconds kStep = std::chrono::milliseconds(1);

  explicit DriverClock(std::chrono::nanoseconds step = kStep);
  ~DriverClock();
  DriverClock(const DriverClock&) = delete;
  DriverClock& operator=(const DriverClock&) = delete;
  // Readings the driver made of its clock so far.
  uint64_t readings() const;
};

// The library, beside the layer, that gives a client in a process of its own the driver's clock,
// and the variable (nanoseconds a reading) that starts it there.
inline constexpr std::string_view kDriverClockLibrary = "libtidemark_driver_clock.so";
inline constexpr std::string_view kDriverClockStep = "TIDEMARK_DRIVER_CLOCK_STEP_NS";

// For the interposed clock_gettime: fills `time` and returns true when a DriverClock lives, the
// clock is a monotonic one and `caller` is in the driver's library.
bool read_driver_clock(clockid_t clock, const void* caller, timespec* time);

}  // namespace tidemark::renderer
