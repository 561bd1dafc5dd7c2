// The window's contract with analysis/ (window/window_numbers.h): every
// number a Window hands on is finite. The list of a window's numbers is held
// complete for the parts that are plain numbers (a new double there that is
// not on the list fails here), MakeWindowFinite turns what is no number into
// 0 or unset, and ComputeWindow over hostile samples hands on finite numbers.
#include "window/window_numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <type_traits>

namespace bottleneckd::window_numbers_test {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Every double of *part from byte `first` to its end set to NaN; the part's
// numbers after `first` are all doubles (asserted).
template <typename T>
void PoisonFrom(T* part, size_t first) {
  static_assert(std::is_trivially_copyable_v<T>);
  ASSERT_EQ((sizeof(T) - first) % sizeof(double), 0u);
  for (size_t at = first; at < sizeof(T); at += sizeof(double))
    std::memcpy(reinterpret_cast<char*>(part) + at, &kNan, sizeof(double));
}

template <typename T>
bool FiniteFrom(const T& part, size_t first) {
  for (size_t at = first; at < sizeof(T); at += sizeof(double)) {
    double d;
    std::memcpy(&d, reinterpret_cast<const char*>(&part) + at, sizeof(double));
    if (!std::isfinite(d)) return false;
  }
  return true;
}

TEST(WindowNumbers, EveryDoubleOfThePlainPartsIsOnTheList) {
  Window w;
  w.cpus.resize(1);
  w.soaker.resize(1);
  w.irqtime.resize(1);
  PoisonFrom(&w.cpus[0], offsetof(CpuWindow, busy_ratio));
  PoisonFrom(&w.soaker[0], offsetof(SoakerCpuWindow, delivered_idle_ratio));
  PoisonFrom(&w.irqtime[0], offsetof(IrqTimeCpuWindow, hardirq_ratio));
  w.cpu_total = w.cpus[0];
  EXPECT_FALSE(WindowIsFinite(w));
  MakeWindowFinite(&w);
  EXPECT_TRUE(FiniteFrom(w.cpus[0], offsetof(CpuWindow, busy_ratio))) << "a CpuWindow double is off the list";
  EXPECT_TRUE(FiniteFrom(*w.cpu_total, offsetof(CpuWindow, busy_ratio)));
  EXPECT_TRUE(FiniteFrom(w.soaker[0], offsetof(SoakerCpuWindow, delivered_idle_ratio)))
      << "a SoakerCpuWindow double is off the list";
  EXPECT_TRUE(FiniteFrom(w.irqtime[0], offsetof(IrqTimeCpuWindow, hardirq_ratio)))
      << "an IrqTimeCpuWindow double is off the list";
  EXPECT_TRUE(WindowIsFinite(w));
}

TEST(WindowNumbers, NoNumberBecomesZeroOrUnset) {
  Window w;
  w.seconds = kNan;
  NicWindow n;
  n.rx_packets_per_second = kInf;
  n.tx_packets_per_second = 5;
  w.nics = {n};
  ThreadWindow t;
  t.cpu_ratio = -kInf;
  t.running_ratio = kNan;
  t.measured_waits = std::vector<WaitSiteWindow>{{"do_nanosleep (clock_nanosleep)", false, kNan, 3}};
  w.threads = {t};
  CaptureWindow c;
  c.loss_ratio = kNan;
  c.packets_per_second = kInf;
  w.captures = {c};
  w.irqtime_queues = {{"eth0", "TxRx-0", 24, 0, kNan, 0.5}};
  EXPECT_EQ(MakeWindowFinite(&w), 8);
  EXPECT_EQ(w.seconds, 0);
  EXPECT_FALSE(w.nics[0].rx_packets_per_second.has_value());
  EXPECT_EQ(w.nics[0].tx_packets_per_second, 5);  // a number is left as it is
  EXPECT_EQ(w.threads[0].cpu_ratio, 0);
  EXPECT_FALSE(w.threads[0].running_ratio.has_value());
  EXPECT_EQ((*w.threads[0].measured_waits)[0].ratio, 0);
  EXPECT_EQ((*w.threads[0].measured_waits)[0].periods_per_second, 3);
  EXPECT_FALSE(w.captures[0].loss_ratio.has_value());
  EXPECT_EQ(w.captures[0].packets_per_second, 0);
  EXPECT_EQ(w.irqtime_queues[0].hardirq_ratio, 0);
  EXPECT_EQ(w.irqtime_queues[0].net_softirq_ratio, 0.5);
  EXPECT_EQ(MakeWindowFinite(&w), 0);
}

// Samples a nanosecond apart with counters at the top of their range and a
// soaker whose calibration is no number: ComputeWindow hands on numbers.
TEST(WindowNumbers, ComputeWindowOverHostileSamplesIsFinite) {
  Sample a, b;
  a.mono_ns = 1;
  b.mono_ns = 2;
  a.stat = ProcStat();
  b.stat = ProcStat();
  CpuTimes c;
  c.cpu = 0;
  a.stat->cpus = {c};
  c.user = std::numeric_limits<uint64_t>::max();
  b.stat->cpus = {c};
  SoakerReading sa, sb;
  sa.mono_ns = 1;
  sb.mono_ns = 2;
  sa.cpus = {{0, 0, 0, 1, kInf, 0, false}};
  sb.cpus = {{0, std::numeric_limits<uint64_t>::max(), 1, 1, kNan, 0, false}};
  a.soaker = sa;
  b.soaker = sb;
  Window w;
  ASSERT_TRUE(ComputeWindow(a, b, &w));
  EXPECT_TRUE(WindowIsFinite(w));
}

}  // namespace
}  // namespace bottleneckd::window_numbers_test
