// DeliveryCost (analysis/delivery_cost.h): the host's interrupt delivery
// cost learned as the slope of the soaker's unexplained time against a CPU's
// interrupts, one fit per interrupt source, and applied as each CPU's
// delivery share of its interrupt time. The windows are built from a known
// line (0.01 + 18 us x interrupts/s, docs/irqtime.md's 17.9 us per IPI), so
// the expected cost is the line's.
#include "analysis/delivery_cost.h"

#include <gtest/gtest.h>

#include <limits>

#include "analysis/cpu_budget.h"

namespace bottleneckd::delivery_cost_test {
namespace {

constexpr double kCost = 18e-6;
constexpr double kBase = 0.01;

// One window of one CPU the soaker measured: it lost kBase + kCost x rate,
// and no source claimed any of it (no ticks, no measured interrupt time).
Signals Window(double interrupts_per_second, bool measured) {
  Signals s;
  CpuSignal c;
  c.cpu = 1;
  c.busy_from_soaker = true;
  c.busy = kBase + kCost * interrupts_per_second;
  c.system_interrupts_per_second = interrupts_per_second * 0.75;  // IPIs and the timer
  c.interrupts_per_second = interrupts_per_second * 0.25;         // device IRQs
  c.interrupt_measured = measured;
  s.cpus = {c};
  return s;
}

DeliveryCost Learned(int windows, bool measured) {
  DeliveryCost d;
  for (int i = 0; i < windows; ++i) d.Observe(Window(500.0 * i, measured));
  return d;
}

TEST(DeliveryCost, LearnsTheSlopeOfUnexplainedTimeAgainstInterrupts) {
  DeliveryCost d = Learned(40, true);
  const DeliveryFit& f = d.fit(InterruptSource::kMeasured);
  EXPECT_EQ(f.n, 40);
  ASSERT_TRUE(f.SecondsPerInterrupt().has_value());
  EXPECT_NEAR(*f.SecondsPerInterrupt(), kCost, 1e-12);
  EXPECT_NEAR(f.Intercept(), kBase, 1e-9);
  EXPECT_NEAR(f.R2(), 1, 1e-9);
  EXPECT_EQ(DeliveryCostSentence(f, InterruptSource::kMeasured),
            "interrupt delivery cost beyond measured interrupt time: 18.0 us per interrupt (an estimate: 40 "
            "windows, R2 1.00)");
  EXPECT_EQ(d.fit(InterruptSource::kTicks).n, 0);  // each source learns apart
}

TEST(DeliveryCost, NotUsedUntilEnoughWindowsWithVaryingInterrupts) {
  DeliveryCost few = Learned(kDeliveryMinSamples - 1, false);
  EXPECT_FALSE(few.fit(InterruptSource::kTicks).SecondsPerInterrupt());
  DeliveryCost flat;
  for (int i = 0; i < 100; ++i) flat.Observe(Window(3000, false));
  EXPECT_FALSE(flat.fit(InterruptSource::kTicks).SecondsPerInterrupt());
  EXPECT_EQ(DeliveryCostSentence(flat.fit(InterruptSource::kTicks), InterruptSource::kTicks),
            "interrupt delivery cost beyond /proc/stat's ticks: not learned yet (100 windows with the soaker, "
            "interrupts spread 0/s; needs 20 and 500/s)");
  Signals s = Window(15000, false);
  double share = s.cpus[0].interrupt_share;
  flat.Apply(&s);
  EXPECT_FALSE(s.cpus[0].delivery_learned);
  EXPECT_EQ(s.cpus[0].delivery_ratio, 0);
  EXPECT_EQ(s.cpus[0].interrupt_share, share);
}

TEST(DeliveryCost, WindowsThatCannotShowTheCostTeachNothing) {
  DeliveryCost d;
  Signals no_soaker = Window(5000, true);
  no_soaker.cpus[0].busy_from_soaker = false;
  d.Observe(no_soaker);
  // The ticks claimed more than the soaker lost: unexplained is cut at 0.
  Signals overclaimed = Window(5000, false);
  overclaimed.cpus[0].accounting_busy = overclaimed.cpus[0].accounting_interrupt_ratio = 0.8;
  overclaimed.cpus[0].interrupt_ratio = overclaimed.cpus[0].softirq_ratio = 0.8;
  d.Observe(overclaimed);
  // A thread held most of the CPU: interrupts landing on it are charged to it.
  Signals busy = Window(5000, true);
  busy.cpus[0].busy = busy.cpus[0].accounting_busy = 0.9;
  d.Observe(busy);
  EXPECT_EQ(d.fit(InterruptSource::kMeasured).n, 0);
  EXPECT_EQ(d.fit(InterruptSource::kTicks).n, 0);
}

// The lab's softirq load (docs/irqtime.md): 22 % measured handler time at
// 15 000 interrupts/s on a CPU the echo thread fills. The learned delivery
// (27 %) joins the interrupt share, and the thread there is told so.
TEST(DeliveryCost, AppliedAsTheCpusDeliveryShareOfItsInterruptTime) {
  DeliveryCost d = Learned(40, true);
  Signals s;
  CpuSignal c;
  c.cpu = 1;
  c.busy = 1.0;
  c.busy_from_soaker = true;
  c.interrupt_measured = true;
  c.interrupt_ratio = 0.22;
  c.interrupt_share = 0.22;
  c.interrupts_per_second = 15000;
  s.cpus = {c};
  ThreadSignal th;
  th.thread = "udpecho";
  th.cpu = 1;
  th.cpu_interrupt_share = 0.22;
  s.threads = {th};
  d.Apply(&s);
  EXPECT_TRUE(s.cpus[0].delivery_learned);
  EXPECT_NEAR(s.cpus[0].delivery_ratio, 15000 * kCost, 1e-9);
  EXPECT_NEAR(s.cpus[0].interrupt_share, 0.22 + 15000 * kCost, 1e-9);
  EXPECT_DOUBLE_EQ(s.threads[0].cpu_interrupt_share, s.cpus[0].interrupt_share);
  CpuBudget b = CpuBudgets(s).at(0);
  EXPECT_NEAR(b.delivery, 0.27, 1e-9);

  // Never more than the busy time the interrupt time leaves.
  s.cpus[0].busy = 0.30;
  s.cpus[0].interrupt_ratio = 0.20;
  d.Apply(&s);
  EXPECT_NEAR(s.cpus[0].delivery_ratio, 0.10, 1e-12);
  EXPECT_DOUBLE_EQ(s.cpus[0].interrupt_share, 1.0);
}

TEST(DeliveryCost, OldWindowsFadeAndTheFitStaysTheLine) {
  DeliveryCost d;
  for (int i = 0; i < 3 * kDeliveryHalfLife; ++i) d.Observe(Window(500.0 * (i % 40), true));
  const DeliveryFit& f = d.fit(InterruptSource::kMeasured);
  EXPECT_LE(f.n, 2 * kDeliveryHalfLife);
  EXPECT_GE(f.n, kDeliveryHalfLife);
  ASSERT_TRUE(f.SecondsPerInterrupt());
  EXPECT_NEAR(*f.SecondsPerInterrupt(), kCost, 1e-10);
}

TEST(DeliveryCost, NonFiniteSamplesAreDropped) {
  DeliveryFit f;
  f.Add(std::numeric_limits<double>::quiet_NaN(), 0.1);
  f.Add(1000, std::numeric_limits<double>::infinity());
  EXPECT_EQ(f.n, 0);
}

}  // namespace
}  // namespace bottleneckd::delivery_cost_test
