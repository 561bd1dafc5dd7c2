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
// A site's total is its wakers' sum: a period under way at a reading counts
// with no waker, and with its waker once it ended, so only the sum is
// compared between the readings; a waker's part that went down (that period)
// is none.
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

// Who ended a site's waits in the window (OffCpuSite::waker): a thread, a
// hardware interrupt or an idle CPU (tid kWokenByInterrupt), threads past
// the waiter's named ones (kOtherWaker), or nobody seen (kNoWaker).
struct WakerShare {
  int tid = kNoWaker;
  int pid = 0;           // the waker's process; 0 unknown
  std::string name;      // its thread name; "" unknown
  double ratio = 0;      // of the site's time in the window, in [0, 1]
  bool softirq = false;  // raised in a softirq in its context (OffCpuSite::waker_softirq)
};

struct WaitSiteWindow {
  std::string where;  // "hrtimer_nanosleep (clock_nanosleep)"; "" unknown
  bool involuntary = false;
  double ratio = 0;               // of the window, in [0, 1]
  double periods_per_second = 0;  // periods that ended in the window
  // Its time by waker, largest first (shares under 1 % left out), of the
  // time whose waker is known: a period still under way at the window's end
  // (kWakerNotYet) is no one's share, and its waker's when it ends.
  std::vector<WakerShare> wakers{};
};

// Whether reading r followed thread tid.
bool Follows(const OffCpuReading& r, int tid);

struct ThreadWindow;  // window/window.h

// offcpu times a wait from the thread's switch away: a thread asleep since
// before it was followed has no period until that wait ends, so the window
// measures none of it while schedstat has the thread waiting. A server
// stuck on a backend that stopped answering before the daemon started is
// such a thread (a live run, 2026-12-07: waiting 100.0 % of every window,
// measured 0, the evidence "no wait of its own this window" and the run
// `undetermined`, where the sampled places, the daemon's without eBPF,
// named the peer and gave `wait`). The share of the window its measured own
// waits (not preemptions) cover when that is under half of its waiting
// (the two clocks differ by a few points: docs/offcpu.md "Two clocks") and
// leaves at least a fifth of the window unmeasured: the window's places are
// then the sampled ones (analysis/signals.cc), and the rest is drawn as its
// sampled place (offcpu_stacks.h). nullopt otherwise, and when the window
// does not measure the thread.
std::optional<double> MeasuredMissed(const ThreadWindow& t);
inline constexpr double kMeasuredCoverMin = 0.5;
inline constexpr double kUnmeasuredWaitMin = 0.2;

// The sites of thread `tid` between a and b, largest ratio first, sites
// under 0.1 % of the window left out; nullopt when the window does not
// measure the thread (not followed by both readings, a different program
// load, a total that went down, b not after a).
std::optional<std::vector<WaitSiteWindow>> ComputeThreadWaits(const OffCpuReading& a, const OffCpuReading& b, int tid);

}  // namespace bottleneckd
