// The CPU budget of timeline points and runs (run_summary.h): which CPUs a
// point keeps, and each CPU's mean over a run's settled windows.
#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/rules.h"
#include "runs/run_summary.h"

namespace bottleneckd {

std::vector<CpuBudget> KeptBudgets(const std::vector<CpuBudget>& budget, const Verdict& v) {
  if (budget.size() <= kPointBudgetCpus) return budget;
  std::vector<const CpuBudget*> order;
  for (const CpuBudget& b : budget) order.push_back(&b);
  // The verdict's CPU first, then the least idle; ties to the lower CPU.
  auto rank = [&v](const CpuBudget* b) { return std::make_tuple(CpuName(b->cpu) != v.resource, b->idle, b->cpu); };
  std::stable_sort(order.begin(), order.end(),
                   [&rank](const CpuBudget* a, const CpuBudget* b) { return rank(a) < rank(b); });
  order.resize(kPointBudgetCpus);
  std::sort(order.begin(), order.end(), [](const CpuBudget* a, const CpuBudget* b) { return a->cpu < b->cpu; });
  std::vector<CpuBudget> out;
  for (const CpuBudget* b : order) out.push_back(*b);
  return out;
}

std::vector<RunCpuBudget> RunBudgets(const std::vector<TimelinePoint>& settled) {
  std::map<int, RunCpuBudget> by_cpu;
  for (const TimelinePoint& p : settled) {
    for (const CpuBudget& b : p.cpu_budget) {
      auto [it, added] = by_cpu.try_emplace(b.cpu);
      RunCpuBudget& sum = it->second;
      if (added) {
        sum.budget = CpuBudget();
        sum.budget.cpu = b.cpu;
        sum.budget.idle_delivered = sum.budget.interrupts_measured = sum.budget.threads_measured = true;
      }
      for (double CpuBudget::*part : kBudgetPartMembers) sum.budget.*part += b.*part;
      sum.budget.overlap += b.overlap;
      sum.budget.idle_delivered = sum.budget.idle_delivered && b.idle_delivered;
      sum.budget.interrupts_measured = sum.budget.interrupts_measured && b.interrupts_measured;
      sum.budget.threads_measured = sum.budget.threads_measured && b.threads_measured;
      sum.budget.delivery_learned = sum.budget.delivery_learned || b.delivery_learned;
      ++sum.windows;
    }
  }
  std::vector<RunCpuBudget> out;
  for (auto& [cpu, sum] : by_cpu) {
    double n = static_cast<double>(sum.windows);
    for (double CpuBudget::*part : kBudgetPartMembers) sum.budget.*part /= n;
    sum.budget.overlap /= n;
    out.push_back(sum);
  }
  return out;
}

}  // namespace bottleneckd
