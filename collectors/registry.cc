#include "collectors/collectors_config.h"
#include "collectors/cpu.h"
#include "collectors/interrupts.h"
#include "collectors/netdev.h"
#include "collectors/pci.h"
#include "collectors/sockets.h"
#include "collectors/softirqs.h"
#include "collectors/threads.h"

namespace bottleneckd {

const std::vector<CollectorInfo>& CollectorRegistry() {
  static const std::vector<CollectorInfo> kRegistry = {
      {"cpu", true, "per-CPU time accounting (/proc/stat) and CPU pressure",
       [](const CollectorsConfig&) { return std::make_unique<CpuCollector>(); }},
      {"interrupts", true, "per-IRQ counts mapped to NIC queues (/proc/interrupts)",
       [](const CollectorsConfig&) { return std::make_unique<InterruptsCollector>(); }},
      {"softirqs", true, "softirqs per CPU and softnet backlog statistics",
       [](const CollectorsConfig&) { return std::make_unique<SoftirqsCollector>(); }},
      {"netdev", true, "per-interface statistics and driver (ethtool) counters",
       [](const CollectorsConfig& c) { return std::make_unique<NetdevCollector>(c.netdev); }},
      {"pci", true, "PCI topology, bus parameters of each NIC's path, AER counters",
       [](const CollectorsConfig&) { return std::make_unique<PciCollector>(); }},
      {"sockets", true, "UDP/TCP protocol counters (/proc/net/snmp, netstat)",
       [](const CollectorsConfig&) { return std::make_unique<SocketsCollector>(); }},
      {"threads", true, "per-thread CPU time of configured target processes",
       [](const CollectorsConfig& c) { return std::make_unique<ThreadsCollector>(c.threads); }},
  };
  return kRegistry;
}

}  // namespace bottleneckd
