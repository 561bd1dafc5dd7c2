// Window: what happened between two Samples, as rates and ratios. This is the
// one place where counters are differenced; wrap and reset are detected here
// (window/counter.h), reported in `issues`, and leave the affected rate unset
// instead of producing a spike. CPUs, interfaces, IRQs and threads present in
// only one of the two samples are left out of the window. A collector's part
// carried over a tick it skipped (CollectorResult::carried, the self-limit
// watchdog's back-off) is left out of that tick's window, and the next
// reading is differenced against the carried one over the time between the
// two real reads, never as if it were one interval.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sources/profile_fold.h"
#include "sources/sample.h"
#include "window/capture_window.h"
#include "window/counter.h"
#include "window/irqtime_window.h"
#include "window/nic_drop_counters.h"
#include "window/offcpu_window.h"
#include "window/soaker_window.h"

namespace bottleneckd {

// One CPU over the window, from /proc/stat accounting. Ratios are of the CPU's
// elapsed ticks (the sum of all its fields' deltas), so they add up to 1.
struct CpuWindow {
  int cpu = -1;
  double busy_ratio = 0;       // 1 - (idle + iowait) / elapsed; steal counts as busy;
                               // the soaker's own CPU time is not busy
  double interrupt_ratio = 0;  // (irq + softirq) / elapsed: time in interrupt context
  double irq_ratio = 0, softirq_ratio = 0, steal_ratio = 0, iowait_ratio = 0;
  double user_ratio = 0, system_ratio = 0;
  double elapsed_seconds = 0;        // the CPU's elapsed ticks / USER_HZ
  double interrupts_per_second = 0;  // device IRQs delivered to this CPU (/proc/interrupts)
  // The named lines' interrupts on this CPU (local timer, IPIs: LOC, RES,
  // CAL, TLB, ...), which no device IRQ counts.
  double system_interrupts_per_second = 0;
  double net_rx_softirqs_per_second = 0;
  double rx_packets_per_second = 0;     // softnet column 1: packets this CPU's receive processing handled
  double time_squeeze_per_second = 0;   // softnet column 3
  double backlog_drops_per_second = 0;  // softnet column 2
};

// One network interface over the window. Rates are nullopt when a counter reset.
struct NicWindow {
  std::string interface;
  std::optional<double> rx_packets_per_second, tx_packets_per_second;
  std::optional<double> rx_bits_per_second, tx_bits_per_second;
  std::optional<double> interrupts_per_second;  // all IRQs mapped to this NIC
  std::optional<double> packets_per_interrupt;  // (rx+tx packets) / interrupts
  std::optional<double> nic_drops_per_second;   // the driver's loss counters (docs/metrics.md "NIC drops by driver")
  // The CPUs where the per-CPU count of one of this NIC's IRQs moved over
  // the window (a wrap or reset too), ascending: the CPUs serving its
  // queues. Empty when no IRQ of it could be differenced.
  std::vector<int> irq_cpus;
};

// Drops per second on each rung of the receive drop ladder (docs/verdict-rules.md section 1, "The drop ladder").
struct DropLadder {
  std::optional<double> nic;      // sum over interfaces
  std::optional<double> backlog;  // softnet dropped, all CPUs
  std::optional<double> socket;   // Udp + UdpLite RcvbufErrors
};

struct ThreadWindow {
  int pid = 0, tid = 0;
  std::string process, thread;
  double cpu_ratio = 0;  // (utime + stime) / window: share of one CPU
  int processor = -1;    // CPU last run on, at the window's end
  // From schedstat's nanoseconds, when both samples have it, as shares of
  // the window: on a CPU; runnable but waiting on a run queue; and waiting
  // off the CPU in its own waits (a sleep, a lock, a peer, an empty socket),
  // what the other two leave. The three sum to 1 (running and runnable are
  // scaled down together when the scheduler's clock ran past the window's).
  std::optional<double> running_ratio, runnable_ratio, waiting_ratio;
  // Context switches per second (status), when both samples have them.
  std::optional<double> voluntary_per_second, involuntary_per_second;
  TaskWait wait;  // sampled at the window's end
  // Measured waits (offcpu, eBPF), when both samples followed the thread:
  // each site's share of the window, largest first.
  std::optional<std::vector<WaitSiteWindow>> measured_waits;
  bool run_only = false;  // ThreadSample::run_only: its stacks kept, not judged
};

// A target process's input socket over the window
// (collectors/input_sockets.h): the datagrams it refused per second, and its
// receive buffer in use at the window's end; for a TCP listener, the
// connections waiting in its accept queue at the window's end, and its
// namespace's listeners' refusals per second (TcpExt ListenDrops).
struct InputSocketWindow {
  int pid = 0;
  std::string protocol, local;  // "udp", "0.0.0.0:7000"
  double drops_per_second = 0;
  uint64_t receive_queue = 0;    // bytes; a listener's: connections
  bool listening = false;        // a TCP listener
  bool namespace_drops = false;  // drops_per_second is its namespace's
};

// A block device over the window (collectors/diskstats.h), read once a
// target thread waited on a file on one: the share of the window it had
// I/O in flight (io_ticks, iostat's %util) and its completions.
struct DiskWindow {
  std::string device;  // "254:0"
  std::string name;    // "vda"
  double busy_ratio = 0;
  double reads_per_second = 0, writes_per_second = 0;
};

struct Window {
  int64_t start_mono_ns = 0, end_mono_ns = 0;
  double seconds = 0;
  std::vector<CpuWindow> cpus;
  std::optional<CpuWindow> cpu_total;             // the aggregate "cpu" line
  std::optional<double> cpu_pressure_some_ratio;  // stall time / window
  std::vector<NicWindow> nics;
  DropLadder drops;
  std::vector<ThreadWindow> threads;
  std::vector<InputSocketWindow> input_sockets;  // sockets in both samples, by (pid, inode)
  std::vector<DiskWindow> disks;                 // devices in both samples
  // Per CPU from the soaker, when it ran through the whole window. When it did,
  // the CpuWindow's busy_ratio has the soaker's own CPU time taken out (the
  // soaker burns idle time, which /proc/stat would count as busy), so the
  // accounting and soaker sources are comparable.
  std::vector<SoakerCpuWindow> soaker;
  // The live capture of each configured interface (window/capture_window.h).
  std::vector<CaptureWindow> captures;
  // Measured interrupt time per CPU and per NIC queue (window/irqtime_window.h),
  // when both samples have an irqtime reading of the same program load.
  std::vector<IrqTimeCpuWindow> irqtime;
  std::vector<IrqTimeQueueWindow> irqtime_queues;
  // The target threads' time off the CPU by whole stack, in microseconds
  // (window/offcpu_stacks.h), when both samples have offcpu readings: a
  // run's off-CPU flame graph merges these.
  FoldedProfile offcpu_stacks;
  std::vector<CounterIssue> issues;
};

// Computes the window from prev to cur. Returns false (and leaves *out alone)
// when cur is not later than prev. Every number in *out is finite
// (window/window_numbers.h): analysis/ reads them as they are.
bool ComputeWindow(const Sample& prev, const Sample& cur, Window* out);

// Whether some collector's part of s was carried from an earlier tick (the
// self-limit back-off), so s's window lacks that collector's rates.
bool HasCarriedReadings(const Sample& s);

}  // namespace bottleneckd
