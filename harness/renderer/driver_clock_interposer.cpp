// clock_gettime as the driver's client in tidemark and tidemark-server reads it (driver_clock.h):
// exported from the executable, so Mesa's driver library binds to it before libc's. By hand: no
// library offers a per-caller virtual clock, and a preloaded faketime would move every clock of the
// process the driver shares with Tidemark. A client in a process of its own preloads this
// (kDriverClockLibrary), its clock started at load when kDriverClockStep names a step.
#include <dlfcn.h>
#include <time.h>

#include "renderer/driver_clock.h"

extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t clock, timespec* time) {
  using ClockGettime = int (*)(clockid_t, timespec*);
  static const ClockGettime next = reinterpret_cast<ClockGettime>(::dlsym(RTLD_NEXT, "clock_gettime"));
  if (tidemark::renderer::read_driver_clock(clock, __builtin_return_address(0), time)) return 0;
  return next(clock, time);
}
