#include "analysis/saturated_cpu.h"

#include <algorithm>

#include "analysis/cpu_budget.h"
#include "analysis/rules.h"

namespace bottleneckd {
namespace {

// Accounting counts steal as busy: a vCPU with this much stolen is not known
// saturated without the soaker (the cpu rule's kStealShare).
constexpr double kStealShare = 0.25;

bool Contains(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

bool MeasuredSaturated(const CpuSignal& c, const VerdictThresholds& t) {
  if (c.busy < 1 - t.cpu_idle_max) return false;
  return c.busy_from_soaker || c.steal < kStealShare;
}

}  // namespace

std::optional<SaturatedCpuCall> SaturatedPathCpu(const Signals& s, const VerdictThresholds& t) {
  if (s.ladder.first_losing == Rung::kNone) return std::nullopt;
  const CpuSignal* best = nullptr;
  for (const CpuSignal& c : s.cpus) {
    bool on_path = Contains(s.reader_cpus, c.cpu) || Contains(s.rx_cpus, c.cpu);
    if (!on_path || !MeasuredSaturated(c, t)) continue;
    // The readers' CPUs first (socket losses are theirs), then the busier.
    bool reader = Contains(s.reader_cpus, c.cpu);
    bool best_reader = best && Contains(s.reader_cpus, best->cpu);
    if (!best || (reader && !best_reader) || (reader == best_reader && c.busy > best->busy)) best = &c;
  }
  if (!best) return std::nullopt;
  std::vector<CpuBudget> budgets = CpuBudgets(s);
  auto b = std::find_if(budgets.begin(), budgets.end(), [&](const CpuBudget& x) { return x.cpu == best->cpu; });
  SaturatedCpuCall call;
  call.cpu = best->cpu;
  call.tasks = b->threads + b->tasks;
  call.handlers = b->hardirq + b->softirq + b->delivery;
  call.label = call.handlers > call.tasks ? Bound::kInterrupt : Bound::kCpu;
  std::string handlers = "interrupt work " + FormatPercent(call.handlers) + " (hardirq+softirq" +
                         (b->interrupts_measured ? " measured by eBPF" : " by /proc/stat's ticks") +
                         (b->delivery_learned ? " + learned delivery " + FormatPercent(b->delivery) : "") + ")";
  std::string tasks = "tasks " + FormatPercent(call.tasks) + " of the CPU (target threads " +
                      FormatPercent(b->threads) + ", other tasks " + FormatPercent(b->tasks) + ")";
  call.sentence =
      SaturationSentence(*best, t) + " while the load is lost: " + tasks + ", " + handlers + ": " +
      (call.label == Bound::kInterrupt ? "interrupt work took more, so interrupt" : "tasks took more, so cpu") +
      " (a saturated CPU on the packet path is named, not left undetermined)";
  for (const NicSignal& n : s.nics) {
    if (!n.bus_utilisation || n.bus_emulated || *n.bus_utilisation < t.bus_utilisation_min ||
        n.nic_drops_per_second <= t.drop_floor_per_second)
      continue;
    call.full_bus = n.interface + (n.device.empty() ? "" : " (" + n.device + ")") + ": bus path " +
                    FormatPercent(*n.bus_utilisation) + " full and its NIC drops " +
                    FormatRate(n.nic_drops_per_second) + "/s";
    break;
  }
  return call;
}

}  // namespace bottleneckd
