// clock_gettime as the driver's client in tidemark and tidemark-server reads it (driver_clock.h):
// exported from the executable, so Mesa's driver library binds to it before libc's.
#include <dlfcn.h>
#include <time.h>

#include "servers/driver_clock.h"

extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t clock, timespec* time) {
  using ClockGettime = int (*)(clockid_t, timespec*);
  static const ClockGettime next = reinterpret_cast<ClockGettime>(::dlsym(RTLD_NEXT, "clock_gettime"));
  if (tidemark::servers::read_driver_clock(clock, __builtin_return_address(0), time)) return 0;
  return next(clock, time);
}
