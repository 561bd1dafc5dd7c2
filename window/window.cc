#include "window/window.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "base/kernel_units.h"
#include "collectors/task_state.h"
#include "window/offcpu_stacks.h"
#include "window/window_numbers.h"

namespace bottleneckd {
namespace {

uint64_t Opt(const std::optional<uint64_t>& v) { return v.value_or(0); }

// Fills the accounting ratios of one CPU line. False if the line went backwards.
bool CpuRatios(const CpuTimes& a, const CpuTimes& b, std::vector<CounterIssue>* issues, CpuWindow* w) {
  std::string obj = a.cpu < 0 ? "cpu" : "cpu" + std::to_string(a.cpu);
  struct Field {
    const char* name;
    uint64_t a, b;
    double* ratio;
  };
  double idle = 0, nice = 0;
  Field fields[] = {
      {"user", a.user, b.user, &w->user_ratio},
      {"nice", a.nice, b.nice, &nice},
      {"system", a.system, b.system, &w->system_ratio},
      {"idle", a.idle, b.idle, &idle},
      {"iowait", Opt(a.iowait), Opt(b.iowait), &w->iowait_ratio},
      {"irq", Opt(a.irq), Opt(b.irq), &w->irq_ratio},
      {"softirq", Opt(a.softirq), Opt(b.softirq), &w->softirq_ratio},
      {"steal", Opt(a.steal), Opt(b.steal), &w->steal_ratio},
  };
  double total = 0;
  for (Field& f : fields) {
    // Idle and iowait may step back a tick on some kernels (NO_HZ accounting);
    // that is a reset of this window's ratios, not a huge delta.
    auto d = CounterDelta(f.a, f.b, CounterWidth::k64, issues, "cpu", obj, f.name);
    if (!d) return false;
    *f.ratio = static_cast<double>(*d);
    total += static_cast<double>(*d);
  }
  if (total <= 0) return false;
  for (Field& f : fields) *f.ratio /= total;
  w->elapsed_seconds = TicksToSeconds(total);
  w->cpu = a.cpu;
  w->busy_ratio = 1.0 - idle - w->iowait_ratio;
  w->interrupt_ratio = w->irq_ratio + w->softirq_ratio;
  return true;
}

void CpuWindows(const Sample& p, const Sample& c, double secs, Window* w) {
  if (!p.stat || !c.stat) return;
  for (const CpuTimes& b : c.stat->cpus) {
    auto it = std::find_if(p.stat->cpus.begin(), p.stat->cpus.end(), [&](const CpuTimes& a) { return a.cpu == b.cpu; });
    if (it == p.stat->cpus.end()) continue;  // CPU came online
    CpuWindow cw;
    if (CpuRatios(*it, b, &w->issues, &cw)) w->cpus.push_back(cw);
  }
  if (p.stat->total && c.stat->total) {
    CpuWindow cw;
    if (CpuRatios(*p.stat->total, *c.stat->total, &w->issues, &cw)) w->cpu_total = cw;
  }
  if (p.cpu_pressure && c.cpu_pressure && p.cpu_pressure->some && c.cpu_pressure->some) {
    auto d = CounterDelta(p.cpu_pressure->some->total_us, c.cpu_pressure->some->total_us, CounterWidth::k64, &w->issues,
                          "cpu", "pressure", "some");
    if (d) w->cpu_pressure_some_ratio = MicrosToSeconds(*d) / secs;
  }
}

CpuWindow* CpuById(Window* w, int cpu) {
  for (CpuWindow& c : w->cpus)
    if (c.cpu == cpu) return &c;
  return nullptr;
}

// A named line of /proc/interrupts that counts interrupts taken per CPU
// (LOC, RES, CAL, TLB, NMI, ...): not ERR and MIS (one count for the whole
// system) or RTR (APIC read retries, not interrupts).
bool SystemInterrupt(const IrqLine& l) { return !l.irq && l.name != "ERR" && l.name != "MIS" && l.name != "RTR"; }

// What /proc/interrupts says of one NIC's IRQs over the window.
struct NicIrqWindow {
  std::optional<double> per_second;  // summed over its IRQs that could be differenced
  std::set<int> cpus;                // the CPUs where one of them counted
};

// Per-CPU and per-NIC interrupt rates from /proc/interrupts (32-bit counts),
// and the CPUs each NIC's IRQs counted on.
void InterruptRates(const Sample& p, const Sample& c, double secs, Window* w,
                    std::map<std::string, NicIrqWindow>* nic_irqs) {
  if (!p.interrupts || !c.interrupts) return;
  std::map<std::string_view, const IrqLine*> prev_lines;
  for (const IrqLine& l : p.interrupts->lines)
    if (l.irq || SystemInterrupt(l)) prev_lines[l.name] = &l;
  std::map<uint32_t, const NicIrq*> nic_of;
  for (const NicIrq& n : c.nic_irqs) nic_of[n.irq] = &n;
  // Column i of the current file is column prev_col[i] of the previous one
  // (CPUs may go offline or come online between samples); -1: no match.
  const std::vector<int>& pc = p.interrupts->cpus;
  const std::vector<int>& cc = c.interrupts->cpus;
  std::vector<int> prev_col(cc.size(), -1);
  std::vector<std::string> cpu_name(cc.size());
  std::vector<CpuWindow*> cpu_window(cc.size(), nullptr);
  for (size_t i = 0; i < cc.size(); ++i) {
    auto pos = std::find(pc.begin(), pc.end(), cc[i]);
    if (pos != pc.end()) prev_col[i] = static_cast<int>(pos - pc.begin());
    cpu_name[i] = "cpu" + std::to_string(cc[i]);
    cpu_window[i] = CpuById(w, cc[i]);
  }
  for (const IrqLine& l : c.interrupts->lines) {
    if (!l.irq && !SystemInterrupt(l)) continue;
    auto it = prev_lines.find(l.name);
    if (it == prev_lines.end()) continue;  // IRQ appeared
    const IrqLine& a = *it->second;
    auto nic = l.irq ? nic_of.find(*l.irq) : nic_of.end();
    NicIrqWindow* nw = nic != nic_of.end() ? &(*nic_irqs)[nic->second->interface] : nullptr;
    double irq_total = 0;
    bool reset = false;
    for (size_t i = 0; i < l.per_cpu.size() && i < cc.size(); ++i) {
      if (prev_col[i] < 0 || static_cast<size_t>(prev_col[i]) >= a.per_cpu.size()) continue;
      auto d = CounterDelta(a.per_cpu[static_cast<size_t>(prev_col[i])], l.per_cpu[i], CounterWidth::k32, &w->issues,
                            "interrupts", l.name, cpu_name[i]);
      // Any change counts as serving the NIC's queue, a reset too.
      if (nw && (!d || *d > 0)) nw->cpus.insert(cc[i]);
      if (!d) {
        reset = true;
        continue;
      }
      double rate = static_cast<double>(*d) / secs;
      irq_total += rate;
      if (cpu_window[i])
        (l.irq ? cpu_window[i]->interrupts_per_second : cpu_window[i]->system_interrupts_per_second) += rate;
    }
    if (nw && !reset) nw->per_second = nw->per_second.value_or(0) + irq_total;
  }
}

void SoftirqRates(const Sample& p, const Sample& c, double secs, Window* w) {
  if (p.softirqs && c.softirqs) {
    const SoftirqRow* a = nullptr;
    const SoftirqRow* b = nullptr;
    for (const SoftirqRow& r : p.softirqs->rows)
      if (r.type == "NET_RX") a = &r;
    for (const SoftirqRow& r : c.softirqs->rows)
      if (r.type == "NET_RX") b = &r;
    if (a && b) {
      for (size_t i = 0; i < b->per_cpu.size() && i < c.softirqs->cpus.size(); ++i) {
        int cpu = c.softirqs->cpus[i];
        auto pos = std::find(p.softirqs->cpus.begin(), p.softirqs->cpus.end(), cpu);
        if (pos == p.softirqs->cpus.end()) continue;
        size_t j = static_cast<size_t>(pos - p.softirqs->cpus.begin());
        if (j >= a->per_cpu.size()) continue;
        auto d = CounterDelta(a->per_cpu[j], b->per_cpu[i], CounterWidth::k64, &w->issues, "softirqs", "NET_RX",
                              "cpu" + std::to_string(cpu));
        if (d)
          if (CpuWindow* cw = CpuById(w, cpu)) cw->net_rx_softirqs_per_second = static_cast<double>(*d) / secs;
      }
    }
  }
  if (p.softnet && c.softnet) {
    double drops = 0;
    bool any = false;
    for (const SoftnetCpu& b : *c.softnet) {
      auto it = std::find_if(p.softnet->begin(), p.softnet->end(), [&](const SoftnetCpu& a) { return a.cpu == b.cpu; });
      if (it == p.softnet->end()) continue;
      std::string obj = "cpu" + std::to_string(b.cpu);
      auto dd = CounterDelta(it->dropped, b.dropped, CounterWidth::k32, &w->issues, "softnet", obj, "dropped");
      auto ds =
          CounterDelta(it->time_squeeze, b.time_squeeze, CounterWidth::k32, &w->issues, "softnet", obj, "time_squeeze");
      auto dp = CounterDelta(it->processed, b.processed, CounterWidth::k32, &w->issues, "softnet", obj, "processed");
      CpuWindow* cw = CpuById(w, b.cpu);
      if (dp && cw) cw->rx_packets_per_second = static_cast<double>(*dp) / secs;
      if (dd) {
        drops += static_cast<double>(*dd) / secs;
        any = true;
        if (cw) cw->backlog_drops_per_second = static_cast<double>(*dd) / secs;
      }
      if (ds && cw) cw->time_squeeze_per_second = static_cast<double>(*ds) / secs;
    }
    if (any) w->drops.backlog = drops;
  }
}

std::optional<double> Rate(const NetDev& a, const NetDev& b, std::string_view counter, double secs,
                           std::vector<CounterIssue>* issues) {
  auto x = a.Stat(counter), y = b.Stat(counter);
  if (!x || !y) return std::nullopt;
  auto d = CounterDelta(*x, *y, CounterWidth::k64, issues, "netdev", b.name, counter);
  if (!d) return std::nullopt;
  return static_cast<double>(*d) / secs;
}

void NicRates(const Sample& p, const Sample& c, double secs, const std::map<std::string, NicIrqWindow>& nic_irqs,
              Window* w) {
  if (!p.netdev || !c.netdev) return;
  double nic_drops = 0;
  bool any_drops = false;
  for (const NetDev& b : *c.netdev) {
    auto it = std::find_if(p.netdev->begin(), p.netdev->end(), [&](const NetDev& a) { return a.name == b.name; });
    if (it == p.netdev->end()) continue;  // interface appeared
    const NetDev& a = *it;
    if (a.ifindex != b.ifindex) {  // re-created: every counter restarted
      w->issues.push_back({"netdev", b.name + "/ifindex", CounterAnomaly::kReset});
      continue;
    }
    NicWindow n;
    n.interface = b.name;
    n.rx_packets_per_second = Rate(a, b, "rx_packets", secs, &w->issues);
    n.tx_packets_per_second = Rate(a, b, "tx_packets", secs, &w->issues);
    if (auto r = Rate(a, b, "rx_bytes", secs, &w->issues)) n.rx_bits_per_second = *r * 8;
    if (auto r = Rate(a, b, "tx_bytes", secs, &w->issues)) n.tx_bits_per_second = *r * 8;
    auto ir = nic_irqs.find(b.name);
    if (ir != nic_irqs.end()) {
      n.irq_cpus.assign(ir->second.cpus.begin(), ir->second.cpus.end());
      if (const std::optional<double>& rate = ir->second.per_second) {
        n.interrupts_per_second = *rate;
        if (*rate > 0 && n.rx_packets_per_second && n.tx_packets_per_second)
          n.packets_per_interrupt = (*n.rx_packets_per_second + *n.tx_packets_per_second) / *rate;
      }
    }
    auto da = NicRungDrops(a), db = NicRungDrops(b);
    if (da && db) {
      auto d = CounterDelta(*da, *db, CounterWidth::k64, &w->issues, "netdev", b.name, "nic_rung_drops");
      if (d) {
        n.nic_drops_per_second = static_cast<double>(*d) / secs;
        nic_drops += *n.nic_drops_per_second;
        any_drops = true;
      }
    }
    w->nics.push_back(std::move(n));
  }
  if (any_drops) w->drops.nic = nic_drops;
}

void SocketRates(const Sample& p, const Sample& c, double secs, Window* w) {
  if (!p.sockets || !c.sockets) return;
  double total = 0;
  bool any = false;
  for (const char* proto : {"Udp", "UdpLite"}) {
    auto a = p.sockets->Get(proto, "RcvbufErrors"), b = c.sockets->Get(proto, "RcvbufErrors");
    if (!a || !b || *a < 0 || *b < 0) continue;
    auto d = CounterDelta(static_cast<uint64_t>(*a), static_cast<uint64_t>(*b), CounterWidth::k64, &w->issues,
                          "sockets", proto, "RcvbufErrors");
    if (d) {
      total += static_cast<double>(*d) / secs;
      any = true;
    }
  }
  if (any) w->drops.socket = total;
}

// schedstat's and status's counters of one task between two samples.
void ThreadStateRates(const ThreadSample& a, const ThreadSample& b, double secs, Window* w, ThreadWindow* t) {
  const std::string tid = std::to_string(b.task.tid);
  auto rate = [&](uint64_t from, uint64_t to, const char* what, double unit) -> std::optional<double> {
    auto d = CounterDelta(from, to, CounterWidth::k64, &w->issues, "threads", tid, what);
    if (!d) return std::nullopt;
    return static_cast<double>(*d) * unit / secs;
  };
  if (a.schedstat && b.schedstat) {
    auto running = rate(a.schedstat->run_ns, b.schedstat->run_ns, "run_ns", 1e-9);
    auto runnable = rate(a.schedstat->wait_ns, b.schedstat->wait_ns, "wait_ns", 1e-9);
    if (running && runnable) {
      double on = *running + *runnable;
      double scale = on > 1 ? 1 / on : 1;
      t->running_ratio = *running * scale;
      t->runnable_ratio = *runnable * scale;
      t->waiting_ratio = std::max(0.0, 1 - on * scale);
    }
  }
  if (a.switches && b.switches) {
    t->voluntary_per_second = rate(a.switches->voluntary, b.switches->voluntary, "voluntary_ctxt_switches", 1);
    t->involuntary_per_second = rate(a.switches->involuntary, b.switches->involuntary, "nonvoluntary_ctxt_switches", 1);
  }
  t->wait = b.wait;
}

void InputSocketRates(const Sample& p, const Sample& c, double secs, Window* w) {
  if (!p.input_sockets || !c.input_sockets) return;
  for (const InputSocket& b : *c.input_sockets) {
    auto it = std::find_if(p.input_sockets->begin(), p.input_sockets->end(),
                           [&](const InputSocket& a) { return a.pid == b.pid && a.inode == b.inode; });
    if (it == p.input_sockets->end()) continue;
    InputSocketWindow i{b.pid, b.protocol, b.local, 0, b.receive_queue, b.listening, false};
    if (b.listening) {
      // The namespace's ListenDrops (unsigned long), when both reads had it.
      if (it->namespace_drops && b.namespace_drops) {
        auto d = CounterDelta(it->drops, b.drops, CounterWidth::k64, &w->issues, "threads",
                              std::to_string(b.pid) + " netstat", "ListenDrops");
        if (!d) continue;
        i.drops_per_second = static_cast<double>(*d) / secs;
        i.namespace_drops = true;
      }
      w->input_sockets.push_back(std::move(i));
      continue;
    }
    auto d = CounterDelta(it->drops, b.drops, CounterWidth::k32, &w->issues, "threads",
                          std::to_string(b.pid) + " socket " + std::to_string(b.inode), "drops");
    if (!d) continue;
    i.drops_per_second = static_cast<double>(*d) / secs;
    w->input_sockets.push_back(std::move(i));
  }
}

void DiskRates(const Sample& p, const Sample& c, double secs, Window* w) {
  if (!p.disks || !c.disks) return;
  for (const DiskStat& b : *c.disks) {
    auto it = std::find_if(p.disks->begin(), p.disks->end(),
                           [&](const DiskStat& a) { return a.major == b.major && a.minor == b.minor; });
    if (it == p.disks->end()) continue;
    auto delta = [&](uint64_t from, uint64_t to, const char* what) {
      return CounterDelta(from, to, CounterWidth::k64, &w->issues, "diskstats", b.name, what);
    };
    auto io = delta(it->io_ms, b.io_ms, "io_ticks");
    auto reads = delta(it->reads, b.reads, "reads"), writes = delta(it->writes, b.writes, "writes");
    if (!io || !reads || !writes) continue;
    w->disks.push_back({std::to_string(b.major) + ":" + std::to_string(b.minor), b.name,
                        std::min(1.0, static_cast<double>(*io) / 1000 / secs), static_cast<double>(*reads) / secs,
                        static_cast<double>(*writes) / secs});
  }
}

void ThreadRates(const Sample& p, const Sample& c, double secs, Window* w) {
  if (!p.threads || !c.threads) return;
  for (const ThreadSample& b : *c.threads) {
    auto it = std::find_if(p.threads->begin(), p.threads->end(),
                           [&](const ThreadSample& a) { return a.pid == b.pid && a.task.tid == b.task.tid; });
    if (it == p.threads->end()) continue;
    uint64_t ta = it->task.utime + it->task.stime, tb = b.task.utime + b.task.stime;
    auto d = CounterDelta(ta, tb, CounterWidth::k64, &w->issues, "threads", std::to_string(b.task.tid), "cputime");
    if (!d) continue;
    ThreadWindow t;
    t.pid = b.pid;
    t.tid = b.task.tid;
    t.process = b.process;
    t.thread = b.task.comm;
    t.cpu_ratio = TicksToSeconds(*d) / secs;
    t.processor = b.task.processor;
    t.run_only = b.run_only;
    ThreadStateRates(*it, b, secs, w, &t);
    w->threads.push_back(std::move(t));
  }
}

// The soaker's windows, and its own CPU time taken out of accounting busy on
// every CPU it ran on, also where its delivered idle is not known this window
// (a CPU not yet calibrated, a thread restarted): left in, the soaker's
// SCHED_IDLE spin read as a CPU 100 % busy by accounting (lab.irqtime's light
// run named the generator's idle cpu0 "100.0 % accounting busy (no soaker
// measurement)" in a fresh-clone CI).
void SoakerRates(const Sample& p, const Sample& c, Window* w) {
  if (!p.soaker || !c.soaker) return;
  ComputeSoakerWindows(*p.soaker, *c.soaker, SoakerWindowSeconds(*p.soaker, *c.soaker), &w->soaker);
  std::vector<SoakerCpuSeconds> own;
  ComputeSoakerCpuSeconds(*p.soaker, *c.soaker, &own);
  for (const SoakerCpuSeconds& o : own)
    if (CpuWindow* cw = CpuById(w, o.cpu))
      cw->busy_ratio = BusyRatioWithoutSoaker(cw->busy_ratio, cw->elapsed_seconds, o.seconds);
}

// Measured interrupt time (eBPF) per CPU and per NIC queue. A reload of the
// program (generation changed) or a CPU whose counters went backwards is
// reported as a reset; that window has no measured values for it.
void IrqTimeRates(const Sample& p, const Sample& c, Window* w) {
  if (!p.irqtime || !c.irqtime) return;
  if (!ComputeIrqTimeWindows(*p.irqtime, *c.irqtime, c.nic_irqs, &w->irqtime, &w->irqtime_queues)) {
    if (p.irqtime->generation != c.irqtime->generation)
      w->issues.push_back({"irqtime", "generation", CounterAnomaly::kReset});
    return;
  }
  for (const IrqTimeCpu& b : c.irqtime->cpus) {
    auto in = [&](const auto& v) {
      return std::any_of(v.begin(), v.end(), [&](const auto& x) { return x.cpu == b.cpu; });
    };
    if (in(p.irqtime->cpus) && !in(w->irqtime))
      w->issues.push_back({"irqtime", "cpu" + std::to_string(b.cpu), CounterAnomaly::kReset});
  }
}

// The seconds over which `collector`'s part of c differences against p's:
// from when p's part was read (an earlier tick's time when it was carried) to
// c. Nullopt when c's part was carried (not read this tick): a window across
// it would difference a reading with itself, or span more than one interval
// as if it were one.
std::optional<double> PartSeconds(const Sample& p, const Sample& c, std::string_view collector) {
  auto find = [&](const Sample& s) -> const CollectorResult* {
    for (const CollectorResult& r : s.results)
      if (r.name == collector) return &r;
    return nullptr;
  };
  const CollectorResult* cr = find(c);
  if (cr && cr->carried) return std::nullopt;
  const CollectorResult* pr = find(p);
  const int64_t start = pr && pr->carried ? pr->read_mono_ns : p.mono_ns;
  if (c.mono_ns <= start) return std::nullopt;
  return static_cast<double>(c.mono_ns - start) / 1e9;
}

}  // namespace

bool HasCarriedReadings(const Sample& s) {
  return std::any_of(s.results.begin(), s.results.end(), [](const CollectorResult& r) { return r.carried; });
}

bool ComputeWindow(const Sample& prev, const Sample& cur, Window* out) {
  if (cur.mono_ns <= prev.mono_ns) return false;
  Window w;
  w.start_mono_ns = prev.mono_ns;
  w.end_mono_ns = cur.mono_ns;
  w.seconds = static_cast<double>(cur.mono_ns - prev.mono_ns) / 1e9;
  // Each collector's part over the time it spans (PartSeconds): the same as
  // the window's unless the self-limit watchdog backed the collector off.
  if (auto s = PartSeconds(prev, cur, "cpu")) CpuWindows(prev, cur, *s, &w);
  std::map<std::string, NicIrqWindow> nic_irqs;
  if (auto s = PartSeconds(prev, cur, "interrupts")) InterruptRates(prev, cur, *s, &w, &nic_irqs);
  if (auto s = PartSeconds(prev, cur, "softirqs")) SoftirqRates(prev, cur, *s, &w);
  if (auto s = PartSeconds(prev, cur, "netdev")) NicRates(prev, cur, *s, nic_irqs, &w);
  if (auto s = PartSeconds(prev, cur, "sockets")) SocketRates(prev, cur, *s, &w);
  if (auto s = PartSeconds(prev, cur, "threads")) {
    ThreadRates(prev, cur, *s, &w);
    InputSocketRates(prev, cur, *s, &w);
    DiskRates(prev, cur, *s, &w);
  }
  SoakerRates(prev, cur, &w);
  IrqTimeRates(prev, cur, &w);
  if (prev.offcpu && cur.offcpu) {
    std::vector<OffCpuStackThread> named;
    for (ThreadWindow& t : w.threads) {
      t.measured_waits = ComputeThreadWaits(*prev.offcpu, *cur.offcpu, t.tid);
      named.push_back({t.tid, t.thread, t.wait.wchan, t.wait.object.Describe()});
      // A wait it never saw begin (MeasuredMissed): drawn at its sampled
      // place, whose system call is named only then (a libseccomp lookup).
      if (const std::optional<double> measured = MeasuredMissed(t)) {
        if (t.wait.syscall && *t.wait.syscall >= 0) named.back().syscall = SyscallName(*t.wait.syscall);
        named.back().missed_seconds = (*t.waiting_ratio - *measured) * w.seconds;
      }
    }
    AddOffCpuStacks(*prev.offcpu, *cur.offcpu, named, &w.offcpu_stacks);
  }
  if (prev.capture && cur.capture)
    ComputeCaptureWindows(*prev.capture, *cur.capture, w.seconds, w.nics, &w.issues, &w.captures);
  // The contract with analysis/: every number handed on is finite.
  MakeWindowFinite(&w);
  *out = std::move(w);
  return true;
}

}  // namespace bottleneckd
