// Sample: one tick's cumulative readings from every collector, with the time it
// was taken. Nothing in a Sample is derived: rates and ratios are daemon/window's
// business. A part is nullopt when its collector is off or failed this tick.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/capture.h"
#include "collectors/cpu.h"
#include "collectors/interrupts.h"
#include "collectors/netdev.h"
#include "collectors/pci.h"
#include "collectors/soaker.h"
#include "collectors/sockets.h"
#include "collectors/softirqs.h"
#include "collectors/threads.h"

namespace bottleneckd {

struct CollectorResult {
  std::string name;
  bool success = false;
  double duration_seconds = 0;
  std::string error;  // Status::ToString() when !success
};

struct Sample {
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC
  int64_t wall_ns = 0;  // CLOCK_REALTIME, for display only

  std::optional<ProcStat> stat;
  std::optional<CpuPressure> cpu_pressure;
  std::optional<Interrupts> interrupts;
  std::vector<NicIrq> nic_irqs;
  std::optional<Softirqs> softirqs;
  std::optional<std::vector<SoftnetCpu>> softnet;
  std::optional<std::vector<NetDev>> netdev;
  std::optional<SocketStats> sockets;
  std::optional<std::vector<ThreadSample>> threads;
  std::optional<SoakerReading> soaker;  // while the soaker runs
  // Live capture (collectors/capture.h), one reading per configured
  // interface, while capture is configured.
  std::optional<std::vector<CaptureReading>> capture;
  // Static PCI topology, shared by every sample until it changes.
  std::shared_ptr<const PciTopology> pci;
  std::vector<PciAerCounters> pci_aer;  // devices on NIC paths with AER files

  std::vector<CollectorResult> results;
};

}  // namespace bottleneckd
