// irqtime windows: the measured hardirq and softirq share of each CPU, of
// each softirq vector and of each NIC queue's IRQ between two IrqTimeReadings
// (sources/irqtime.h). Pure arithmetic, no I/O.
//
//   hardirq ratio of a CPU  = d hardirq_ns / window
//   softirq ratio           = d (sum of the vectors' ns) / window
//   queue ratio on a CPU    = d (its IRQ's hardirq_ns + net_softirq_ns) / window
//
// `window` is the readings' own clock (b.mono_ns - a.mono_ns). Each ratio is
// clamped to [0, 1] (the maps and the clock are read microseconds apart), and
// so are the sums interrupt_ratio() and ratio().
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "collectors/interrupts.h"
#include "sources/irqtime.h"

namespace bottleneckd {

struct IrqTimeCpuWindow {
  int cpu = -1;
  double hardirq_ratio = 0, softirq_ratio = 0;  // of the window
  std::array<double, kSoftirqVectors> vector_ratio{};
  double net_unattributed_ratio = 0;  // network softirq time charged to no IRQ
  double hardirqs_per_second = 0, softirqs_per_second = 0;
  double interrupt_ratio() const { return std::min(1.0, hardirq_ratio + softirq_ratio); }
};

// One NIC queue's IRQ on one CPU (entries with no time in the window are left
// out).
struct IrqTimeQueueWindow {
  std::string interface, queue;  // from the interrupts collector's map ("eth0", "TxRx-3")
  uint32_t irq = 0;
  int cpu = -1;
  double hardirq_ratio = 0, net_softirq_ratio = 0;  // of that CPU's window
  double ratio() const { return std::min(1.0, hardirq_ratio + net_softirq_ratio); }
};

// (b.mono_ns - a.mono_ns) in seconds; 0 when either is unset or b is not later.
double IrqTimeWindowSeconds(const IrqTimeReading& a, const IrqTimeReading& b);

// Every CPU in both readings, in cpu order (a CPU in only one is left out).
// False (and *cpus, *queues cleared) when the generations differ (the program
// was reloaded: counters restarted) or the window is not > 0. A counter that
// went backwards on a CPU leaves that CPU out, the others kept (the return is
// still true).
// Queues: the IrqTimeIrq entries of b whose IRQ `nic_irqs` maps to a NIC queue,
// matched with a's by (irq, cpu), sorted by (interface, queue, cpu). An entry
// only in b counts from 0 (the per-IRQ slot is made by the IRQ's first
// interrupt: not a reset); one whose own counters went backwards is left out.
// hardirqs_per_second = d hardirq_count / window; softirqs_per_second = d (sum
// of the vectors' softirq_count) / window.
bool ComputeIrqTimeWindows(const IrqTimeReading& a, const IrqTimeReading& b, const std::vector<NicIrq>& nic_irqs,
                           std::vector<IrqTimeCpuWindow>* cpus, std::vector<IrqTimeQueueWindow>* queues);

}  // namespace bottleneckd
