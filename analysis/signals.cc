#include "analysis/signals.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "collectors/task_state.h"

namespace bottleneckd {
namespace {

// The window's numbers are finite (window/window_numbers.h: ComputeWindow's
// last step makes them so), so they are read here as they are: held to
// their range (a ratio to [0, 1], a rate to >= 0), an unset one as 0 where
// the rules need a number.
std::optional<double> NonNegative(const std::optional<double>& x) {
  if (!x) return std::nullopt;
  return std::max(0.0, *x);
}

// The thread's window split three ways (window/window.h ThreadWindow).
std::optional<ThreadState> StateOf(const ThreadWindow& t) {
  if (!t.running_ratio || !t.runnable_ratio || !t.waiting_ratio) return std::nullopt;
  ThreadState st;
  st.running = std::clamp(*t.running_ratio, 0.0, 1.0);
  st.runnable = std::clamp(*t.runnable_ratio, 0.0, 1.0);
  st.waiting = std::clamp(*t.waiting_ratio, 0.0, 1.0);
  st.voluntary_per_second = NonNegative(t.voluntary_per_second);
  st.involuntary_per_second = NonNegative(t.involuntary_per_second);
  st.wchan = t.wait.wchan;
  if (t.wait.syscall) st.syscall = SyscallName(*t.wait.syscall);
  st.object = t.wait.object.Describe();
  st.object_peer = t.wait.object.peer();
  st.hidden = t.wait.hidden;
  // A wait under way since before offcpu followed the thread: its places
  // are the samples' (Analyzer's WaitHistory).
  st.measured_missed = MeasuredMissed(t);
  if (t.measured_waits && !st.measured_missed) {
    // Shares of its time off the CPU as the program measured it, not of the
    // window: the program's clock (switch to switch) and schedstat's (pick to
    // dequeue) split each switch differently, about 2.5 us a switch here
    // (docs/offcpu.md "Two clocks"), 4 points of a window at 15 k switches/s.
    st.places_measured = true;
    double off = 0;
    for (const WaitSiteWindow& site : *t.measured_waits) off += site.ratio;
    for (const WaitSiteWindow& site : *t.measured_waits)
      if (!site.involuntary && off > 0)
        st.places.push_back(
            {site.where.empty() ? "an unnamed kernel stack" : site.where, 0, site.ratio / off, 0, 0, "", site.wakers});
  }
  return st;
}

const SoakerCpuWindow* SoakerFor(const Window& w, int cpu) {
  for (const SoakerCpuWindow& s : w.soaker)
    if (s.cpu == cpu) return &s;
  return nullptr;
}

const IrqTimeCpuWindow* IrqTimeFor(const Window& w, int cpu) {
  for (const IrqTimeCpuWindow& i : w.irqtime)
    if (i.cpu == cpu) return &i;
  return nullptr;
}

// The measured interrupt time of the CPU (irqtime), over /proc/stat's tick
// samples: the handlers' own time, whichever task they interrupted.
void UseMeasuredInterrupts(const Window& w, const IrqTimeCpuWindow& m, CpuSignal* s) {
  s->interrupt_measured = true;
  s->hardirq_ratio = std::clamp(m.hardirq_ratio, 0.0, 1.0);
  s->softirq_ratio = std::clamp(m.softirq_ratio, 0.0, 1.0);
  s->interrupt_ratio = std::min(1.0, s->hardirq_ratio + s->softirq_ratio);
  s->net_rx_ratio = std::clamp(m.vector_ratio[kSoftirqNetRx], 0.0, 1.0);
  s->net_unattributed_ratio = std::clamp(m.net_unattributed_ratio, 0.0, 1.0);
  // Without a soaker, accounting busy is tick-sampled too: the CPU was busy
  // at least for the interrupt time measured on it.
  if (!s->busy_from_soaker) s->busy = std::max(s->busy, s->interrupt_ratio);
  std::map<std::pair<std::string, std::string>, double> by_queue;
  for (const IrqTimeQueueWindow& q : w.irqtime_queues)
    if (q.cpu == s->cpu) by_queue[{q.interface, q.queue}] += q.ratio();
  for (const auto& [name, ratio] : by_queue)
    if (ratio > 0) s->queues.push_back({name.first, name.second, std::clamp(ratio, 0.0, 1.0)});
  std::stable_sort(s->queues.begin(), s->queues.end(),
                   [](const QueueShare& a, const QueueShare& b) { return a.ratio > b.ratio; });
}

CpuSignal MakeCpu(const Window& w, const CpuWindow& c, const SoakerCpuWindow* soak) {
  CpuSignal s;
  s.cpu = c.cpu;
  s.accounting_busy = std::clamp(c.busy_ratio, 0.0, 1.0);
  s.busy = s.accounting_busy;
  if (soak) {
    s.busy = std::clamp(soak->busy_ratio, 0.0, 1.0);
    s.busy_from_soaker = true;
    s.soaker_idle = std::clamp(soak->delivered_idle_ratio, 0.0, 1.0);
    s.hidden = std::clamp(soak->hidden_ratio, 0.0, 1.0);
  }
  s.interrupt_ratio = std::clamp(c.interrupt_ratio, 0.0, 1.0);
  s.accounting_interrupt_ratio = s.interrupt_ratio;
  s.softirq_ratio = std::clamp(c.softirq_ratio, 0.0, 1.0);
  if (const IrqTimeCpuWindow* m = IrqTimeFor(w, c.cpu)) UseMeasuredInterrupts(w, *m, &s);
  // Interrupt time comes from accounting or irqtime while busy may come from
  // the soaker; the share is capped at all of the busy time.
  s.interrupt_share = s.busy > 0 ? std::min(1.0, s.interrupt_ratio / s.busy) : 0.0;
  s.steal = std::clamp(c.steal_ratio, 0.0, 1.0);
  s.time_squeeze_per_second = std::max(0.0, c.time_squeeze_per_second);
  s.backlog_drops_per_second = std::max(0.0, c.backlog_drops_per_second);
  s.interrupts_per_second = std::max(0.0, c.interrupts_per_second);
  s.system_interrupts_per_second = std::max(0.0, c.system_interrupts_per_second);
  s.rx_packets_per_second = std::max(0.0, c.rx_packets_per_second);
  return s;
}

const NetDev* FindDev(const Sample& cur, const std::string& name) {
  if (!cur.netdev) return nullptr;
  for (const NetDev& d : *cur.netdev)
    if (d.name == name) return &d;
  return nullptr;
}

std::string LinkLabel(const BusLink& l) {
  switch (l.kind) {
    case BusKind::kPci:
    case BusKind::kPciX: {
      std::string s = l.kind == BusKind::kPci ? "PCI " : "PCI-X ";
      s += std::to_string(l.clock_mhz) + " MHz";
      if (l.transfers_per_clock > 1) s += " x" + std::to_string(l.transfers_per_clock);
      return s + "/" + std::to_string(l.width_bits) + "-bit";
    }
    case BusKind::kPcie: return "PCIe " + l.SpeedLabel() + " " + l.WidthLabel();
  }
  return "";
}

// Fills the bus fields of `n` from the window's bus estimate and the NIC's path.
void BusFields(const BusEstimate* bus, const std::vector<BusPath>* paths, const NetDev* dev, NicSignal* n) {
  if (!bus) return;
  const BusNicEstimate* e = bus->FindNic(n->interface);
  if (!e || e->bottleneck_device.empty()) return;
  n->bus_utilisation = std::isfinite(e->path_utilisation) ? std::max(0.0, e->path_utilisation) : 0.0;  // bus/'s
  n->bus_bottleneck = e->bottleneck_device;
  if (const BusLinkEstimate* le = bus->FindLink(e->bottleneck_device))
    n->bus_link_nics = static_cast<int>(le->interfaces.size());
  // Without paths the link is unknown; a virtio driver still says emulated.
  if (dev && dev->driver.rfind("virtio", 0) == 0) n->bus_emulated = true;
  if (!paths) return;
  for (const BusPath& p : *paths) {
    if (p.interface != n->interface) continue;
    for (const BusLink& l : p.links) {
      if (l.device != e->bottleneck_device) continue;
      n->bus_emulated = n->bus_emulated || l.emulated;
      n->bus_link = LinkLabel(l);
      n->bus_segment = l.segment;
    }
  }
}

bool OnPacketPath(const SignalOptions& o, const std::string& interface, const NetDev* dev) {
  if (!o.packet_path_interfaces.empty())
    return std::find(o.packet_path_interfaces.begin(), o.packet_path_interfaces.end(), interface) !=
           o.packet_path_interfaces.end();
  return !(dev ? dev->is_loopback : interface == "lo");
}

}  // namespace

const char* RungName(Rung r) {
  switch (r) {
    case Rung::kNone: return "none";
    case Rung::kNic: return "nic";
    case Rung::kBacklog: return "backlog";
    case Rung::kSocket: return "socket";
  }
  return "none";
}

Signals ExtractSignals(const Window& w, const Sample& cur, const std::vector<BusPath>* paths, const BusEstimate* bus,
                       const SignalOptions& o) {
  const LossTolerance& loss = o.loss;
  Signals s;
  s.seconds = std::max(0.0, w.seconds);
  s.captures = w.captures;
  s.input_sockets = w.input_sockets;
  s.disks = w.disks;
  for (CaptureWindow& c : s.captures) c.top_flows.clear();
  for (const CpuWindow& c : w.cpus)
    if (o.cpus.empty() || std::binary_search(o.cpus.begin(), o.cpus.end(), c.cpu))
      s.cpus.push_back(MakeCpu(w, c, SoakerFor(w, c.cpu)));
  std::sort(s.cpus.begin(), s.cpus.end(), [](const CpuSignal& a, const CpuSignal& b) { return a.cpu < b.cpu; });
  if (w.cpu_pressure_some_ratio) s.cpu_pressure_some = std::clamp(*w.cpu_pressure_some_ratio, 0.0, 1.0);

  std::set<int> readers, rx;
  for (const ThreadWindow& t : w.threads) {
    if (t.run_only) continue;  // followed for a run's stacks, not a target (collectors/threads.h)
    ThreadSignal ts;
    ts.process = t.process;
    ts.thread = t.thread;
    ts.tid = t.tid;
    ts.pid = t.pid;
    ts.state = StateOf(t);
    ts.cpu_share = ts.state ? ts.state->running : std::max(0.0, t.cpu_ratio);
    ts.cpu = t.processor;
    for (const CpuSignal& c : s.cpus)
      if (c.cpu == ts.cpu) ts.cpu_interrupt_share = c.interrupt_share;
    if (ts.cpu >= 0) readers.insert(ts.cpu);
    s.threads.push_back(std::move(ts));
  }
  double rx_total = 0;
  for (const CpuSignal& c : s.cpus) rx_total += c.rx_packets_per_second;
  for (const CpuSignal& c : s.cpus)
    if (rx_total > 0 && c.rx_packets_per_second >= kRxCpuShare * rx_total) rx.insert(c.cpu);

  std::vector<NicSignal> physical, virtual_nics;
  double busiest_off_path = 0;
  for (const NicWindow& nw : w.nics) {
    NicSignal n;
    n.interface = nw.interface;
    const NetDev* dev = FindDev(cur, nw.interface);
    if (!OnPacketPath(o, nw.interface, dev)) {
      double rx_off = std::max(0.0, nw.rx_packets_per_second.value_or(0));
      if (s.off_path_busiest.empty() || rx_off > busiest_off_path) {
        s.off_path_busiest = nw.interface;
        busiest_off_path = rx_off;
      }
      s.off_path_packets_per_second += rx_off;
      continue;
    }
    if (dev) n.device = dev->pci_device;
    n.rx_packets_per_second = std::max(0.0, nw.rx_packets_per_second.value_or(0));
    n.tx_packets_per_second = std::max(0.0, nw.tx_packets_per_second.value_or(0));
    n.rx_bits_per_second = std::max(0.0, nw.rx_bits_per_second.value_or(0));
    n.tx_bits_per_second = std::max(0.0, nw.tx_bits_per_second.value_or(0));
    if (dev ? dev->is_loopback : nw.interface == "lo") {
      // Over loopback the host is both ends: an echo's request and its reply
      // are each sent and received on lo, so its counters count every echo
      // twice. The live capture tells them apart (a flow's first direction
      // is the request): with a trusted capture of lo, received is its
      // requests and sent its replies, once each. Without one, the counters
      // stand and the evidence says so (LoopbackSentence).
      n.loopback = true;
      for (const CaptureWindow& c : w.captures)
        if (c.interface == nw.interface && c.trusted) {
          // Every figure of the row from the capture, packets and bits
          // alike: its filter may keep other traffic out that the counters
          // count (bits scaled from the counters read 2880 bytes per 1 KiB
          // datagram with other traffic on lo; docs/runs.md).
          n.rx_packets_per_second = std::max(0.0, c.requests_per_second);
          n.tx_packets_per_second = std::max(0.0, c.replies_per_second);
          n.rx_bits_per_second = std::max(0.0, c.request_bits_per_second);
          n.tx_bits_per_second = std::max(0.0, c.reply_bits_per_second);
          n.loopback_by_capture = true;
        }
    }
    n.interrupts_per_second = std::max(0.0, nw.interrupts_per_second.value_or(0));
    n.packets_per_interrupt = nw.packets_per_interrupt;
    n.nic_drops_per_second = std::max(0.0, nw.nic_drops_per_second.value_or(0));
    n.queue_cpus = nw.irq_cpus;
    rx.insert(nw.irq_cpus.begin(), nw.irq_cpus.end());
    BusFields(bus, paths, dev, &n);
    s.received_packets_per_second += n.rx_packets_per_second;
    // Physical: the interface has a device (PCI or platform); a missing
    // netdev entry counts as virtual.
    if (dev && !dev->is_virtual) {
      physical.push_back(std::move(n));
    } else if (n.rx_packets_per_second > 0 || n.tx_packets_per_second > 0 || n.nic_drops_per_second > 0 ||
               n.interrupts_per_second > 0) {
      virtual_nics.push_back(std::move(n));
    }
  }
  auto by_name = [](const NicSignal& a, const NicSignal& b) { return a.interface < b.interface; };
  std::sort(physical.begin(), physical.end(), by_name);
  std::sort(virtual_nics.begin(), virtual_nics.end(), by_name);
  s.nics = std::move(physical);
  for (NicSignal& n : virtual_nics) s.nics.push_back(std::move(n));

  LadderSignal& l = s.ladder;
  l.nic = std::max(0.0, w.drops.nic.value_or(0));
  l.backlog = std::max(0.0, w.drops.backlog.value_or(0));
  l.socket = std::max(0.0, w.drops.socket.value_or(0));
  s.offered_packets_per_second = s.received_packets_per_second + l.nic;
  s.delivered_packets_per_second = std::max(0.0, s.received_packets_per_second - l.backlog - l.socket);
  if (loss.Losing(l.nic, s.offered_packets_per_second)) {
    l.first_losing = Rung::kNic;
  } else if (loss.Losing(l.backlog, s.offered_packets_per_second)) {
    l.first_losing = Rung::kBacklog;
  } else if (loss.Losing(l.socket, s.offered_packets_per_second)) {
    l.first_losing = Rung::kSocket;
  }
  s.reader_cpus.assign(readers.begin(), readers.end());
  s.rx_cpus.assign(rx.begin(), rx.end());
  return s;
}

const CpuSignal* ApplicationCpu(const Signals& s) {
  const CpuSignal* best = nullptr;
  for (const CpuSignal& c : s.cpus) {
    bool app = s.reader_cpus.empty() || std::binary_search(s.reader_cpus.begin(), s.reader_cpus.end(), c.cpu);
    if (app && (!best || c.busy > best->busy)) best = &c;
  }
  return best;
}

}  // namespace bottleneckd
