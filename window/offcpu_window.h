// offcpu windows: each followed target thread's measured waits between two
// OffCpuReadings (sources/offcpu.h), as shares of the window per wait site.
// Pure arithmetic, no I/O.
//
//   site ratio = d ns at the site / window
//
// A thread whose stacks were walked for a random share of its periods
// (OffCpuSite::sampled): each sampled site's time is scaled by all its
// off-CPU time over the sampled periods' time (and its periods likewise), so
// the ratios still sum to its time off the CPU; a window with time but no
// period walked has one site "" holding it.
//
// `window` is the readings' own clock (b.mono_ns - a.mono_ns). A thread counts
// only when both readings followed it; a site whose total went down (the
// program reloaded) makes the thread's waits unknown for the window.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sources/offcpu.h"

namespace bottleneckd {

struct WaitSiteWindow {
  std::string where;  // "hrtimer_nanosleep (clock_nanosleep)"; "" unknown
  bool involuntary = false;
  double ratio = 0;               // of the window, in [0, 1]
  double periods_per_second = 0;  // periods that ended in the window
};

// The sites of thread `tid` between a and b, largest ratio first, sites
// under 0.1 % of the window left out; nullopt when the window does not
// measure the thread (not followed by both readings, a different program
// load, a total that went down, b not after a).
std::optional<std::vector<WaitSiteWindow>> ComputeThreadWaits(const OffCpuReading& a, const OffCpuReading& b, int tid);

}  // namespace bottleneckd
