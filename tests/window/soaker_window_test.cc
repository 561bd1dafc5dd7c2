// The soaker window arithmetic on hand-built counters (no threads, no clocks):
// delivered idle, busy and hidden time, restarts, CPUs that come and go,
// empty windows, counters going backwards and a calibration that changes.
#include "window/soaker_window.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace bottleneckd::soaker_window_test {
namespace {

constexpr uint64_t kSec = 1'000'000'000;

SoakerCpu At(int cpu, uint64_t iterations, uint64_t cpu_ns, double rate, uint64_t generation = 1) {
  SoakerCpu c;
  c.cpu = cpu;
  c.iterations = iterations;
  c.thread_cpu_ns = cpu_ns;
  c.iterations_per_second = rate;
  c.generation = generation;
  return c;
}

TEST(ComputeSoakerCpuWindow, HalfIdleWithHiddenTime) {
  // 1e6 units/s calibrated; over 2 s the soaker did 1e6 units (1 s of work)
  // while the kernel charged it 1.2 s: idle 1/2, busy 1/2, hidden 0.2 s / 2 s.
  SoakerCpu a = At(3, 5'000'000, 10 * kSec, 1e6), b = At(3, 6'000'000, 11 * kSec + kSec / 5, 1e6);
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(a, b, 2.0, &w));
  EXPECT_EQ(w.cpu, 3);
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 0.5);
  EXPECT_DOUBLE_EQ(w.delivered_idle_unclamped, 0.5);
  EXPECT_DOUBLE_EQ(w.busy_ratio, 0.5);
  EXPECT_DOUBLE_EQ(w.soaker_cpu_seconds, 1.2);
  EXPECT_NEAR(w.hidden_ratio, 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(w.iterations_per_second, 1e6);
}

TEST(ComputeSoakerCpuWindow, IdleCpu) {
  // 2e6 units in 2 s at 1e6/s, charged exactly 2 s: all idle, nothing hidden.
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(0, 0, 0, 1e6), At(0, 2'000'000, 2 * kSec, 1e6), 2.0, &w));
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 1.0);
  EXPECT_DOUBLE_EQ(w.busy_ratio, 0.0);
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 0.0);
}

TEST(ComputeSoakerCpuWindow, SaturatedCpu) {
  // The soaker never ran: busy 1, no soaker time, nothing hidden.
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(1, 700, 9 * kSec, 1e6), At(1, 700, 9 * kSec, 1e6), 1.0, &w));
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 0.0);
  EXPECT_DOUBLE_EQ(w.busy_ratio, 1.0);
  EXPECT_DOUBLE_EQ(w.soaker_cpu_seconds, 0.0);
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 0.0);
}

TEST(ComputeSoakerCpuWindow, FasterThanCalibratedIsClamped) {
  // 1.1e6 units in 1 s at a calibrated 1e6/s (turbo, idle SMT sibling): the
  // unclamped ratio says 1.1, the ratio says 1; the work (1.1 s) exceeds the
  // 1 s charged, which is no hidden time rather than negative hidden time.
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(0, 0, 0, 1e6), At(0, 1'100'000, kSec, 1e6), 1.0, &w));
  EXPECT_DOUBLE_EQ(w.delivered_idle_unclamped, 1.1);
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 1.0);
  EXPECT_DOUBLE_EQ(w.busy_ratio, 0.0);
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 0.0);
}

TEST(ComputeSoakerCpuWindow, HiddenIsClampedToOne) {
  // Charged 1.5 s in a 1 s window (readings skewed): hidden stays at 1, the
  // raw CPU seconds are kept.
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(0, 0, 0, 1e6), At(0, 0, kSec + kSec / 2, 1e6), 1.0, &w));
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 1.0);
  EXPECT_DOUBLE_EQ(w.soaker_cpu_seconds, 1.5);
}

TEST(ComputeSoakerCpuWindow, CalibrationDriftUsesTheLaterRate) {
  // Recalibrated during the window from 1e6/s to 2e6/s; 1e6 units in 1 s is
  // half idle at the later rate (it would be fully idle at the earlier one).
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(0, 0, 0, 1e6), At(0, 1'000'000, kSec, 2e6), 1.0, &w));
  EXPECT_DOUBLE_EQ(w.iterations_per_second, 2e6);
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 0.5);
  EXPECT_DOUBLE_EQ(w.busy_ratio, 0.5);
  // 1 s charged, 0.5 s of work at the new rate.
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 0.5);
}

TEST(ComputeSoakerCpuWindow, RejectsWindowsWithoutMeaning) {
  const SoakerCpuWindow sentinel = [] {
    SoakerCpuWindow s;
    s.cpu = 77;
    s.busy_ratio = 0.25;
    return s;
  }();
  struct Case {
    const char* name;
    SoakerCpu a, b;
    double seconds;
  } cases[] = {
      {"thread restarted (generation)", At(0, 100, 100, 1e6, 1), At(0, 200, 200, 1e6, 2), 1.0},
      {"different cpus", At(0, 100, 100, 1e6), At(1, 200, 200, 1e6), 1.0},
      {"zero-length window", At(0, 100, 100, 1e6), At(0, 200, 200, 1e6), 0.0},
      {"negative window", At(0, 100, 100, 1e6), At(0, 200, 200, 1e6), -1.0},
      {"NaN window", At(0, 100, 100, 1e6), At(0, 200, 200, 1e6), std::numeric_limits<double>::quiet_NaN()},
      {"uncalibrated", At(0, 100, 100, 1e6), At(0, 200, 200, 0.0), 1.0},
      {"negative rate", At(0, 100, 100, 1e6), At(0, 200, 200, -5.0), 1.0},
      {"infinite rate", At(0, 100, 100, 1e6), At(0, 200, 200, std::numeric_limits<double>::infinity()), 1.0},
      {"iterations backwards", At(0, 200, 100, 1e6), At(0, 199, 200, 1e6), 1.0},
      {"cpu time backwards", At(0, 100, 200, 1e6), At(0, 200, 199, 1e6), 1.0},
      {"u64 max to 0 (no wrap: a 64-bit unit count never wraps)", At(0, UINT64_MAX, 100, 1e6), At(0, 0, 200, 1e6), 1.0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SoakerCpuWindow w = sentinel;
    EXPECT_FALSE(ComputeSoakerCpuWindow(c.a, c.b, c.seconds, &w));
    EXPECT_EQ(w.cpu, 77);
    EXPECT_EQ(w.busy_ratio, 0.25);
  }
}

TEST(ComputeSoakerCpuWindow, LargeCountersNearU64Max) {
  // Counters high up (a long-running thread) still difference exactly.
  const uint64_t units = UINT64_MAX - 300'000, ns = UINT64_MAX - 2 * kSec;
  SoakerCpuWindow w;
  ASSERT_TRUE(ComputeSoakerCpuWindow(At(0, units, ns, 1e6), At(0, units + 250'000, ns + kSec, 1e6), 1.0, &w));
  EXPECT_DOUBLE_EQ(w.delivered_idle_ratio, 0.25);
  EXPECT_DOUBLE_EQ(w.hidden_ratio, 0.75);
}

TEST(ComputeSoakerWindows, MatchesCpusAndLeavesOutChanges) {
  SoakerReading a, b;
  // cpu1 goes offline mid-window (only in a), cpu3 comes online (only in b),
  // cpu2's thread was restarted (generation 5 -> 9).
  a.cpus = {At(0, 0, 0, 1e6), At(1, 0, 0, 1e6), At(2, 0, 0, 1e6, 5)};
  b.cpus = {At(0, 250'000, kSec / 2, 1e6), At(2, 10, 10, 1e6, 9), At(3, 10, 10, 1e6)};
  std::vector<SoakerCpuWindow> out(4);  // replaced, not appended to
  ComputeSoakerWindows(a, b, 1.0, &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cpu, 0);
  EXPECT_DOUBLE_EQ(out[0].delivered_idle_ratio, 0.25);
  EXPECT_DOUBLE_EQ(out[0].busy_ratio, 0.75);
  EXPECT_DOUBLE_EQ(out[0].hidden_ratio, 0.25);
}

TEST(ComputeSoakerWindows, EveryCpuInOrder) {
  SoakerReading a, b;
  a.cpus = {At(0, 0, 0, 1e6), At(1, 0, 0, 2e6), At(5, 0, 0, 1e6)};
  b.cpus = {At(0, 1'000'000, kSec, 1e6), At(1, 500'000, kSec, 2e6), At(5, 0, 0, 1e6)};
  std::vector<SoakerCpuWindow> out;
  ComputeSoakerWindows(a, b, 1.0, &out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].cpu, 0);
  EXPECT_DOUBLE_EQ(out[0].busy_ratio, 0.0);
  EXPECT_EQ(out[1].cpu, 1);
  EXPECT_DOUBLE_EQ(out[1].busy_ratio, 0.75);  // 5e5 units at 2e6/s = 0.25 s of work
  EXPECT_DOUBLE_EQ(out[1].hidden_ratio, 0.75);
  EXPECT_EQ(out[2].cpu, 5);
  EXPECT_DOUBLE_EQ(out[2].busy_ratio, 1.0);
}

TEST(ComputeSoakerWindows, EmptyReadings) {
  SoakerReading a, b;
  b.cpus = {At(0, 1, 1, 1e6)};
  std::vector<SoakerCpuWindow> out(2);
  ComputeSoakerWindows(a, b, 1.0, &out);
  EXPECT_TRUE(out.empty());
  ComputeSoakerWindows(b, a, 1.0, &out);
  EXPECT_TRUE(out.empty());
}

// The soaker's own time is known wherever its thread ran, calibrated or not:
// cpu0 uncalibrated (rate 0, no window above), cpu2 restarted (counted from
// the new thread's start), cpu4's counter backwards (left out), cpu1 and cpu3
// in one reading only.
TEST(ComputeSoakerCpuSeconds, EveryCpuTheThreadRanOn) {
  SoakerReading a, b;
  a.cpus = {At(0, 0, kSec, 0), At(1, 0, 0, 1e6), At(2, 0, 5 * kSec, 1e6, 5), At(4, 0, 3 * kSec, 1e6)};
  b.cpus = {At(0, 0, kSec + 900'000'000, 0), At(2, 10, kSec / 4, 1e6, 9), At(3, 10, 10, 1e6), At(4, 0, 2 * kSec, 1e6)};
  std::vector<SoakerCpuWindow> windows;
  ComputeSoakerWindows(a, b, 1.0, &windows);
  EXPECT_TRUE(windows.empty());          // no delivered idle for any of them
  std::vector<SoakerCpuSeconds> out(3);  // replaced, not appended to
  ComputeSoakerCpuSeconds(a, b, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].cpu, 0);
  EXPECT_DOUBLE_EQ(out[0].seconds, 0.9);
  EXPECT_EQ(out[1].cpu, 2);
  EXPECT_DOUBLE_EQ(out[1].seconds, 0.25);
}

// The daemon's own calibration spins each CPU at normal priority: its time
// is the soaker's (taken out of accounting busy, like the loop's), and
// where the loop runs it counts as delivered idle (the loop ran less).
// Before the soaker runs, a reading has only the calibration's time (the
// first windows after start named a calibrated CPU saturated).
TEST(ComputeSoakerCpuSeconds, TheCalibrationsTimeIsTheSoakers) {
  SoakerReading a, b;
  a.calibration_generation = b.calibration_generation = 7;
  a.cpus = {At(0, 0, 0, 0, 0), At(1, 0, 0, 0, 0)};
  b.cpus = {At(0, 0, 0, 0, 0), At(1, 0, 0, 0, 0)};
  a.cpus[0].calibration_cpu_ns = kSec / 10;
  b.cpus[0].calibration_cpu_ns = kSec / 10 + kSec * 6 / 10;
  b.cpus[1].calibration_cpu_ns = kSec / 2;
  std::vector<SoakerCpuSeconds> out;
  ComputeSoakerCpuSeconds(a, b, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[0].seconds, 0.6);
  EXPECT_DOUBLE_EQ(out[1].seconds, 0.5);
  std::vector<SoakerCpuWindow> windows;
  ComputeSoakerWindows(a, b, 1.0, &windows);
  EXPECT_TRUE(windows.empty());  // no loop, no delivered idle

  // Another Soaker (a reload, the soaker's start after the background
  // calibration): its count starts at 0, all of it in the window.
  b.calibration_generation = 8;
  b.cpus[0].calibration_cpu_ns = kSec / 4;
  ComputeSoakerCpuSeconds(a, b, &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[0].seconds, 0.25);
}

TEST(ComputeSoakerWindows, CalibrationTimeIsDeliveredIdle) {
  // The loop delivered 40 % idle in a 1 s window while a calibration took
  // 0.3 s of the CPU at normal priority: 70 % was idle to the host.
  SoakerReading a, b;
  a.calibration_generation = b.calibration_generation = 3;
  a.cpus = {At(0, 0, 0, 1000)};
  b.cpus = {At(0, 400, kSec * 4 / 10, 1000)};
  b.cpus[0].calibration_cpu_ns = kSec * 3 / 10;
  std::vector<SoakerCpuWindow> w;
  ComputeSoakerWindows(a, b, 1.0, &w);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NEAR(w[0].delivered_idle_ratio, 0.7, 1e-12);
  EXPECT_NEAR(w[0].busy_ratio, 0.3, 1e-12);
  EXPECT_NEAR(w[0].hidden_ratio, 0.0, 1e-12);
}

TEST(SoakerWindowSeconds, FromTheReadingsClock) {
  SoakerReading a, b;
  a.mono_ns = 1 * static_cast<int64_t>(kSec);
  b.mono_ns = 3 * static_cast<int64_t>(kSec) + static_cast<int64_t>(kSec) / 2;
  EXPECT_DOUBLE_EQ(SoakerWindowSeconds(a, b), 2.5);
  EXPECT_EQ(SoakerWindowSeconds(b, a), 0.0);  // not later
  EXPECT_EQ(SoakerWindowSeconds(a, a), 0.0);
  SoakerReading unset;
  EXPECT_EQ(SoakerWindowSeconds(unset, b), 0.0);
}

TEST(BusyRatioWithoutSoaker, RemovesTheSoakersShare) {
  // /proc/stat says 95 % busy over 2 s, 1.2 s of it the soaker: 0.95 - 0.6.
  EXPECT_NEAR(BusyRatioWithoutSoaker(0.95, 2.0, 1.2), 0.35, 1e-12);
  // Tick sampling can charge the soaker more than the ticks said busy: 0, not negative.
  EXPECT_EQ(BusyRatioWithoutSoaker(0.5, 1.0, 0.6), 0.0);
  EXPECT_EQ(BusyRatioWithoutSoaker(0.5, 1.0, 0.0), 0.5);
  // No elapsed time: nothing to take out.
  EXPECT_EQ(BusyRatioWithoutSoaker(0.4, 0.0, 0.3), 0.4);
}

}  // namespace
}  // namespace bottleneckd::soaker_window_test
