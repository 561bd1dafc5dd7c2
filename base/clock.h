// The clocks, read in one place. Every timestamp in a Sample, a capture
// reading or the soaker is one of these, in nanoseconds.
#pragma once

#include <time.h>

#include <cstdint>
#include <string>

namespace bottleneckd {

// clock_gettime(clock) in nanoseconds; -1 when the clock cannot be read
// (a CPU-time clock of a thread that has exited).
int64_t ClockNanos(clockid_t clock);

// CLOCK_MONOTONIC: windows, schedules, ages.
int64_t MonotonicNanos();
// CLOCK_REALTIME: for display and run times only.
int64_t WallNanos();
// Seconds since the Unix epoch (CLOCK_REALTIME), as runs store their start and end.
double WallSeconds();
// Whole seconds since the Unix epoch (CLOCK_REALTIME), for stored timestamps.
int64_t UnixSeconds();
// Unix seconds as UTC "2026-12-01T22:05:17Z" (whole seconds), for messages.
std::string FormatUtc(double unix_seconds);

}  // namespace bottleneckd
