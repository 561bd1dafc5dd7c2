// Kernel units, converted to base units here and nowhere else. Readings keep
// the kernel's own integers (a Sample is never derived); windows and metrics
// convert with these when they turn counts into seconds.
#pragma once

#include <cstdint>

namespace bottleneckd {

// USER_HZ: the unit of /proc/stat CPU times and of utime/stime in
// /proc/PID/stat (clock_t ticks; sysconf(_SC_CLK_TCK)). Fixed at 100 by
// the Linux ABI on every architecture, whatever the kernel's CONFIG_HZ.
inline constexpr double kUserHz = 100.0;

// USER_HZ ticks to seconds.
inline constexpr double TicksToSeconds(uint64_t ticks) { return static_cast<double>(ticks) / kUserHz; }
inline constexpr double TicksToSeconds(double ticks) { return ticks / kUserHz; }

// Microseconds (PSI's total= in /proc/pressure/*) to seconds.
inline constexpr double MicrosToSeconds(uint64_t us) { return static_cast<double>(us) / 1e6; }

}  // namespace bottleneckd
