// Each CPU's time budget over the last window (analysis/cpu_budget.h):
// bottleneckd_cpu_budget_ratio{cpu,part} and the sources' overlap; the learned
// interrupt delivery cost (analysis/delivery_cost.h).
#include <optional>
#include <string>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd::internal {

void AddCpuBudgetFamilies(const Snapshot& s, MetricsOut* out) {
  using prometheus::MetricType;
  if (s.cpu_budget.empty()) return;
  FamilyBuilder parts(out, metric::kCpuBudgetRatio,
                      "Each CPU's last window, accounted once: steal, hardirq, softirq, delivery (interrupt "
                      "entry and delivery the interrupt source misses: the learned cost per interrupt, an "
                      "estimate), threads (the target threads), tasks (every other task), unexplained (busy time no "
                      "source claims) and idle "
                      "(delivered idle when the soaker ran); the parts sum to 1.",
                      MetricType::Gauge);
  FamilyBuilder overlap(out, metric::kCpuBudgetOverlapRatio,
                        "Share of the window the budget's sources claimed beyond the CPU's busy time (one second "
                        "counted by two clocks), cut from the later parts.",
                        MetricType::Gauge);
  for (const CpuBudget& b : s.cpu_budget) {
    std::string cpu = std::to_string(b.cpu);
    for (const BudgetPart& p : BudgetParts(b)) parts.Add(p.ratio, {{"cpu", cpu}, {"part", p.name}});
    overlap.Add(b.overlap, {{"cpu", cpu}});
  }
  if (!s.delivery_cost) return;
  FamilyBuilder cost(out, metric::kInterruptDeliveryCostSeconds,
                     "The host's learned interrupt delivery cost: seconds of a CPU per interrupt that the "
                     "interrupt source (measured: irqtime; ticks: /proc/stat) does not see, the slope of the "
                     "soaker's unexplained time against interrupts per second; an estimate, absent until learned.",
                     MetricType::Gauge);
  FamilyBuilder windows(out, metric::kInterruptDeliveryCostWindows,
                        "Windows the delivery cost was learned from, per interrupt source (older ones fade).",
                        MetricType::Gauge);
  for (InterruptSource src : {InterruptSource::kMeasured, InterruptSource::kTicks}) {
    const DeliveryFit& f = s.delivery_cost->fit(src);
    windows.Add(f.n, {{"source", InterruptSourceName(src)}});
    if (std::optional<double> b = f.SecondsPerInterrupt()) cost.Add(*b, {{"source", InterruptSourceName(src)}});
  }
}

}  // namespace bottleneckd::internal
