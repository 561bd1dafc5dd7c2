#include "base/clock.h"

#include <ctime>

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

std::string FormatUtc(double unix_seconds) {
  time_t secs = static_cast<time_t>(unix_seconds);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char b[32];
  std::strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

}  // namespace bottleneckd
