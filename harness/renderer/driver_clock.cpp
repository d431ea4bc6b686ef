#include "renderer/driver_clock.h"

#include <dlfcn.h>
#include <time.h>

#include <atomic>
#include <string_view>

namespace {

std::atomic<bool> g_active{false};
std::atomic<int64_t> g_step_ns{0};
std::atomic<int64_t> g_now_ns{0};
std::atomic<uint64_t> g_readings{0};

// Whether code at `address` is in Mesa's driver library.
bool in_driver(const void* address) {
  Dl_info info{};
  if (::dladdr(address, &info) == 0 || info.dli_fname == nullptr) return false;
  const std::string_view path(info.dli_fname);
  const std::string_view name = path.substr(path.rfind('/') + 1);
  return path.find("/dri/") != std::string_view::npos || name.starts_with("libgallium");
}

}  // namespace

namespace tidemark::renderer {

DriverClock::DriverClock(std::chrono::nanoseconds step) {
  g_step_ns.store(step.count(), std::memory_order_relaxed);
  g_now_ns.store(1000000000, std::memory_order_relaxed);  // from 1 s: a reading of 0 reads as "never"
  g_readings.store(0, std::memory_order_relaxed);
  g_active.store(true, std::memory_order_release);
}

DriverClock::~DriverClock() { g_active.store(false, std::memory_order_release); }

uint64_t DriverClock::readings() const { return g_readings.load(std::memory_order_relaxed); }

bool read_driver_clock(clockid_t clock, const void* caller, timespec* time) {
  const bool monotonic = clock == CLOCK_MONOTONIC || clock == CLOCK_MONOTONIC_RAW || clock == CLOCK_MONOTONIC_COARSE;
  if (!g_active.load(std::memory_order_acquire) || !monotonic || time == nullptr || !in_driver(caller)) return false;
  g_readings.fetch_add(1, std::memory_order_relaxed);
  const int64_t now = g_now_ns.fetch_add(g_step_ns.load(std::memory_order_relaxed), std::memory_order_relaxed);
  time->tv_sec = static_cast<time_t>(now / 1000000000);
  time->tv_nsec = static_cast<long>(now % 1000000000);
  return true;
}

}  // namespace tidemark::renderer
