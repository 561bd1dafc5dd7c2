// CpuBudgets (analysis/cpu_budget.h): each CPU's window accounted once, the
// parts allotted in order and capped by the busy time, so they always sum to
// the window; what no source claims is `unexplained`, what two sources
// claim twice is `overlap`. Expected values by hand from the inputs.
#include "analysis/cpu_budget.h"

#include <gtest/gtest.h>

namespace bottleneckd::cpu_budget_test {
namespace {

double Sum(const CpuBudget& b) {
  double sum = 0;
  for (const BudgetPart& p : BudgetParts(b)) sum += p.ratio;
  return sum;
}

ThreadSignal ThreadOn(int cpu, double share, bool schedstat) {
  ThreadSignal t;
  t.thread = t.process = "udpecho";
  t.cpu = cpu;
  t.cpu_share = share;
  if (schedstat) t.state = ThreadState{share, 0, 1 - share, std::nullopt, std::nullopt, "", "", {}, 0};
  return t;
}

// No soaker, tick-sampled interrupts: the ticks close the budget themselves.
TEST(CpuBudgets, AccountingOnlyClosesOnTheTicks) {
  Signals s;
  CpuSignal c;
  c.cpu = 1;
  c.busy = c.accounting_busy = 0.60;
  c.interrupt_ratio = c.accounting_interrupt_ratio = 0.17;
  c.softirq_ratio = 0.12;
  c.steal = 0.04;
  s.cpus = {c};
  s.threads = {ThreadOn(1, 0.30, true), ThreadOn(0, 0.5, true)};  // the second ran elsewhere
  std::vector<CpuBudget> b = CpuBudgets(s);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(b[0].steal, 0.04);
  EXPECT_NEAR(b[0].hardirq, 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(b[0].softirq, 0.12);
  EXPECT_DOUBLE_EQ(b[0].threads, 0.30);
  EXPECT_NEAR(b[0].tasks, 0.09, 1e-12);  // 0.60 - 0.04 - 0.17 - 0.30
  EXPECT_NEAR(b[0].unexplained, 0, 1e-12);
  EXPECT_DOUBLE_EQ(b[0].idle, 0.40);
  EXPECT_DOUBLE_EQ(b[0].overlap, 0);
  EXPECT_TRUE(b[0].threads_measured);
  EXPECT_NEAR(Sum(b[0]), 1, 1e-12);
  EXPECT_EQ(CpuBudgetSentence(b[0]),
            "cpu1: threads 30.0 %, softirq 12.0 %, tasks 9.0 %, hardirq 5.0 %, steal 4.0 %, idle 40.0 % "
            "(accounting)");
}

// The seeds' box with the soaker: 2 % delivered idle, 81 % accounting busy
// of which 25 % interrupt ticks: 17 % of the CPU is claimed by no source.
TEST(CpuBudgets, TheSoakersHiddenTimeIsUnexplainedNotFolded) {
  Signals s;
  CpuSignal c;
  c.cpu = 0;
  c.busy = 0.98;
  c.busy_from_soaker = true;
  c.soaker_idle = 0.02;
  c.accounting_busy = 0.81;
  c.interrupt_ratio = c.accounting_interrupt_ratio = 0.25;
  c.softirq_ratio = 0.20;
  s.cpus = {c};
  CpuBudget b = CpuBudgets(s).at(0);
  EXPECT_NEAR(b.hardirq, 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(b.softirq, 0.20);
  EXPECT_NEAR(b.tasks, 0.56, 1e-12);
  EXPECT_NEAR(b.unexplained, 0.17, 1e-12);
  EXPECT_NEAR(b.idle, 0.02, 1e-12);
  EXPECT_NEAR(Sum(b), 1, 1e-12);
  EXPECT_EQ(CpuBudgetSentence(b),
            "cpu0: tasks 56.0 %, softirq 20.0 %, unexplained 17.0 %, hardirq 5.0 %, idle 2.0 % (soaker)");
}

// irqtime measures half the CPU in softirq on the reader's CPU; the kernel
// (no IRQ time accounting) also charged most of it to the thread, whose
// schedstat says 55 %: the second count is overlap, shown, not added.
TEST(CpuBudgets, TimeCountedTwiceIsOverlap) {
  Signals s;
  CpuSignal c;
  c.cpu = 1;
  c.busy = c.accounting_busy = 0.60;
  c.interrupt_measured = true;
  c.hardirq_ratio = 0.02;
  c.softirq_ratio = 0.48;
  c.interrupt_ratio = 0.50;
  c.accounting_interrupt_ratio = 0.10;
  s.cpus = {c};
  s.threads = {ThreadOn(1, 0.55, true)};
  CpuBudget b = CpuBudgets(s).at(0);
  EXPECT_DOUBLE_EQ(b.hardirq, 0.02);
  EXPECT_DOUBLE_EQ(b.softirq, 0.48);
  EXPECT_NEAR(b.threads, 0.10, 1e-12);
  EXPECT_NEAR(b.overlap, 0.45, 1e-12);
  EXPECT_DOUBLE_EQ(b.tasks, 0);  // 0.60 - 0.10 - 0.55 < 0: nothing left for other tasks
  EXPECT_NEAR(b.unexplained, 0, 1e-12);
  EXPECT_NEAR(Sum(b), 1, 1e-12);
  EXPECT_EQ(CpuBudgetSentence(b),
            "cpu1: softirq 48.0 % (measured), threads 10.0 %, hardirq 2.0 % (measured), idle 40.0 % (accounting); "
            "the sources claimed 45.0 % more than the busy time");
}

TEST(CpuBudgets, ThreadsWithoutSchedstatSaySo) {
  Signals s;
  CpuSignal c;
  c.cpu = 2;
  c.busy = c.accounting_busy = 0.5;
  s.cpus = {c};
  s.threads = {ThreadOn(2, 0.4, false)};
  CpuBudget b = CpuBudgets(s).at(0);
  EXPECT_FALSE(b.threads_measured);
  EXPECT_EQ(CpuBudgetSentence(b), "cpu2: threads 40.0 % (ticks), tasks 10.0 %, idle 50.0 % (accounting)");
}

// The lab's RPS load measured by irqtime with a learned delivery cost
// (docs/irqtime.md "Cross-check": 22 % measured, 49 % lost by the soaker):
// delivery comes after the interrupt time and before the tasks, so what the
// soaker lost beyond the handlers is delivery, not unexplained.
TEST(CpuBudgets, LearnedDeliveryIsItsOwnPartAnEstimate) {
  Signals s;
  CpuSignal c;
  c.cpu = 1;
  c.busy = 0.494;
  c.busy_from_soaker = true;
  c.accounting_busy = 0.833;
  c.interrupt_measured = true;
  c.interrupt_ratio = 0.22;
  c.hardirq_ratio = 0.001;
  c.softirq_ratio = 0.219;
  c.accounting_interrupt_ratio = 0.833;
  c.delivery_ratio = 0.25;
  c.delivery_learned = true;
  s.cpus = {c};
  CpuBudget b = CpuBudgets(s).at(0);
  EXPECT_DOUBLE_EQ(b.delivery, 0.25);
  EXPECT_TRUE(b.delivery_learned);
  EXPECT_NEAR(b.unexplained, 0.494 - 0.22 - 0.25, 1e-12);
  EXPECT_DOUBLE_EQ(b.tasks, 0);  // the ticks saw interrupts and nothing else
  EXPECT_NEAR(Sum(b), 1, 1e-12);
  EXPECT_EQ(CpuBudgetSentence(b),
            "cpu1: delivery 25.0 % (estimate), softirq 21.9 % (measured), unexplained 2.4 %, hardirq 0.1 % "
            "(measured), idle 50.6 % (soaker)");
}

TEST(CpuBudgets, NoCpuNoBudget) { EXPECT_TRUE(CpuBudgets(Signals()).empty()); }

// kBudgetPartMembers names the same members as BudgetParts, in its order:
// each part set to a distinct value reads back through both.
TEST(CpuBudgets, PartMembersFollowBudgetParts) {
  CpuBudget b;
  for (size_t i = 0; i < kBudgetPartMembers.size(); ++i) b.*kBudgetPartMembers[i] = 0.01 * static_cast<double>(i + 1);
  std::array<BudgetPart, 8> parts = BudgetParts(b);
  ASSERT_EQ(parts.size(), kBudgetPartMembers.size());
  for (size_t i = 0; i < parts.size(); ++i)
    EXPECT_EQ(parts[i].ratio, 0.01 * static_cast<double>(i + 1)) << parts[i].name;
}

}  // namespace
}  // namespace bottleneckd::cpu_budget_test
