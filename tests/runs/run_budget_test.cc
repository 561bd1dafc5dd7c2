// The CPU budget of a run (runs/run_summary.h): which CPUs a timeline point
// keeps (all up to kPointBudgetCpus, else the verdict's CPU and the busiest)
// and each CPU's mean over a run's settled windows with its flags.
// Expected values are worked by hand from the inputs.
#include <gtest/gtest.h>

#include <vector>

#include "runs/run_summary.h"

namespace bottleneckd::run_budget_test {
namespace {

CpuBudget Busy(int cpu, double threads) {
  CpuBudget b;
  b.cpu = cpu;
  b.threads = threads;
  b.idle = 1 - threads;
  return b;
}

std::vector<int> Cpus(const std::vector<CpuBudget>& v) {
  std::vector<int> out;
  for (const CpuBudget& b : v) out.push_back(b.cpu);
  return out;
}

TEST(RunBudget, APointKeepsEveryCpuUpToTheLimit) {
  std::vector<CpuBudget> all;
  for (int cpu = 0; cpu < static_cast<int>(kPointBudgetCpus); ++cpu) all.push_back(Busy(cpu, 0.01 * cpu));
  TimelinePoint p = PointOfWindow(5, Signals(), Verdict(), all);
  EXPECT_EQ(p.cpu_budget.size(), kPointBudgetCpus);
  EXPECT_EQ(p.cpu_budget.back().threads, 0.01 * (kPointBudgetCpus - 1));
  EXPECT_TRUE(PointOfWindow(5, Signals(), Verdict()).cpu_budget.empty());
}

TEST(RunBudget, AManyCpuPointKeepsTheVerdictsCpuAndTheBusiest) {
  // 40 CPUs: CPU k busy 0.01 * k, so the busiest are 24..39; the verdict
  // names cpu3, which is kept in place of the least busy of them (24).
  std::vector<CpuBudget> all;
  for (int cpu = 0; cpu < 40; ++cpu) all.push_back(Busy(cpu, 0.01 * cpu));
  Verdict v;
  v.label = Bound::kCpu;
  v.resource = "cpu3";
  std::vector<CpuBudget> kept = KeptBudgets(all, v);
  std::vector<int> want = {3};
  for (int cpu = 25; cpu < 40; ++cpu) want.push_back(cpu);
  EXPECT_EQ(Cpus(kept), want);
  // Without a CPU verdict, the 16 busiest.
  want.clear();
  for (int cpu = 24; cpu < 40; ++cpu) want.push_back(cpu);
  EXPECT_EQ(Cpus(KeptBudgets(all, Verdict())), want);
}

TEST(RunBudget, ARunsBudgetIsEachCpusMeanOverTheWindowsThatKeptIt) {
  TimelinePoint a, b;
  CpuBudget a0 = Busy(0, 0.2), a1 = Busy(1, 0.6), b1 = Busy(1, 0.8);
  a0.idle_delivered = a1.idle_delivered = b1.idle_delivered = true;
  a1.interrupts_measured = true;  // b1 is not: the run's cpu1 is not measured throughout
  b1.delivery_learned = true;     // one window's estimate makes the run's an estimate
  a1.delivery = 0.0, b1.delivery = 0.04, b1.idle -= 0.04;
  a1.overlap = 0.02;
  a.cpu_budget = {a0, a1};
  b.cpu_budget = {b1};
  RunReport r;
  Summarise({a, b}, nullptr, &r);
  ASSERT_EQ(r.cpu_budget.size(), 2u);
  EXPECT_EQ(r.cpu_budget[0].budget.cpu, 0);
  EXPECT_EQ(r.cpu_budget[0].windows, 1u);
  EXPECT_DOUBLE_EQ(r.cpu_budget[0].budget.threads, 0.2);
  EXPECT_TRUE(r.cpu_budget[0].budget.idle_delivered);
  const CpuBudget& m = r.cpu_budget[1].budget;
  EXPECT_EQ(m.cpu, 1);
  EXPECT_EQ(r.cpu_budget[1].windows, 2u);
  EXPECT_DOUBLE_EQ(m.threads, 0.7);
  EXPECT_DOUBLE_EQ(m.delivery, 0.02);
  EXPECT_DOUBLE_EQ(m.idle, (0.4 + 0.16) / 2);
  EXPECT_DOUBLE_EQ(m.overlap, 0.01);
  EXPECT_TRUE(m.idle_delivered);
  EXPECT_FALSE(m.interrupts_measured);
  EXPECT_FALSE(m.threads_measured);
  EXPECT_TRUE(m.delivery_learned);
  // Points without a budget (a store row of schema version 4) give none.
  RunReport old;
  Summarise({TimelinePoint(), TimelinePoint()}, nullptr, &old);
  EXPECT_TRUE(old.cpu_budget.empty());
}

}  // namespace
}  // namespace bottleneckd::run_budget_test
