// The daemon's background calibration of the soaker on this host (the real
// /proc, real threads): its spin is the daemon's own, never the host's busy
// time. The first windows after a daemon's first start named a calibrated
// CPU saturated ("cpu cpu0", both CPUs 100 % accounting busy while the host
// was idle), and lab.echo's light run, started then, walked the stacks of the
// lab's shell tools on the CPU they named.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "analysis/snapshot.h"
#include "daemon/daemon.h"
#include "tests/support/test_util.h"

namespace bottleneckd::background_calibration_test {
namespace {

using testing::TempDir;

// /proc/stat busy of `cpu` between two samples, as the test reads it:
// everything but idle and iowait, of all the CPU's ticks.
bool RawBusy(const Sample& a, const Sample& b, int cpu, double* busy) {
  if (!a.stat || !b.stat) return false;
  auto find = [cpu](const ProcStat& s) -> const CpuTimes* {
    for (const CpuTimes& c : s.cpus)
      if (c.cpu == cpu) return &c;
    return nullptr;
  };
  const CpuTimes *x = find(*a.stat), *y = find(*b.stat);
  if (!x || !y) return false;
  auto total = [](const CpuTimes& c) {
    return c.user + c.nice + c.system + c.idle + c.iowait.value_or(0) + c.irq.value_or(0) + c.softirq.value_or(0) +
           c.steal.value_or(0);
  };
  const double all = static_cast<double>(total(*y) - total(*x));
  const double idle = static_cast<double>((y->idle + y->iowait.value_or(0)) - (x->idle + x->iowait.value_or(0)));
  if (!(all > 0)) return false;
  *busy = 1 - idle / all;
  return true;
}

const SoakerCpu* Calibrated(const SoakerReading& r, int cpu) {
  for (const SoakerCpu& c : r.cpus)
    if (c.cpu == cpu) return &c;
  return nullptr;
}

TEST(DaemonBackgroundCalibration, TheCalibrationsSpinIsTakenOutOfEachCpusBusyTime) {
  TempDir state;
  Config c;  // the live host's /proc and /sys
  c.state_dir = state.path();
  c.soaker.mode = SoakerMode::kAlways;
  c.soaker.state_dir = state.path();
  c.soaker.calibration_seconds = 1.5;  // of CPU time per CPU: windows to look at
  c.irqtime.mode = IrqTimeMode::kOff;
  c.profile.mode = ProfileMode::kOff;
  SnapshotStore store;
  Daemon d(c, &store);
  d.CalibrateSoakerInBackground();
  d.Tick();
  int spun = 0;  // windows in which the calibration took a third of a CPU or more
  for (int tick = 0; tick < 40; ++tick) {
    std::shared_ptr<const Snapshot> prev = store.Latest();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    d.Tick();
    std::shared_ptr<const Snapshot> snap = store.Latest();
    ASSERT_TRUE(snap->sample.soaker) << "tick " << tick << ": no soaker reading while it calibrates";
    if (snap->sample.soaker->running) break;  // calibrated; the soaker runs
    ASSERT_TRUE(prev->sample.soaker);
    ASSERT_TRUE(snap->window);
    for (const CpuWindow& w : snap->window->cpus) {
      const SoakerCpu* a = Calibrated(*prev->sample.soaker, w.cpu);
      const SoakerCpu* b = Calibrated(*snap->sample.soaker, w.cpu);
      double raw = 0;
      if (!a || !b || !RawBusy(prev->sample, snap->sample, w.cpu, &raw) || !(w.elapsed_seconds > 0)) continue;
      ASSERT_GE(b->calibration_cpu_ns, a->calibration_cpu_ns);
      const double share = static_cast<double>(b->calibration_cpu_ns - a->calibration_cpu_ns) / 1e9 / w.elapsed_seconds;
      if (share >= 1.0 / 3) ++spun;
      // /proc/stat counts ticks (one in 100-250 a second): a tenth of
      // slack for where a window's edges fall between two of them.
      EXPECT_LE(w.busy_ratio, std::max(0.0, raw - share) + 0.1)
          << "cpu" << w.cpu << ": busy " << w.busy_ratio << ", /proc/stat " << raw << ", calibration " << share;
    }
  }
  EXPECT_GE(spun, 1) << "no window saw the calibration take a third of a CPU";
}

}  // namespace
}  // namespace bottleneckd::background_calibration_test
