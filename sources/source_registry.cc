#include "sources/source_registry.h"

#include "collectors/collector.h"
#include "sources/source.h"

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
      {"profile", "auto",
       "eBPF on-CPU stacks at 49 Hz of the CPU the verdict names and the target threads (CAP_BPF, CAP_PERFMON; "
       "collectors.profile)"},
  };
  return kSources;
}

bool ParseLoadMode(std::string_view s, LoadMode* out) {
  if (s == "off") {
    *out = LoadMode::kOff;
  } else if (s == "auto") {
    *out = LoadMode::kAuto;
  } else if (s == "on") {
    *out = LoadMode::kOn;
  } else {
    return false;
  }
  return true;
}

const char* LoadModeName(LoadMode m) {
  switch (m) {
    case LoadMode::kOff: return "off";
    case LoadMode::kAuto: return "auto";
    case LoadMode::kOn: return "on";
  }
  return "auto";
}

bool KnownCollectorName(const std::string& name) {
  for (const CollectorInfo& c : CollectorRegistry())
    if (c.name == name) return true;
  for (const SourceInfo& s : SourceRegistry())
    if (s.name == name) return true;
  return false;
}

}  // namespace bottleneckd
