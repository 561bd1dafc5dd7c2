// Measured interrupt time metric families (sources/irqtime.h): cumulative
// nanoseconds and counts of the eBPF program, as counters in seconds. Present
// only while the program is loaded (Sample::irqtime); the window's measured
// interrupt ratio is a `source="ebpf"` series of bottleneckd_cpu_interrupt_ratio
// (metrics_host.cc). No CPU x IRQ matrix: the per-IRQ entries are summed per
// NIC queue.
#include <cctype>
#include <map>
#include <string>
#include <utility>

#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"
#include "sources/irqtime.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

double Seconds(uint64_t ns) { return static_cast<double>(ns) / 1e9; }

// The `vector` label: the kernel's name in lower case ("net_rx", "timer").
std::string VectorLabel(int vector) {
  std::string s(SoftirqVectorName(vector));
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

void AddCpuIrqTime(const IrqTimeReading& r, MetricsOut* out) {
  FamilyBuilder secs(out, metric::kCpuInterruptSecondsTotal,
                     "Seconds each CPU spent in hardirq and softirq handlers, measured at the irq tracepoints (eBPF); "
                     "a hardirq during a softirq counts as hardirq only.",
                     MetricType::Counter);
  FamilyBuilder vec(out, metric::kSoftirqSecondsTotal,
                    "Seconds each CPU spent in each softirq vector's handlers, measured at the softirq tracepoints "
                    "(eBPF).",
                    MetricType::Counter);
  FamilyBuilder n(out, metric::kIrqtimeInterruptsTotal,
                  "Hardirq handler runs and softirq vector runs the irqtime program measured on each CPU.",
                  MetricType::Counter);
  for (const IrqTimeCpu& c : r.cpus) {
    std::string cpu = std::to_string(c.cpu);
    uint64_t softirqs = 0;
    for (uint64_t v : c.softirq_count) softirqs += v;
    secs.Add(Seconds(c.hardirq_ns), {{"cpu", cpu}, {"kind", "hardirq"}});
    secs.Add(Seconds(c.softirq_total_ns()), {{"cpu", cpu}, {"kind", "softirq"}});
    for (int v = 0; v < kSoftirqVectors; ++v)
      vec.Add(Seconds(c.softirq_ns[v]), {{"cpu", cpu}, {"vector", VectorLabel(v)}});
    n.Add(static_cast<double>(c.hardirq_count), {{"cpu", cpu}, {"kind", "hardirq"}});
    n.Add(static_cast<double>(softirqs), {{"cpu", cpu}, {"kind", "softirq"}});
  }
}

// Each NIC queue's IRQ summed over CPUs: its hardirq time and the network
// softirq time charged to it.
void AddQueueIrqTime(const IrqTimeReading& r, const std::vector<NicIrq>& nic_irqs, MetricsOut* out) {
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> by_irq;  // irq -> (hardirq ns, net softirq ns)
  for (const IrqTimeIrq& e : r.irqs) {
    auto& [hard, soft] = by_irq[e.irq];
    hard += e.hardirq_ns;
    soft += e.net_softirq_ns;
  }
  // Keyed by (interface, queue) so two IRQs naming one queue stay one series.
  std::map<std::pair<std::string, std::string>, std::pair<uint64_t, uint64_t>> by_queue;
  for (const NicIrq& q : nic_irqs) {
    auto it = by_irq.find(q.irq);
    if (it == by_irq.end()) continue;
    auto& [hard, soft] = by_queue[{q.interface, q.queue}];
    hard += it->second.first;
    soft += it->second.second;
  }
  FamilyBuilder f(out, metric::kNicQueueInterruptSecondsTotal,
                  "Seconds in each NIC queue's IRQ summed over CPUs, measured (eBPF): kind=hardirq its handler, "
                  "kind=softirq the NET_RX/NET_TX softirq that followed it on the same CPU.",
                  MetricType::Counter);
  for (const auto& [key, ns] : by_queue) {
    f.Add(Seconds(ns.first), {{"interface", key.first}, {"queue", key.second}, {"kind", "hardirq"}});
    f.Add(Seconds(ns.second), {{"interface", key.first}, {"queue", key.second}, {"kind", "softirq"}});
  }
}

}  // namespace

void AddIrqTimeFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.irqtime) return;
  const IrqTimeReading& r = *s.sample.irqtime;
  {
    FamilyBuilder info(out, metric::kIrqtimeInfo,
                       "1 while the irqtime eBPF program is loaded; attach=\"tp_btf\" (typed against the kernel's "
                       "BTF) or \"raw_tp\" (raw tracepoints).",
                       MetricType::Gauge);
    info.Add(1, {{"attach", r.attach}});
  }
  AddCpuIrqTime(r, out);
  AddQueueIrqTime(r, s.sample.nic_irqs, out);
}

}  // namespace bottleneckd::internal
