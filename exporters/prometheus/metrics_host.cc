// CPU, interrupt and softirq metric families.
#include <algorithm>
#include <string>

#include "base/kernel_units.h"
#include "collectors/cpu.h"
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

std::string CpuLabel(int cpu) { return std::to_string(cpu); }

}  // namespace

void AddCpuFamilies(const Snapshot& s, MetricsOut* out) {
  const Sample& smp = s.sample;
  if (smp.stat) {
    FamilyBuilder f(out, metric::kCpuSecondsTotal,
                    "Seconds each CPU spent in each mode, from /proc/stat (guest time is included in user).",
                    MetricType::Counter);
    FamilyBuilder g(out, metric::kCpuGuestSecondsTotal, "Seconds each CPU spent running guests, from /proc/stat.",
                    MetricType::Counter);
    for (const CpuTimes& c : smp.stat->cpus) {
      std::string cpu = CpuLabel(c.cpu);
      auto add = [&](const char* mode, std::optional<uint64_t> ticks) {
        if (ticks) f.Add(TicksToSeconds(*ticks), {{"cpu", cpu}, {"mode", mode}});
      };
      add("user", c.user);
      add("nice", c.nice);
      add("system", c.system);
      add("idle", c.idle);
      add("iowait", c.iowait);
      add("irq", c.irq);
      add("softirq", c.softirq);
      add("steal", c.steal);
      if (c.guest) g.Add(TicksToSeconds(*c.guest), {{"cpu", cpu}, {"mode", "user"}});
      if (c.guest_nice) g.Add(TicksToSeconds(*c.guest_nice), {{"cpu", cpu}, {"mode", "nice"}});
    }
  }
  if (smp.cpu_pressure) {
    FamilyBuilder f(out, metric::kCpuPressureStallSecondsTotal,
                    "Seconds in which some (or all) runnable tasks waited for a CPU, from /proc/pressure/cpu.",
                    MetricType::Counter);
    if (smp.cpu_pressure->some) f.Add(MicrosToSeconds(smp.cpu_pressure->some->total_us), {{"kind", "some"}});
    if (smp.cpu_pressure->full) f.Add(MicrosToSeconds(smp.cpu_pressure->full->total_us), {{"kind", "full"}});
  }
  if (!s.window) return;
  const Window& w = *s.window;
  {
    FamilyBuilder f(out, metric::kCpuBusyRatio,
                    "Share of the last window each CPU was busy. source=accounting: 1 - (idle+iowait)/elapsed "
                    "from /proc/stat, steal counted as busy, the soaker's own time not; source=soaker: 1 - "
                    "delivered idle (soaker iterations / (calibrated rate x window)).",
                    MetricType::Gauge);
    for (const CpuWindow& c : w.cpus) f.Add(c.busy_ratio, {{"cpu", CpuLabel(c.cpu)}, {"source", "accounting"}});
    for (const SoakerCpuWindow& c : w.soaker) f.Add(c.busy_ratio, {{"cpu", CpuLabel(c.cpu)}, {"source", "soaker"}});
  }
  {
    FamilyBuilder f(out, metric::kCpuInterruptRatio,
                    "Share of the last window each CPU spent in hardirq + softirq context. source=accounting: "
                    "(irq + softirq) / elapsed ticks from /proc/stat; source=ebpf: measured handler time / window "
                    "(irqtime eBPF program, while loaded).",
                    MetricType::Gauge);
    for (const CpuWindow& c : w.cpus) f.Add(c.interrupt_ratio, {{"cpu", CpuLabel(c.cpu)}, {"source", "accounting"}});
    for (const IrqTimeCpuWindow& c : w.irqtime)
      f.Add(c.interrupt_ratio(), {{"cpu", CpuLabel(c.cpu)}, {"source", "ebpf"}});
  }
  {
    FamilyBuilder f(out, metric::kCpuStealRatio,
                    "Share of the last window the hypervisor ran something else on each virtual CPU.",
                    MetricType::Gauge);
    for (const CpuWindow& c : w.cpus) f.Add(c.steal_ratio, {{"cpu", CpuLabel(c.cpu)}});
  }
  if (!w.soaker.empty()) {
    FamilyBuilder f(out, metric::kCpuHiddenRatio,
                    "Share of the last window the kernel charged to the soaker thread but its work does not "
                    "account for: cycles lost to unaccounted interrupts, steal, cache and frequency effects.",
                    MetricType::Gauge);
    for (const SoakerCpuWindow& c : w.soaker) f.Add(c.hidden_ratio, {{"cpu", CpuLabel(c.cpu)}});
  }
  if (w.cpu_pressure_some_ratio) {
    FamilyBuilder f(out, metric::kCpuPressureStallRatio,
                    "Share of the last window in which some runnable task waited for a CPU.", MetricType::Gauge);
    f.Add(*w.cpu_pressure_some_ratio, {{"kind", "some"}});
  }
}

void AddSoakerFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.soaker || !s.sample.soaker->running) return;  // not while it only calibrates
  const SoakerReading& r = *s.sample.soaker;
  {
    std::string help =
        "1 while the soaker runs; scheduler=\"idle\" (SCHED_IDLE) or \"nice19\" (SCHED_IDLE refused: the soaker "
        "competes with nice 19 work and idle reads low).";
    if (!r.caveat.empty()) help += " Caveat: " + r.caveat;
    FamilyBuilder info(out, metric::kSoakerInfo, help, MetricType::Gauge);
    info.Add(1, {{"scheduler", r.sched_idle ? "idle" : "nice19"}});
  }
  FamilyBuilder rate(out, metric::kSoakerCalibrationIterationsPerSecond,
                     "The soaker's calibrated work rate on each CPU, per second of its own CPU time.",
                     MetricType::Gauge);
  FamilyBuilder when(out, metric::kSoakerCalibrationTimestampSeconds,
                     "When each CPU's calibration in use was measured (Unix time); time() minus this is its age.",
                     MetricType::Gauge);
  FamilyBuilder iters(out, metric::kSoakerIterationsTotal,
                      "Work units the soaker completed on each CPU (restart at 0 when its thread restarts).",
                      MetricType::Counter);
  for (const SoakerCpu& c : r.cpus) {
    rate.Add(c.iterations_per_second, {{"cpu", CpuLabel(c.cpu)}});
    when.Add(static_cast<double>(c.calibrated_unix_seconds), {{"cpu", CpuLabel(c.cpu)}});
    iters.Add(static_cast<double>(c.iterations), {{"cpu", CpuLabel(c.cpu)}});
  }
}

void AddInterruptFamilies(const Snapshot& s, MetricsOut* out) {
  const Sample& smp = s.sample;
  if (!smp.interrupts) return;
  const Interrupts& irqs = *smp.interrupts;
  {
    // Device IRQs (numeric lines) per CPU.
    FamilyBuilder f(out, metric::kCpuInterruptsTotal,
                    "Device interrupts delivered to each CPU (numeric lines of /proc/interrupts).",
                    MetricType::Counter);
    std::vector<double> per_cpu(irqs.cpus.size(), 0);
    for (const IrqLine& l : irqs.lines) {
      if (!l.irq) continue;
      for (size_t i = 0; i < l.per_cpu.size() && i < per_cpu.size(); ++i)
        per_cpu[i] += static_cast<double>(l.per_cpu[i]);
    }
    for (size_t i = 0; i < per_cpu.size(); ++i) f.Add(per_cpu[i], {{"cpu", CpuLabel(irqs.cpus[i])}});
  }
  {
    FamilyBuilder f(out, metric::kInterruptsNamedTotal,
                    "Architecture interrupts (LOC, RES, CAL, TLB, NMI, ...) summed over CPUs, by name.",
                    MetricType::Counter);
    for (const IrqLine& l : irqs.lines) {
      if (l.irq) continue;
      double sum = 0;
      for (uint64_t v : l.per_cpu) sum += static_cast<double>(v);
      f.Add(sum, {{"name", l.name}});
    }
  }
  {
    FamilyBuilder nic(out, metric::kInterruptsTotal, "Interrupts of each network interface, all its queues and CPUs.",
                      MetricType::Counter);
    FamilyBuilder queue(out, metric::kInterruptsQueueTotal, "Interrupts of each NIC queue's IRQ, summed over CPUs.",
                        MetricType::Counter);
    std::vector<std::pair<std::string, double>> by_nic;
    for (const NicIrq& n : smp.nic_irqs) {
      double sum = 0;
      for (const IrqLine& l : irqs.lines)
        if (l.irq && *l.irq == n.irq)
          for (uint64_t v : l.per_cpu) sum += static_cast<double>(v);
      queue.Add(sum, {{"interface", n.interface}, {"queue", n.queue}, {"irq", std::to_string(n.irq)}});
      auto it = std::find_if(by_nic.begin(), by_nic.end(), [&](const auto& p) { return p.first == n.interface; });
      if (it == by_nic.end())
        by_nic.emplace_back(n.interface, sum);
      else
        it->second += sum;
    }
    for (const auto& [ifname, sum] : by_nic) nic.Add(sum, {{"interface", ifname}});
  }
  if (s.per_cpu_irq_matrix) {
    FamilyBuilder f(out, metric::kInterruptsCpuTotal,
                    "Interrupts per IRQ line and CPU (collectors.interrupts.per_cpu_matrix; high cardinality).",
                    MetricType::Counter);
    for (const IrqLine& l : irqs.lines)
      for (size_t i = 0; i < l.per_cpu.size() && i < irqs.cpus.size(); ++i)
        f.Add(static_cast<double>(l.per_cpu[i]), {{"irq", l.name}, {"cpu", CpuLabel(irqs.cpus[i])}});
  }
}

void AddSoftirqFamilies(const Snapshot& s, MetricsOut* out) {
  const Sample& smp = s.sample;
  if (smp.softirqs) {
    FamilyBuilder f(out, metric::kSoftirqsTotal, "Softirqs raised per CPU and type, from /proc/softirqs.",
                    MetricType::Counter);
    for (const SoftirqRow& r : smp.softirqs->rows)
      for (size_t i = 0; i < r.per_cpu.size() && i < smp.softirqs->cpus.size(); ++i)
        f.Add(static_cast<double>(r.per_cpu[i]), {{"cpu", CpuLabel(smp.softirqs->cpus[i])}, {"type", r.type}});
  }
  if (!smp.softnet) return;
  FamilyBuilder processed(out, metric::kSoftnetProcessedTotal,
                          "Packets processed by each CPU's network softirq (softnet_stat column 1).",
                          MetricType::Counter);
  FamilyBuilder dropped(out, metric::kSoftnetDroppedTotal,
                        "Packets dropped because the CPU's input backlog was full (softnet_stat column 2).",
                        MetricType::Counter);
  FamilyBuilder squeezed(out, metric::kSoftnetTimesSqueezedTotal,
                         "Times net_rx_action ran out of budget or time with work left (softnet_stat column 3).",
                         MetricType::Counter);
  FamilyBuilder rps(out, metric::kSoftnetReceivedRpsTotal,
                    "Times this CPU was woken by an inter-processor interrupt to process packets (RPS).",
                    MetricType::Counter);
  FamilyBuilder flow(out, metric::kSoftnetFlowLimitCountTotal,
                     "Packets dropped by the flow limit (softnet_stat column 11).", MetricType::Counter);
  FamilyBuilder backlog(out, metric::kSoftnetBacklogPackets,
                        "Packets waiting in the CPU's input and process queues (softnet_stat column 12).",
                        MetricType::Gauge);
  for (const SoftnetCpu& c : *smp.softnet) {
    std::string cpu = CpuLabel(c.cpu);
    processed.Add(static_cast<double>(c.processed), {{"cpu", cpu}});
    dropped.Add(static_cast<double>(c.dropped), {{"cpu", cpu}});
    squeezed.Add(static_cast<double>(c.time_squeeze), {{"cpu", cpu}});
    if (c.received_rps) rps.Add(static_cast<double>(*c.received_rps), {{"cpu", cpu}});
    if (c.flow_limit_count) flow.Add(static_cast<double>(*c.flow_limit_count), {{"cpu", cpu}});
    if (c.backlog_len) backlog.Add(static_cast<double>(*c.backlog_len), {{"cpu", cpu}});
  }
}

}  // namespace bottleneckd::internal
