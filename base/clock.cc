#include "base/clock.h"

namespace bottleneckd {

int64_t ClockNanos(clockid_t clock) {
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int64_t MonotonicNanos() { return ClockNanos(CLOCK_MONOTONIC); }
int64_t WallNanos() { return ClockNanos(CLOCK_REALTIME); }
double WallSeconds() { return static_cast<double>(WallNanos()) / 1e9; }
int64_t UnixSeconds() { return WallNanos() / 1'000'000'000; }

}  // namespace bottleneckd
