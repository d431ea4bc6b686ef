// tidemark-driver-clock-probe: three monotonic readings made from a library in a dri/ folder (the
// driver's, to the clock's interposer) and one made by the program itself, printed as
// "driver: A B C; own: D" in nanoseconds. With libtidemark_driver_clock.so preloaded and its step
// named, the driver's are the driver clock's (1 s, then a step a reading) and the program's the
// real clock's.
#include <time.h>

#include <cstdint>
#include <cstdio>

extern "C" int64_t probe_driver_monotonic_ns();

int main() {
  const int64_t first = probe_driver_monotonic_ns();
  const int64_t second = probe_driver_monotonic_ns();
  const int64_t third = probe_driver_monotonic_ns();
  timespec own{};
  ::clock_gettime(CLOCK_MONOTONIC, &own);
  std::printf("driver: %lld %lld %lld; own: %lld\n", static_cast<long long>(first), static_cast<long long>(second),
              static_cast<long long>(third),
              static_cast<long long>(static_cast<int64_t>(own.tv_sec) * 1000000000 + own.tv_nsec));
  return 0;
}
