// Network interface, drop ladder, socket protocol and thread metric families.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "base/kernel_units.h"
#include "collectors/cpu.h"
#include "exporters/prometheus/family_builder.h"
#include "exporters/prometheus/metric_names.h"
#include "exporters/prometheus/metrics_internal.h"
#include "window/window.h"

namespace bottleneckd::internal {
namespace {

using prometheus::MetricType;

// /proc/net/snmp fields that are levels, not counters.
bool IsGaugeField(std::string_view name) {
  return name == "RtoAlgorithm" || name == "RtoMin" || name == "RtoMax" || name == "MaxConn" || name == "CurrEstab";
}

// One series per target thread of the window and wait class, from the rows
// (ThreadWaitShares or ThreadWaitSeconds) matched to it by tid; no family
// when there are no rows (no analysed window yet).
template <typename Row>
void AddByWaitClass(const Window& window, const std::vector<Row>& rows,
                    const std::array<double, kWaitClassCount> Row::*values, MetricsOut* out, MetricName name,
                    std::string_view help, MetricType type) {
  if (rows.empty()) return;
  FamilyBuilder family(out, name, help, type);
  for (const ThreadWindow& t : window.threads) {
    auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.tid == t.tid; });
    if (row == rows.end()) continue;
    std::string pid = std::to_string(t.pid), tid = std::to_string(t.tid);
    for (size_t c = 0; c < kWaitClassCount; ++c)
      family.Add(((*row).*values)[c], {{"process", t.process},
                                       {"pid", pid},
                                       {"thread", t.thread},
                                       {"tid", tid},
                                       {"class", WaitClassName(static_cast<WaitClass>(c))}});
  }
}

}  // namespace

void AddNetworkFamilies(const Snapshot& s, MetricsOut* out) {
  const Sample& smp = s.sample;
  if (smp.netdev) {
    FamilyBuilder info(out, metric::kNetworkInfo,
                       "Facts about each network interface: driver, PCI device, state; value 1.", MetricType::Gauge);
    FamilyBuilder rxp(out, metric::kNetworkReceivePacketsTotal, "Packets received by the interface.",
                      MetricType::Counter);
    FamilyBuilder txp(out, metric::kNetworkTransmitPacketsTotal, "Packets transmitted by the interface.",
                      MetricType::Counter);
    FamilyBuilder rxb(out, metric::kNetworkReceiveBytesTotal, "Bytes received by the interface.", MetricType::Counter);
    FamilyBuilder txb(out, metric::kNetworkTransmitBytesTotal, "Bytes transmitted by the interface.",
                      MetricType::Counter);
    FamilyBuilder stat(out, metric::kNetworkDeviceStatisticTotal,
                       "Every counter in /sys/class/net/IF/statistics, by file name.", MetricType::Counter);
    FamilyBuilder drv(out, metric::kNetworkDriverStatistic,
                      "The driver's ethtool statistics, by name (mostly counters; drivers define them).",
                      MetricType::Untyped);
    for (const NetDev& d : *smp.netdev) {
      info.Add(1, {{"interface", d.name},
                   {"driver", d.driver},
                   {"device", d.pci_device},
                   {"operstate", d.operstate},
                   {"virtual", d.is_virtual ? "true" : "false"}});
      auto add = [&](FamilyBuilder& f, const char* counter) {
        if (auto v = d.Stat(counter)) f.Add(static_cast<double>(*v), {{"interface", d.name}});
      };
      add(rxp, "rx_packets");
      add(txp, "tx_packets");
      add(rxb, "rx_bytes");
      add(txb, "tx_bytes");
      for (const auto& [name, v] : d.stats)
        stat.Add(static_cast<double>(v), {{"interface", d.name}, {"statistic", name}});
      for (const auto& [name, v] : d.ethtool)
        drv.Add(static_cast<double>(v), {{"interface", d.name}, {"statistic", name}});
    }
  }
  // The drop ladder: nic per interface; backlog and socket are host-wide (no
  // interface label: in Prometheus an empty label is an absent one).
  FamilyBuilder drops(out, metric::kNetworkDropsTotal,
                      "Received packets lost on each rung of the drop ladder: nic (missed, fifo, over, no-buffer), "
                      "backlog (softnet dropped), socket (UDP receive buffer errors).",
                      MetricType::Counter);
  if (smp.netdev)
    for (const NetDev& d : *smp.netdev)
      if (auto v = NicRungDrops(d)) drops.Add(static_cast<double>(*v), {{"interface", d.name}, {"rung", "nic"}});
  if (smp.softnet) {
    double sum = 0;
    for (const SoftnetCpu& c : *smp.softnet) sum += static_cast<double>(c.dropped);
    drops.Add(sum, {{"rung", "backlog"}});
  }
  if (smp.sockets) {
    std::optional<double> sum;
    for (const char* proto : {"Udp", "UdpLite"})
      if (auto v = smp.sockets->Get(proto, "RcvbufErrors"); v && *v >= 0)
        sum = sum.value_or(0) + static_cast<double>(*v);
    if (sum) drops.Add(*sum, {{"rung", "socket"}});
  }
}

void AddSocketFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.sockets) return;
  FamilyBuilder counters(out, metric::kNetstatTotal,
                         "Protocol counters from /proc/net/snmp (Udp, UdpLite, Tcp) and /proc/net/netstat (TcpExt).",
                         MetricType::Counter);
  FamilyBuilder gauges(out, metric::kNetstatLevel, "Protocol levels from /proc/net/snmp (Tcp CurrEstab, RtoMin, ...).",
                       MetricType::Gauge);
  for (const SnmpTable& t : s.sample.sockets->tables)
    for (const SnmpField& f : t.fields) {
      if (IsGaugeField(f.name))
        gauges.Add(static_cast<double>(f.value), {{"protocol", t.protocol}, {"statistic", f.name}});
      else
        counters.Add(static_cast<double>(f.value), {{"protocol", t.protocol}, {"statistic", f.name}});
    }
}

void AddThreadFamilies(const Snapshot& s, MetricsOut* out) {
  if (!s.sample.threads) return;
  FamilyBuilder secs(out, metric::kThreadCpuSecondsTotal,
                     "CPU seconds of each thread of the configured target processes.", MetricType::Counter);
  FamilyBuilder last(out, metric::kThreadLastCpu, "The CPU each target thread last ran on.", MetricType::Gauge);
  FamilyBuilder switches(out, metric::kThreadContextSwitchesTotal,
                         "Context switches of each target thread: voluntary (it blocked) and involuntary "
                         "(it was preempted), from /proc/PID/task/TID/status.",
                         MetricType::Counter);
  for (const ThreadSample& t : *s.sample.threads) {
    std::string pid = std::to_string(t.pid), tid = std::to_string(t.task.tid);
    if (t.switches) {
      switches.Add(
          static_cast<double>(t.switches->voluntary),
          {{"process", t.process}, {"pid", pid}, {"thread", t.task.comm}, {"tid", tid}, {"kind", "voluntary"}});
      switches.Add(
          static_cast<double>(t.switches->involuntary),
          {{"process", t.process}, {"pid", pid}, {"thread", t.task.comm}, {"tid", tid}, {"kind", "involuntary"}});
    }
    secs.Add(TicksToSeconds(t.task.utime),
             {{"process", t.process}, {"pid", pid}, {"thread", t.task.comm}, {"tid", tid}, {"mode", "user"}});
    secs.Add(TicksToSeconds(t.task.stime),
             {{"process", t.process}, {"pid", pid}, {"thread", t.task.comm}, {"tid", tid}, {"mode", "system"}});
    last.Add(t.task.processor, {{"process", t.process}, {"pid", pid}, {"thread", t.task.comm}, {"tid", tid}});
  }
  if (!s.window) return;
  FamilyBuilder ratio(out, metric::kThreadCpuRatio, "Share of one CPU each target thread used over the last window.",
                      MetricType::Gauge);
  FamilyBuilder state(out, metric::kThreadStateRatio,
                      "Share of the last window each target thread spent running, runnable (waiting on a run "
                      "queue) and waiting off the CPU in its own waits, from schedstat.",
                      MetricType::Gauge);
  for (const ThreadWindow& t : s.window->threads) {
    std::string pid = std::to_string(t.pid), tid = std::to_string(t.tid);
    ratio.Add(t.cpu_ratio, {{"process", t.process}, {"pid", pid}, {"thread", t.thread}, {"tid", tid}});
    if (!t.running_ratio || !t.runnable_ratio || !t.waiting_ratio) continue;
    const std::pair<const char*, double> states[] = {
        {"running", *t.running_ratio}, {"runnable", *t.runnable_ratio}, {"waiting", *t.waiting_ratio}};
    for (const auto& [name, v] : states)
      state.Add(v, {{"process", t.process}, {"pid", pid}, {"thread", t.thread}, {"tid", tid}, {"state", name}});
  }
  AddByWaitClass(*s.window, s.thread_waits, &ThreadWaitShares::shares, out, metric::kThreadWaitRatio,
                 "Share of the last window each target thread spent off the CPU in its own waits, by what "
                 "it waited on (analysis/wait_class.h): input, peer, lock, disk, sleep, other, unseen; they "
                 "sum to its waiting state ratio.",
                 MetricType::Gauge);
  AddByWaitClass(*s.window, s.thread_wait_seconds, &ThreadWaitSeconds::seconds, out, metric::kThreadWaitSecondsTotal,
                 "Seconds each target thread spent off the CPU in its own waits since the daemon first saw it, by "
                 "what it waited on (the classes of bottleneckd_thread_wait_ratio); its rate() is that ratio over "
                 "the range.",
                 MetricType::Counter);
}

}  // namespace bottleneckd::internal
