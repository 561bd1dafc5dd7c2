// Integration test of the soaker's accuracy: the real soaker (live /proc and
// /sys, SCHED_IDLE threads on every CPU) while a pinned load of known duty cycle
// runs on one CPU: busy-spin for duty x period, sleep for the rest, period
// 9.73 ms (not a multiple of any HZ tick, so /proc/stat's tick sampling does not
// alias with it). The soaker's busy ratio on that CPU is compared with the truth.
//
// The truth is the load's duty cycle on a quiet machine. On a shared CI machine
// other processes also use the CPU, and the soaker rightly counts them as busy,
// so the truth used is max(load's own CPU share, /proc/stat busy of that CPU
// minus the soaker's own time): everything but the soaker that ran there.
// Both figures, and the error against the nominal duty, are printed. As the
// soaker fills every idle moment, the second figure is the kernel's account of
// the time the soaker did not get; so the test checks that the soaker got all
// the time left (/proc/stat idle ~0), that its work accounts for the time it got
// (the error is its hidden time), and that it sees at least the load's share as
// measured by the load's own CPU clock.
//
// Tolerances: see kAboveTolerance below for what was observed. Takes ~11 s.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

#include "collectors/cpu.h"
#include "collectors/host_fs.h"
#include "sources/soaker.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"
#include "window/soaker_window.h"

namespace bottleneckd::soaker_duty_test {
namespace {

// The soaker can read above the truth by its hidden time (cycles charged to it
// that its loop did not get: on a VM, mostly the host's other tenants) and below
// it only when the loop runs faster than calibrated (an idle SMT sibling, a
// calibration measured in a noisy moment).
// Observed on the 2-vCPU development VM (Firecracker, kernel 6.18, HZ 250), 22
// runs, mostly with other engineers' compilers on both CPUs: soaker busy - truth
// was +1.5..+17.0 points at 0 % (median +3.7), -3.3..+10.5 at 50 % (+2.9),
// -0.3..+2.6 at 90 % (+0.9), each time within half a point of the hidden time.
// Against the nominal duty, in runs with under 2 points of other load on the
// CPU: +2.5/+2.8 at 0 %, mean absolute 1.8 at 50 %, 0.4 at 90 %. Table in
// docs/soaker.md.
constexpr double kAboveTolerance = 0.25;  // worst seen +17.0
constexpr double kBelowTolerance = 0.10;  // worst seen -3.3
constexpr int64_t kPeriodNs = 9'730'000;
constexpr double kMeasureSeconds = 3.0;

int64_t Now(clockid_t c) {
  timespec ts{};
  clock_gettime(c, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A thread pinned to `cpu` that is busy for `duty` of each period. Bounded: it
// stops at the flag or after `max_seconds`, whichever comes first.
class DutyLoad {
 public:
  DutyLoad(int cpu, double duty, double max_seconds)
      : thread_([this, cpu, duty, max_seconds] { Run(cpu, duty, max_seconds); }) {
    while (!ready_.load()) std::this_thread::yield();
  }
  ~DutyLoad() {
    stop_.store(true);
    thread_.join();
  }
  // The load thread's CPU time so far.
  int64_t CpuNs() const { return Now(clock_); }
  bool pinned() const { return pinned_; }

 private:
  void Run(int cpu, double duty, double max_seconds) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pinned_ = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
    pthread_getcpuclockid(pthread_self(), &clock_);
    ready_.store(true);
    const int64_t busy_ns = static_cast<int64_t>(duty * kPeriodNs);
    const int64_t start = Now(CLOCK_MONOTONIC);
    const int64_t end = start + static_cast<int64_t>(max_seconds * 1e9);
    for (int64_t period = start; period < end && !stop_.load(std::memory_order_relaxed); period += kPeriodNs) {
      while (Now(CLOCK_MONOTONIC) < period + busy_ns) {
      }
      timespec next{static_cast<time_t>((period + kPeriodNs) / 1'000'000'000),
                    static_cast<long>((period + kPeriodNs) % 1'000'000'000)};
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
    }
  }

  bool pinned_ = false;  // written before ready_ is set
  clockid_t clock_{};
  std::atomic<bool> ready_{false}, stop_{false};
  std::thread thread_;
};

struct StatCpu {
  double idle_ticks = 0, busy_ticks = 0, total_ticks = 0;
};

StatCpu ReadStat(const HostFs& fs, int cpu) {
  std::string text;
  ProcStat stat;
  StatCpu out;
  if (!fs.ReadProc("stat", &text).ok() || !ParseProcStat(text, &stat).ok()) return out;
  for (const CpuTimes& t : stat.cpus) {
    if (t.cpu != cpu) continue;
    double idle = static_cast<double>(t.idle + t.iowait.value_or(0));
    out.total_ticks = static_cast<double>(t.user + t.nice + t.system + t.idle + t.iowait.value_or(0) +
                                          t.irq.value_or(0) + t.softirq.value_or(0) + t.steal.value_or(0));
    out.idle_ticks = idle;
    out.busy_ticks = out.total_ticks - idle;
  }
  return out;
}

TEST(SoakerDuty, BusyRatioTracksAKnownDutyCycle) {
  HostFs fs{HostRoots{}};
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int cpu = -1;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &allowed)) cpu = c;  // the last one
  }
  ASSERT_GE(cpu, 0);

  testing::TempDir state;
  SoakerOptions options;
  options.mode = SoakerMode::kAlways;
  options.state_dir = state.path();
  Soaker soaker(&fs, options);
  Status s = soaker.Start();
  ASSERT_OK(s);

  std::printf(
      "cpu %d; duty: nominal, load's own share, /proc/stat busy w/o soaker -> truth; "
      "soaker busy, hidden; error vs truth, vs nominal\n",
      cpu);
  for (double duty : {0.0, 0.5, 0.9}) {
    SCOPED_TRACE("duty " + std::to_string(duty));
    // A host busy with other work (a shared CI runner) can starve the load
    // itself; that measurement says nothing about the soaker, so it is taken
    // again, up to three times, and the harness check below fails only if
    // the load never got its share.
    double load_share = 0;
    for (int attempt = 1; attempt <= 3; ++attempt) {
      DutyLoad load(cpu, duty, kMeasureSeconds + 5);
      ASSERT_TRUE(load.pinned());
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // settle

      SoakerReading r1, r2;
      soaker.Read(&r1);
      StatCpu p1 = ReadStat(fs, cpu);
      int64_t l1 = load.CpuNs();
      std::this_thread::sleep_for(std::chrono::duration<double>(kMeasureSeconds));
      soaker.Read(&r2);
      StatCpu p2 = ReadStat(fs, cpu);
      int64_t l2 = load.CpuNs();

      double seconds = SoakerWindowSeconds(r1, r2);
      std::vector<SoakerCpuWindow> windows;
      ComputeSoakerWindows(r1, r2, seconds, &windows);
      const SoakerCpuWindow* w = nullptr;
      for (const SoakerCpuWindow& x : windows) {
        if (x.cpu == cpu) w = &x;
      }
      ASSERT_NE(w, nullptr);
      double elapsed_ticks = p2.total_ticks - p1.total_ticks;
      ASSERT_GT(elapsed_ticks, 0);
      double acct = BusyRatioWithoutSoaker((p2.busy_ticks - p1.busy_ticks) / elapsed_ticks, elapsed_ticks / kUserHz,
                                           w->soaker_cpu_seconds);
      double idle = (p2.idle_ticks - p1.idle_ticks) / elapsed_ticks;
      load_share = static_cast<double>(l2 - l1) / 1e9 / seconds;
      double truth = std::max(load_share, acct);
      std::printf(
          "  %3.0f %% (attempt %d): load %5.1f %%, acct %5.1f %% (idle %3.1f %%) -> truth %5.1f %%; "
          "soaker %5.1f %%, hidden %4.1f %%; error %+5.1f, %+5.1f points\n",
          duty * 100, attempt, load_share * 100, acct * 100, idle * 100, truth * 100, w->busy_ratio * 100,
          w->hidden_ratio * 100, (w->busy_ratio - truth) * 100, (w->busy_ratio - duty) * 100);
      if (load_share < duty * 0.6) continue;  // the load was starved: measure again
      EXPECT_LE(w->busy_ratio, truth + kAboveTolerance);
      EXPECT_GE(w->busy_ratio, truth - kBelowTolerance);
      // The soaker sees at least the known load (the load's own clock, not the
      // soaker's nor /proc/stat's): busy >= load share, less a little for a CPU
      // that runs the loop faster than calibrated.
      EXPECT_GE(w->busy_ratio, load_share - 0.05);
      // The soaker soaked up the idle time (else it would not measure idle).
      EXPECT_LE(idle, 0.05);
      break;
    }
    // The load did run (the harness itself works): at least 60 % of what was asked.
    EXPECT_GE(load_share, duty * 0.6);
  }
  soaker.Stop();
}

}  // namespace
}  // namespace bottleneckd::soaker_duty_test
