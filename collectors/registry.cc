#include "collectors/collectors_config.h"
#include "collectors/cpu.h"
#include "collectors/host_readings.h"
#include "collectors/interrupts.h"
#include "collectors/netdev.h"
#include "collectors/pci.h"
#include "collectors/sockets.h"
#include "collectors/softirqs.h"
#include "collectors/threads.h"

namespace bottleneckd {

// The expensive collectors (docs/performance.md: /proc/interrupts is most of
// a large host's tick, netdev's attributes and ethtool most of a live tick's
// system calls, threads one stat per target thread, pci the AER files of
// every device on a NIC path) carry their parts over ticks they skip; cpu,
// softirqs and sockets are one small file each and always read.
const std::vector<CollectorInfo>& CollectorRegistry() {
  static const std::vector<CollectorInfo> kRegistry = {
      {"cpu", true, "per-CPU time accounting (/proc/stat) and CPU pressure",
       [](const CollectorsConfig&) { return std::make_unique<CpuCollector>(); }, nullptr},
      {"interrupts", true, "per-IRQ counts mapped to NIC queues (/proc/interrupts)",
       [](const CollectorsConfig&) { return std::make_unique<InterruptsCollector>(); },
       [](const HostReadings& a, HostReadings* b) {
         b->interrupts = a.interrupts;
         b->nic_irqs = a.nic_irqs;
       }},
      {"softirqs", true, "softirqs per CPU and softnet backlog statistics",
       [](const CollectorsConfig&) { return std::make_unique<SoftirqsCollector>(); }, nullptr},
      {"netdev", true, "per-interface statistics and driver (ethtool) counters",
       [](const CollectorsConfig& c) { return std::make_unique<NetdevCollector>(c.netdev); },
       [](const HostReadings& a, HostReadings* b) { b->netdev = a.netdev; }},
      {"pci", true, "PCI topology, bus parameters of each NIC's path, AER counters",
       [](const CollectorsConfig&) { return std::make_unique<PciCollector>(); },
       [](const HostReadings& a, HostReadings* b) {
         b->pci = a.pci;
         b->pci_aer = a.pci_aer;
       }},
      {"sockets", true, "UDP/TCP protocol counters (/proc/net/snmp, netstat)",
       [](const CollectorsConfig&) { return std::make_unique<SocketsCollector>(); }, nullptr},
      {"threads", true, "per-thread CPU time and waits of configured target processes, their input sockets",
       [](const CollectorsConfig& c) { return std::make_unique<ThreadsCollector>(c.threads); },
       [](const HostReadings& a, HostReadings* b) {
         b->threads = a.threads;
         b->input_sockets = a.input_sockets;
         b->disks = a.disks;
       }},
  };
  return kRegistry;
}

}  // namespace bottleneckd
