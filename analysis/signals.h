// Signals (DESIGN.md section 2): per resource, the USE triple the verdict
// rules read, extracted from one Window (and the two Samples around it). Pure
// data; nothing here decides anything.
// - each CPU: busy (soaker when it ran, else accounting), hardirq+softirq
//   share of busy, hidden time, steal, time_squeeze and backlog drops;
// - each target thread: its share of one CPU;
// - each NIC: packet rates, interrupt rate, packets per interrupt, NIC drops,
//   the CPUs its queues' interrupts land on, its bus path's utilisation;
// - the drop ladder: which rung loses packets first.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "sources/sample.h"
#include "window/window.h"

namespace bottleneckd {

struct CpuSignal {
  int cpu = -1;
  double busy = 0;  // soaker busy when measured, else accounting busy
  bool busy_from_soaker = false;
  double accounting_busy = 0;         // /proc/stat, soaker time removed
  std::optional<double> soaker_idle;  // delivered idle (soaker), when it ran
  double interrupt_share = 0;         // (irq + softirq) / busy time (0 when busy is 0)
  double interrupt_ratio = 0;         // (irq + softirq) / elapsed
  double hidden = 0;                  // soaker hidden time ratio (0 without soaker)
  double steal = 0;
  double time_squeeze_per_second = 0;
  double backlog_drops_per_second = 0;
  double interrupts_per_second = 0;
};

struct ThreadSignal {
  std::string process, thread;
  int tid = 0;
  double cpu_share = 0;  // of one CPU
  int cpu = -1;          // last CPU it ran on
};

struct NicSignal {
  std::string interface;
  std::string device;  // PCI function, "" when none
  double rx_packets_per_second = 0, tx_packets_per_second = 0;
  double rx_bits_per_second = 0, tx_bits_per_second = 0;
  double interrupts_per_second = 0;
  std::optional<double> packets_per_interrupt;
  double nic_drops_per_second = 0;  // missed + fifo + over + no-buffer
  std::vector<int> queue_cpus;      // CPUs that took this NIC's interrupts this window, sorted
  // Bus (when the topology and model are available).
  std::optional<double> bus_utilisation;  // the path's busiest link
  std::string bus_bottleneck;             // that link's device ("0000:01:1d.0")
  bool bus_emulated = false;              // the path's busiest link is a hypervisor's
  std::string bus_link;                   // that link described: "PCI 33 MHz/32-bit", "PCIe 8.0GT/s x4"; "" unknown
  std::string bus_segment;                // that link's PCI/PCI-X segment ("0000:02"); "" for PCIe or unknown
  int bus_link_nics = 0;                  // NICs whose traffic the model put on that link (>1: a shared segment)
};

enum class Rung { kNone, kNic, kBacklog, kSocket };
const char* RungName(Rung r);  // "none", "nic", "backlog", "socket"

struct LadderSignal {
  double nic = 0, backlog = 0, socket = 0;  // drops per second per rung
  // The lowest rung (NIC first) losing more than the noise floor
  // (VerdictThresholds::drop_floor_per_second); kNone when none.
  Rung first_losing = Rung::kNone;
};

struct Signals {
  double seconds = 0;  // window length
  std::vector<CpuSignal> cpus;
  std::vector<ThreadSignal> threads;
  std::vector<NicSignal> nics;  // physical (PCI-backed) first, then virtual; idle virtual ones left out
  LadderSignal ladder;
  double delivered_packets_per_second = 0;  // sum of NIC rx packets
  double offered_packets_per_second = 0;    // delivered + NIC-rung drops (what reached the box)
  std::optional<double> cpu_pressure_some;  // /proc/pressure/cpu "some" stall ratio, host-wide
  // Across a sweep (set by the caller that has one, never by ExtractSignals):
  // ThroughputTracksCpuCost (analysis/plateau.h) held for the steps.
  std::optional<bool> throughput_tracks_cpu_cost;
  // The live capture's windows (without their flows): evidence and the run
  // timeline's applied vs echoed; the rules do not read them.
  std::vector<CaptureWindow> captures;
};

// Extracts the signals of one window. `prev` and `cur` are the Samples that
// start and end it (cur for the IRQ -> NIC map and each interface's PCI
// device; both for the per-CPU counts of each NIC's IRQs, which Window does
// not keep); `paths` and `bus` (the bus model's estimate for the window) may be
// null (no PCI collector). A CPU serves a NIC's
// queues when the per-CPU count of one of that NIC's IRQs moved on it between
// prev and cur. drop_floor_per_second: at or below it a rung does not count as
// losing. Every rate is finite: a missing or non-finite input counts as 0.
Signals ExtractSignals(const Window& w, const Sample& prev, const Sample& cur, const std::vector<BusPath>* paths,
                       const BusEstimate* bus, double drop_floor_per_second);

}  // namespace bottleneckd
