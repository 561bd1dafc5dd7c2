// HostReadings: one tick's cumulative readings from the polled collectors
// (each fills its part; sources/sample.h adds the continuous sources' and the
// time). Nothing here is derived: rates and ratios are window/'s business. A
// part is nullopt when its collector is off or failed this tick.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "collectors/cpu.h"
#include "collectors/interrupts.h"
#include "collectors/netdev.h"
#include "collectors/pci.h"
#include "collectors/sockets.h"
#include "collectors/softirqs.h"
#include "collectors/threads.h"

namespace bottleneckd {

struct HostReadings {
  std::optional<ProcStat> stat;
  std::optional<CpuPressure> cpu_pressure;
  std::optional<Interrupts> interrupts;
  std::vector<NicIrq> nic_irqs;
  std::optional<Softirqs> softirqs;
  std::optional<std::vector<SoftnetCpu>> softnet;
  std::optional<std::vector<NetDev>> netdev;
  std::optional<SocketStats> sockets;
  std::optional<std::vector<ThreadSample>> threads;
  // The target processes' inputs (collectors/input_sockets.h), set with threads.
  std::optional<std::vector<InputSocket>> input_sockets;
  // Block devices (collectors/diskstats.h), set with threads once a target
  // waited on a file on a device.
  std::optional<std::vector<DiskStat>> disks;
  // Static PCI topology, shared by every sample until it changes.
  std::shared_ptr<const PciTopology> pci;
  std::vector<PciAerCounters> pci_aer;  // devices on NIC paths with AER files
};

}  // namespace bottleneckd
