#include "sources/source_registry.h"

#include "collectors/collector.h"

namespace bottleneckd {

const std::vector<SourceInfo>& SourceRegistry() {
  static const std::vector<SourceInfo> kSources = {
      {"pcap", "off",
       "libpcap capture of collectors.pcap.interfaces or --capture.interface (CAP_NET_RAW): applied vs echoed "
       "rate, turnaround"},
      {"irqtime", "auto",
       "eBPF hardirq/softirq time per CPU, vector and NIC queue (CAP_BPF, CAP_PERFMON; collectors.irqtime.mode)"},
      {"offcpu", "auto",
       "eBPF time the target threads spend off the CPU, per wait site (CAP_BPF, CAP_PERFMON, kernel BTF, kallsyms); "
       "loaded with collectors.threads.targets"},
  };
  return kSources;
}

bool KnownCollectorName(const std::string& name) {
  for (const CollectorInfo& c : CollectorRegistry())
    if (c.name == name) return true;
  for (const SourceInfo& s : SourceRegistry())
    if (s.name == name) return true;
  return false;
}

}  // namespace bottleneckd
