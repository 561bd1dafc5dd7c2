// Signals (docs/verdict-rules.md section 1): per resource, the USE triple the
// verdict rules read, extracted from one Window (and the two Samples around
// it). Pure data; nothing here decides anything.
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

#include "analysis/loss_tolerance.h"
#include "bus/bus_model.h"
#include "bus/bus_path.h"
#include "sources/sample.h"
#include "window/window.h"

namespace bottleneckd {

// A NIC queue's share of one CPU in hardirq + the network softirq it raised
// (measured by irqtime).
struct QueueShare {
  std::string interface, queue;  // "eth0", "TxRx-3"
  double ratio = 0;              // of the CPU's time
};

struct CpuSignal {
  int cpu = -1;
  double busy = 0;  // soaker busy when measured, else accounting busy
  bool busy_from_soaker = false;
  double accounting_busy = 0;             // /proc/stat, soaker time removed
  std::optional<double> soaker_idle;      // delivered idle (soaker), when it ran
  double interrupt_share = 0;             // (irq + softirq) / busy time (0 when busy is 0)
  double interrupt_ratio = 0;             // (irq + softirq) / elapsed
  double accounting_interrupt_ratio = 0;  // /proc/stat's irq + softirq ticks / elapsed, whatever measured it
  // interrupt_ratio and softirq_ratio were measured by irqtime (eBPF, the
  // handlers' own time) rather than sampled by /proc/stat's ticks.
  bool interrupt_measured = false;
  double hardirq_ratio = 0;           // measured only (0 otherwise)
  double net_rx_ratio = 0;            // measured only: the NET_RX vector's share
  double net_unattributed_ratio = 0;  // measured only: network softirq charged to no queue (RPS, busy poll)
  std::vector<QueueShare> queues;     // measured only: NIC queues on this CPU, largest first
  double hidden = 0;                  // soaker hidden time ratio (0 without soaker)
  double steal = 0;
  double softirq_ratio = 0;  // softirq / elapsed
  double time_squeeze_per_second = 0;
  double backlog_drops_per_second = 0;
  double interrupts_per_second = 0;         // device IRQs
  double system_interrupts_per_second = 0;  // local timer and IPIs (/proc/interrupts' named lines)
  double rx_packets_per_second = 0;         // packets its receive processing handled (softnet processed)
  // Interrupt delivery and entry/exit the interrupt source above does not
  // see: the host's learned cost per interrupt times this CPU's interrupts
  // (analysis/delivery_cost.h), an estimate; counted in interrupt_share.
  // 0 and not learned until the Analyzer has learned the cost.
  double delivery_ratio = 0;
  bool delivery_learned = false;
};

// Where a target thread's window went (schedstat's nanoseconds): on a CPU,
// runnable but waiting on a run queue, and off the CPU in its own waits (a
// sleep, a lock, a peer, an empty socket): the rest. The shares sum to 1.
struct ThreadState {
  double running = 0, runnable = 0, waiting = 0;
  std::optional<double> voluntary_per_second, involuntary_per_second;  // context switches (status)
  // Sampled once, at the window's end: the kernel function it slept in and
  // the system call ("clock_nanosleep"); "" when it was running or they
  // were hidden (no ptrace access).
  std::string wchan, syscall;
  // Where it waits, most first: measured (places_measured: offcpu's eBPF
  // totals of this window, each place's share of the thread's time off the
  // CPU in `ratio`; its own waits only, preemptions count in the time but are
  // not places) or else sampled (Analyzer's
  // WaitHistory, the last kWaitSamples windows: each place's count in
  // `samples`, and how many samples there were, on the CPU or hidden ones
  // included, in place_samples).
  struct Place {
    std::string where;  // "hrtimer_nanosleep (clock_nanosleep)"
    int samples = 0;
    double ratio = 0;
    // Of the sampled waits in this kernel function (the history's, also
    // when the places are measured): those whose object was resolved, those
    // on a socket connected to one peer, and the object seen most.
    int object_samples = 0, peer_samples = 0;
    std::string object{};
    // Measured places: who ended its waits (offcpu's sched_waking), of the
    // place's time, largest first (window/offcpu_window.h WakerShare).
    std::vector<WakerShare> wakers{};
    // Of the place's time, the share woken by a thread that receives the
    // work while this one does not (analysis/wait_history.h, receivers): a
    // handoff of its input. Set for futex places of threads not receiving.
    double handoff = 0;
  };
  std::vector<Place> places;
  int place_samples = 0;
  bool places_measured = false;
  // Set when offcpu followed the thread through the window but measured
  // under half of its waiting (window/offcpu_window.h MeasuredMissed: its
  // measured own waits' share of the window): a wait under way since before
  // it was followed. Its places are then the sampled ones.
  std::optional<double> measured_missed{};
  // What the window-end sample's system call waited on, resolved from its
  // descriptor (collectors/wait_object.h): "udp 10.0.0.1:40000 ->
  // 10.0.0.2:7000"; "" when none or unknown. object_peer: a socket
  // connected to one peer.
  std::string object{};
  bool object_peer = false;
  // The daemon may not read where it waits (no ptrace access to it).
  bool hidden = false;
  // The thread has been seen blocked in a socket receive (its input or a
  // peer's answer: WaitedForInput) since it was first seen: it takes its
  // work from the network.
  bool receiver = false;
};

struct ThreadSignal {
  std::string process, thread;
  int tid = 0;
  // Of one CPU: schedstat's running share when the kernel gives it, else
  // utime + stime ticks.
  double cpu_share = 0;
  std::optional<ThreadState> state;  // nullopt without schedstat
  int cpu = -1;                      // last CPU it ran on
  // The interrupt share (hardirq+softirq of busy time) of the CPU it ran on.
  // Without CONFIG_IRQ_TIME_ACCOUNTING the kernel charges softirq work done
  // on exit from an interrupt to the thread it interrupted, so a thread on a
  // CPU that spends most of its time in interrupts is not using its time.
  double cpu_interrupt_share = 0;
  int pid = 0;  // its process; 0 unknown
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
  // A loopback interface on the packet path: its counters count an echo's
  // request and reply both. loopback_by_capture: rx and tx are the trusted
  // live capture's requests and replies instead (each echo once).
  bool loopback = false, loopback_by_capture = false;
};

enum class Rung { kNone, kNic, kBacklog, kSocket };
const char* RungName(Rung r);  // "none", "nic", "backlog", "socket"

// How ExtractSignals reads a window (VerdictThresholds::signal_options()).
struct SignalOptions {
  LossTolerance loss;
  // The interfaces whose packets are the offered and delivered load; empty:
  // every interface but loopback (then a loopback echo test needs `lo` here).
  std::vector<std::string> packet_path_interfaces;
  // The CPUs that are this host's (verdict.cpus: a container's cpuset, a
  // partition of a shared machine), sorted; empty: every CPU. The others
  // are no CPU signal: no rule weighs them, the plateau does not follow them.
  std::vector<int> cpus;
};

struct LadderSignal {
  double nic = 0, backlog = 0, socket = 0;  // drops per second per rung
  // The lowest rung (NIC first) losing under the LossTolerance; kNone when none.
  Rung first_losing = Rung::kNone;
};

struct Signals {
  double seconds = 0;  // window length
  std::vector<CpuSignal> cpus;
  std::vector<ThreadSignal> threads;
  std::vector<NicSignal> nics;  // physical (PCI-backed) first, then virtual; idle virtual ones left out
  LadderSignal ladder;
  // Loads, over the interfaces on the packet path (every one but loopback):
  double received_packets_per_second = 0;   // NIC rx packets
  double offered_packets_per_second = 0;    // received + NIC-rung drops (what reached the box)
  double delivered_packets_per_second = 0;  // what the applications got: received - backlog - socket drops
  // Received on the interfaces left off the packet path (loopback unless
  // packet_path_interfaces names it), and the busiest of them: load the
  // verdict does not count, said when it is most of what arrived.
  double off_path_packets_per_second = 0;
  std::string off_path_busiest;
  // The packet path's CPUs, sorted: where the target threads (the sockets'
  // readers) ran, and where receive processing ran (the NICs' queue CPUs and
  // CPUs whose softnet handled at least kRxCpuShare of the packets).
  std::vector<int> reader_cpus;
  std::vector<int> rx_cpus;
  std::optional<double> cpu_pressure_some;  // /proc/pressure/cpu "some" stall ratio, host-wide
  // Across a sweep (set by the caller that has one, never by ExtractSignals):
  // ThroughputTracksCpuCost (analysis/plateau.h) held for the steps.
  std::optional<bool> throughput_tracks_cpu_cost;
  // The live capture's windows (without their flows): evidence and the run
  // timeline's applied vs echoed; the rules do not read them.
  std::vector<CaptureWindow> captures;
  // The target processes' input sockets (window/window.h): evidence beside
  // a waiting thread's wait; the rules do not read them.
  std::vector<InputSocketWindow> input_sockets;
  // Block devices a target waited on a file of (window/window.h): evidence
  // beside a disk wait; the rules do not read them.
  std::vector<DiskWindow> disks;
};

// Extracts the signals of one window. `prev` and `cur` are the Samples that
// start and end it (cur for the IRQ -> NIC map and each interface's PCI
// device; both for the per-CPU counts of each NIC's IRQs, which Window does
// not keep); `paths` and `bus` (the bus model's estimate for the window) may be
// null (no PCI collector). A CPU serves a NIC's
// queues when the window says one of that NIC's IRQs counted on it
// (NicWindow::irq_cpus): analysis differences no raw sample; `cur` gives the
// devices' attributes. `o.loss` says when a rung counts as losing. Interfaces off
// the packet path (loopback, unless o.packet_path_interfaces names it; any
// interface it does not name when it names some) are left out of the NICs
// and the loads: a scrape of the daemon is not offered load. Every rate is
// finite: a missing or non-finite input counts as 0.
Signals ExtractSignals(const Window& w, const Sample& cur, const std::vector<BusPath>* paths, const BusEstimate* bus,
                       const SignalOptions& o);

// The CPU whose utilisation the plateau and the run timeline follow: the
// busiest (soaker busy when it ran) of the CPUs the target threads ran on,
// or of every CPU without target threads. A load generator on the same
// host, or a CPU the application never runs on, does not hide the
// application's plateau. nullptr when no CPU was measured.
const CpuSignal* ApplicationCpu(const Signals& s);

// A CPU whose softnet handled at least this share of all CPUs' packets is a
// receive-processing CPU (RPS, or the sender's CPU for veth and loopback).
inline constexpr double kRxCpuShare = 0.10;

}  // namespace bottleneckd
