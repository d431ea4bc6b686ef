// A stand-in for Mesa's driver library in the driver clock's test: built into a dri/ folder, as
// Mesa's are, so that the clock's interposer takes its monotonic readings for the driver's.
#include <time.h>

#include <cstdint>

extern "C" __attribute__((visibility("default"))) int64_t probe_driver_monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}
