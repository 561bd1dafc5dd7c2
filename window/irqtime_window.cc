#include "window/irqtime_window.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "base/ratio.h"

namespace bottleneckd {
namespace {

// True when every counter of b is at least a's (same CPU, same load).
bool Monotonic(const IrqTimeCpu& a, const IrqTimeCpu& b) {
  if (b.hardirq_ns < a.hardirq_ns || b.hardirq_count < a.hardirq_count) return false;
  if (b.net_unattributed_ns < a.net_unattributed_ns || b.irq_overflow_count < a.irq_overflow_count) return false;
  for (int v = 0; v < kSoftirqVectors; ++v)
    if (b.softirq_ns[v] < a.softirq_ns[v] || b.softirq_count[v] < a.softirq_count[v]) return false;
  return true;
}

bool Monotonic(const IrqTimeIrq& a, const IrqTimeIrq& b) {
  return b.hardirq_ns >= a.hardirq_ns && b.hardirq_count >= a.hardirq_count && b.net_softirq_ns >= a.net_softirq_ns &&
         b.net_softirq_count >= a.net_softirq_count;
}

IrqTimeCpuWindow CpuWindowOf(const IrqTimeCpu& a, const IrqTimeCpu& b, double seconds) {
  const double window_ns = seconds * 1e9;
  auto ratio = [&](uint64_t x, uint64_t y) { return Clamp01(static_cast<double>(y - x) / window_ns); };
  IrqTimeCpuWindow w;
  w.cpu = b.cpu;
  w.hardirq_ratio = ratio(a.hardirq_ns, b.hardirq_ns);
  w.softirq_ratio = ratio(a.softirq_total_ns(), b.softirq_total_ns());
  uint64_t softirqs = 0;
  for (int v = 0; v < kSoftirqVectors; ++v) {
    w.vector_ratio[v] = ratio(a.softirq_ns[v], b.softirq_ns[v]);
    softirqs += b.softirq_count[v] - a.softirq_count[v];
  }
  w.net_unattributed_ratio = ratio(a.net_unattributed_ns, b.net_unattributed_ns);
  w.hardirqs_per_second = static_cast<double>(b.hardirq_count - a.hardirq_count) / seconds;
  w.softirqs_per_second = static_cast<double>(softirqs) / seconds;
  return w;
}

void QueueWindows(const IrqTimeReading& a, const IrqTimeReading& b, const std::vector<NicIrq>& nic_irqs, double seconds,
                  std::vector<IrqTimeQueueWindow>* out) {
  std::map<uint32_t, const NicIrq*> nic_of;
  for (const NicIrq& n : nic_irqs) nic_of.emplace(n.irq, &n);
  if (nic_of.empty()) return;
  const double window_ns = seconds * 1e9;
  const IrqTimeIrq zero;
  for (const IrqTimeIrq& eb : b.irqs) {
    auto n = nic_of.find(eb.irq);
    if (n == nic_of.end()) continue;
    // a.irqs is sorted by (irq, cpu). An entry only in b is an IRQ slot made
    // by its first interrupt during the window: it counts from 0.
    auto ia = std::lower_bound(a.irqs.begin(), a.irqs.end(), eb, [](const IrqTimeIrq& x, const IrqTimeIrq& y) {
      return std::tie(x.irq, x.cpu) < std::tie(y.irq, y.cpu);
    });
    const IrqTimeIrq& ea = (ia != a.irqs.end() && ia->irq == eb.irq && ia->cpu == eb.cpu) ? *ia : zero;
    if (!Monotonic(ea, eb)) continue;
    const uint64_t hard = eb.hardirq_ns - ea.hardirq_ns, soft = eb.net_softirq_ns - ea.net_softirq_ns;
    if (hard == 0 && soft == 0) continue;
    IrqTimeQueueWindow q;
    q.interface = n->second->interface;
    q.queue = n->second->queue;
    q.irq = eb.irq;
    q.cpu = eb.cpu;
    q.hardirq_ratio = Clamp01(static_cast<double>(hard) / window_ns);
    q.net_softirq_ratio = Clamp01(static_cast<double>(soft) / window_ns);
    out->push_back(std::move(q));
  }
  std::sort(out->begin(), out->end(), [](const IrqTimeQueueWindow& x, const IrqTimeQueueWindow& y) {
    return std::tie(x.interface, x.queue, x.cpu, x.irq) < std::tie(y.interface, y.queue, y.cpu, y.irq);
  });
}

}  // namespace

double IrqTimeWindowSeconds(const IrqTimeReading& a, const IrqTimeReading& b) {
  if (a.mono_ns <= 0 || b.mono_ns <= a.mono_ns) return 0;
  return static_cast<double>(b.mono_ns - a.mono_ns) / 1e9;
}

bool ComputeIrqTimeWindows(const IrqTimeReading& a, const IrqTimeReading& b, const std::vector<NicIrq>& nic_irqs,
                           std::vector<IrqTimeCpuWindow>* cpus, std::vector<IrqTimeQueueWindow>* queues) {
  cpus->clear();
  queues->clear();
  if (a.generation != b.generation) return false;
  const double seconds = IrqTimeWindowSeconds(a, b);
  if (!(seconds > 0)) return false;
  auto ia = a.cpus.begin();
  for (const IrqTimeCpu& cb : b.cpus) {
    while (ia != a.cpus.end() && ia->cpu < cb.cpu) ++ia;
    if (ia == a.cpus.end()) break;
    if (ia->cpu != cb.cpu || !Monotonic(*ia, cb)) continue;
    cpus->push_back(CpuWindowOf(*ia, cb, seconds));
  }
  QueueWindows(a, b, nic_irqs, seconds, queues);
  return true;
}

}  // namespace bottleneckd
