#include "analysis/rules.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "analysis/delivery_cost.h"

namespace bottleneckd {
namespace {

// Accounting busy without a soaker measurement can be trusted when high (the
// kernel rarely over-counts), not when it says idle is left (the seed's hidden
// time): saturation from accounting alone weighs this much.
constexpr double kAccountingWeight = 0.85;
// Idle left on a CPU, from accounting alone, weighs this much for `bus`.
constexpr double kAccountingIdleWeight = 0.8;
// The cpu rule by where losses sit (docs/verdict-rules.md section 2: cpu wants them at the socket).
constexpr double kCpuRungSocket = 1.0, kCpuRungNone = 0.8, kCpuRungBelow = 0.35;
// Socket losses with a busy but unsaturated CPU lean cpu this far at most.
constexpr double kCpuLean = 0.45;
// throughput x CPU cost per packet constant across a sweep: saturation this strong.
constexpr double kSweepSaturation = 0.9;
// Without any loss a CPU must be saturated outright (delivered idle below
// cpu_idle_max) for `cpu` at full weight; nearly saturated counts this much.
constexpr double kCpuNoLossNearly = 0.5;
// Accounting counts steal as busy: a vCPU with at least this much stolen,
// no soaker and nothing lost cannot be told saturated; `cpu` is capped below
// min_score (the soaker's delivered idle, or losses, settle it).
constexpr double kStealShare = 0.25, kStealCap = 0.45;
// A target thread holding at least this share of a saturated CPU's busy time
// is what saturates it, and names it. The echo lab's CPU-bound echo holds
// 91 % of cpu1; the seeds' echo holds 62 % of cpu0 beside 25 % of interrupt
// work, and the CPU stays the name.
constexpr double kThreadOwnsCpu = 0.8;
// interrupt without time_squeeze, backlog or NIC drops; bus without NIC drops.
constexpr double kNoPressure = 0.3, kBusNoDrops = 0.4;

std::string Printf(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string NicName(const NicSignal& n) { return n.device.empty() ? n.interface : n.interface + " (" + n.device + ")"; }

double ThreadSaturation(const ThreadSignal& th, const VerdictThresholds& t) {
  return Ramp(th.cpu_share, t.thread_busy_min - 0.05, t.thread_busy_min);
}

// A NIC queue named in the interrupt evidence takes at least this share of
// the CPU.
constexpr double kQueueShareShown = 0.05;

// Below this busy, a share of the busy time says nothing ("100 % of busy time
// in interrupts" of a CPU 0.3 % busy): the sentence gives the CPU's shares only.
constexpr double kNearlyIdleBusy = 0.05;

// "cpu1: 62 % of busy time in hardirq+softirq (58 % of the CPU, measured: ...)"
std::string InterruptTimeSentence(const CpuSignal& c) {
  std::string s = CpuName(c.cpu) + ": " +
                  (c.busy < kNearlyIdleBusy ? "nearly idle (" + FormatPercent(c.busy) + " busy), "
                                            : FormatPercent(c.interrupt_share) + " of busy time in ") +
                  (c.delivery_learned ? "interrupts (hardirq+softirq " : "hardirq+softirq (") +
                  FormatPercent(c.interrupt_ratio) + " of the CPU";
  if (!c.interrupt_measured) {
    s += ", /proc/stat tick samples";
  } else {
    s += ", measured by eBPF: hardirq " + FormatPercent(c.hardirq_ratio) + ", softirq " +
         FormatPercent(c.softirq_ratio) + ", NET_RX " + FormatPercent(c.net_rx_ratio);
    if (c.net_unattributed_ratio >= kQueueShareShown)
      s += "; " + FormatPercent(c.net_unattributed_ratio) +
           " network softirq raised by no queue interrupt here (RPS/RFS steering, or loopback traffic)";
  }
  double interrupts = AllInterruptsPerSecond(c);
  if (c.delivery_learned && c.delivery_ratio > 0 && interrupts > 0)
    s += "; delivery " + FormatPercent(c.delivery_ratio) +
         " of the CPU, an estimate: " + Printf("%.1f", c.delivery_ratio / interrupts * 1e6) +
         " us learned per interrupt x " + FormatRate(interrupts) + " interrupts/s";
  return s + ")";
}

bool Contains(const std::vector<int>& cpus, int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }

bool OnPacketPath(const Signals& s, int cpu) { return Contains(s.reader_cpus, cpu) || Contains(s.rx_cpus, cpu); }

// The share of a CPU's busy time that is its tasks' own: none of it when
// hardirq+softirq take interrupt_share_min of it or more (then the time the
// kernel charged to the thread there is mostly interrupt work done on its
// watch), all of it 15 points below.
double OwnTime(double interrupt_share, const VerdictThresholds& t) {
  return 1 - Ramp(interrupt_share, t.interrupt_share_min - 0.15, t.interrupt_share_min);
}

// The CPUs the losses point at (docs/verdict-rules.md section 2, "The packet path and interrupt time"): losses at
// the socket at the CPUs of the sockets' readers (the target threads), losses below it at the receive-processing
// CPUs. With nothing lost, the packet path's CPUs (readers and receive processing): a CPU that neither runs a
// target thread nor receives the offered load does not limit it. Every CPU when that part of the path is
// unknown.
bool Candidate(const Signals& s, int cpu) {
  switch (s.ladder.first_losing) {
    case Rung::kSocket: return s.reader_cpus.empty() || Contains(s.reader_cpus, cpu);
    case Rung::kBacklog:
    case Rung::kNic: return s.rx_cpus.empty() || Contains(s.rx_cpus, cpu);
    case Rung::kNone: break;
  }
  return (s.reader_cpus.empty() && s.rx_cpus.empty()) || OnPacketPath(s, cpu);
}

// The cpu rule's saturation of a CPU: saturated, and by its tasks rather than
// by interrupts.
double CpuRuleSaturation(const CpuSignal& c, const VerdictThresholds& t) {
  return CpuSaturation(c, t) * OwnTime(c.interrupt_share, t);
}

// The most saturated candidate CPU (a packet-path CPU wins a tie), nullptr
// when none.
const CpuSignal* MostSaturated(const Signals& s, const VerdictThresholds& t) {
  const CpuSignal* best = nullptr;
  double best_key = -1;
  for (const CpuSignal& c : s.cpus) {
    if (!Candidate(s, c.cpu)) continue;
    double key = CpuRuleSaturation(c, t) * 2 + c.busy + (OnPacketPath(s, c.cpu) ? 0.001 : 0);
    if (key > best_key) best = &c, best_key = key;
  }
  return best;
}

RuleResult CpuRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  const CpuSignal* cpu = MostSaturated(s, t);
  double cpu_sat = cpu ? CpuRuleSaturation(*cpu, t) : 0;
  const ThreadSignal* thread = nullptr;
  for (const ThreadSignal& th : s.threads)
    if (!thread || th.cpu_share > thread->cpu_share) thread = &th;
  double thread_sat = thread ? ThreadSaturation(*thread, t) * OwnTime(thread->cpu_interrupt_share, t) : 0;
  if (thread && ThreadSaturation(*thread, t) > 0 && OwnTime(thread->cpu_interrupt_share, t) < 1)
    r.caveats.push_back("cpu: thread " + thread->thread + " at " + FormatPercent(thread->cpu_share) + " of " +
                        CpuName(thread->cpu) + ", but " + CpuName(thread->cpu) + " spends " +
                        FormatPercent(thread->cpu_interrupt_share) +
                        " of its busy time in hardirq+softirq: time charged to the thread, not its own");
  if (cpu && CpuSaturation(*cpu, t) > 0 && OwnTime(cpu->interrupt_share, t) < 1)
    r.caveats.push_back("cpu: " + CpuName(cpu->cpu) + " is saturated by interrupts (" +
                        FormatPercent(cpu->interrupt_share) + " of its busy time), not by its tasks");

  double sat = std::max(cpu_sat, thread_sat);
  // One saturation, one name: a saturated CPU whose time is mostly one target
  // thread's is named by the thread, whichever of the two reads fuller this
  // window (the echo lab's CPU-bound sweep alternated between them).
  bool thread_owns_cpu =
      thread && cpu && cpu_sat > 0 && thread->cpu == cpu->cpu && thread->cpu_share >= kThreadOwnsCpu * cpu->busy;
  if (thread && ((thread_sat > 0 && thread_sat >= cpu_sat) || thread_owns_cpu)) {
    r.resource = "thread " + thread->thread;
    r.cpu = thread->cpu;
    r.evidence.push_back("thread " + thread->thread + " at " + FormatPercent(thread->cpu_share) + " of " +
                         (thread->cpu >= 0 ? CpuName(thread->cpu) : "a CPU"));
  } else if (cpu) {
    r.resource = CpuName(cpu->cpu);
    r.cpu = cpu->cpu;
  }
  if (cpu) r.evidence.push_back(CpuSentence(*cpu));
  if (s.throughput_tracks_cpu_cost.value_or(false)) {
    sat = std::max(sat, kSweepSaturation);
    r.evidence.push_back(
        "throughput x CPU cost per packet constant across the sweep (each packet cost the CPU more as "
        "throughput fell, their product steady: the work per second the CPU can do): the CPU is the limit "
        "whatever idle says");
  }

  double rung = kCpuRungBelow;
  if (s.ladder.first_losing == Rung::kSocket) rung = kCpuRungSocket;
  if (s.ladder.first_losing == Rung::kNone) {
    rung = kCpuRungNone;
    // Nothing lost and only nearly saturated: the box keeps up (docs/verdict-rules.md section 2,
    // "Nothing lost, nearly saturated").
    bool outright = (cpu && cpu->busy >= 1 - t.cpu_idle_max) || thread_sat >= 1;
    if (sat > 0 && !outright && !s.throughput_tracks_cpu_cost.value_or(false)) {
      rung *= kCpuNoLossNearly;
      r.caveats.push_back("cpu: nothing is lost and " + (cpu ? CpuSentence(*cpu) : std::string("no CPU")) +
                          ": near its limit, not at it");
    }
  }
  r.evidence.push_back(LadderSentence(s.ladder));
  r.score = sat * rung;
  if (cpu && !cpu->busy_from_soaker && cpu->steal >= kStealShare && s.ladder.first_losing == Rung::kNone &&
      r.score > kStealCap) {
    r.score = kStealCap;
    r.caveats.push_back("cpu: " + FormatPercent(cpu->steal) + " of " + CpuName(cpu->cpu) +
                        "'s time is stolen by the hypervisor, nothing is lost and no soaker measured what the "
                        "guest got: its saturation cannot be told");
  }
  if (cpu && !s.cpus.empty() && cpu_sat > 0) {
    double sum = 0;
    for (const CpuSignal& c : s.cpus) sum += c.busy;
    double mean = sum / static_cast<double>(s.cpus.size());
    // "Saturated" only at the threshold; on the ramp below it, "near saturation".
    if (s.cpus.size() > 1 && mean < 1 - 2 * t.cpu_idle_max)
      r.evidence.push_back(SaturationSentence(*cpu, t) + " while the " + std::to_string(s.cpus.size()) +
                           " CPUs average " + FormatPercent(mean) + " busy");
  }
  if (s.ladder.first_losing == Rung::kNic || s.ladder.first_losing == Rung::kBacklog)
    r.caveats.push_back("cpu: losses start below the socket, not where a busy application loses them");

  if (s.ladder.first_losing == Rung::kSocket && sat < 0.5 && cpu) {
    double lean = kCpuLean * Ramp(cpu->busy, 0.5, 0.95) * OwnTime(cpu->interrupt_share, t);
    if (lean > r.score) r.score = lean;
    r.caveats.push_back("cpu: socket-rung losses point at the CPU, but nothing shows saturation: " + CpuSentence(*cpu) +
                        "; no target thread at " + FormatPercent(t.thread_busy_min) + " of a CPU or more" +
                        (cpu->busy_from_soaker ? "" : " (the soaker would measure delivered idle)"));
  } else if (sat <= 0 && cpu) {
    r.caveats.push_back("cpu: no CPU saturated (busiest " + CpuSentence(*cpu) + ")");
  }
  return r;
}

// NICs whose interrupts land on `cpu` (every NIC when none reports its queue CPUs).
bool NicServedBy(const Signals& s, const NicSignal& n, int cpu) {
  bool any = false;
  for (const NicSignal& m : s.nics) any = any || !m.queue_cpus.empty();
  return !any || std::find(n.queue_cpus.begin(), n.queue_cpus.end(), cpu) != n.queue_cpus.end();
}

RuleResult InterruptRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  const CpuSignal* best = nullptr;
  double best_score = -1;
  bool best_pressure = false;
  for (const CpuSignal& c : s.cpus) {
    bool pressure =
        c.time_squeeze_per_second > t.drop_floor_per_second || c.backlog_drops_per_second > t.drop_floor_per_second;
    for (const NicSignal& n : s.nics)
      pressure = pressure || (n.nic_drops_per_second > t.drop_floor_per_second && NicServedBy(s, n, c.cpu));
    // Receive livelock of a reader: the socket loses while the reader's CPU
    // is busy with interrupts (its thread gets what they leave).
    pressure = pressure || (s.ladder.first_losing == Rung::kSocket && Contains(s.reader_cpus, c.cpu));
    double share = Ramp(c.interrupt_share, t.interrupt_share_min - 0.15, t.interrupt_share_min);
    double score = CpuSaturation(c, t) * share * (pressure ? 1.0 : kNoPressure);
    // Ties (every score 0) go to the CPU with the largest interrupt share.
    if (score > best_score || (score == best_score && c.interrupt_share > best->interrupt_share))
      best = &c, best_score = score, best_pressure = pressure;
  }
  if (!best) return r;
  r.score = best_score;
  r.resource = CpuName(best->cpu);
  r.evidence.push_back(InterruptTimeSentence(*best));
  for (const QueueShare& q : best->queues) {
    if (q.ratio < kQueueShareShown) break;
    r.evidence.push_back(q.interface + (q.queue.empty() ? "" : "-" + q.queue) + " took " + FormatPercent(q.ratio) +
                         " of " + CpuName(best->cpu) + " in hardirq+softirq (measured)");
  }
  if (best_pressure) {
    std::string p = CpuName(best->cpu) + ": time_squeeze " + FormatRate(best->time_squeeze_per_second) +
                    "/s, backlog drops " + FormatRate(best->backlog_drops_per_second) + "/s";
    for (const NicSignal& n : s.nics)
      if (n.nic_drops_per_second > t.drop_floor_per_second && NicServedBy(s, n, best->cpu))
        p += ", " + NicName(n) + " NIC drops " + FormatRate(n.nic_drops_per_second) + "/s";
    if (s.ladder.first_losing == Rung::kSocket && Contains(s.reader_cpus, best->cpu)) {
      p += ", socket drops " + FormatRate(s.ladder.socket) + "/s";
      // Receive livelock only where interrupts take the reader's CPU.
      bool livelock = best->interrupt_share >= t.interrupt_share_min - 0.15 && CpuSaturation(*best, t) > 0;
      for (const ThreadSignal& th : s.threads)
        if (th.cpu == best->cpu)
          p += "; thread " + th.thread + " reads here (" + FormatPercent(th.cpu_share) + " of the CPU charged to it)" +
               (livelock ? ": receive livelock" : "");
    }
    r.evidence.push_back(p);
  } else {
    r.caveats.push_back("interrupt: no time_squeeze, backlog or NIC drops on " + CpuName(best->cpu));
  }
  // The CPU's saturation by the one source its score used. The accounting
  // view beside the soaker's (hidden time) is the cpu rule's evidence: as
  // interrupt evidence, "80.8 % accounting busy" said nothing of interrupts.
  if (CpuSaturation(*best, t) > 0)
    r.evidence.push_back(SaturationSentence(*best, t));
  else
    r.caveats.push_back("interrupt: " + SaturationSentence(*best, t));
  for (const NicSignal& n : s.nics) {
    if (n.interrupts_per_second <= 0 || !NicServedBy(s, n, best->cpu)) continue;
    std::string line = NicName(n) + ": " + FormatRate(n.interrupts_per_second) + " interrupts/s";
    if (n.packets_per_interrupt) line += ", " + Printf("%.1f", *n.packets_per_interrupt) + " packets per interrupt";
    r.evidence.push_back(line);
  }
  if (best->interrupt_share < t.interrupt_share_min)
    r.caveats.push_back("interrupt: " + CpuName(best->cpu) + " spends " + FormatPercent(best->interrupt_share) +
                        " of its busy time in interrupts, under " + FormatPercent(t.interrupt_share_min));
  return r;
}

// The lowest idle of the CPUs serving `n` (every CPU when it reports none),
// and whether all of them were measured by the soaker; nullopt when no CPU
// was measured this window (an idle CPU is then not known, never assumed).
std::optional<double> PathIdle(const Signals& s, const NicSignal& n, bool* soaker) {
  double idle = 1;
  *soaker = true;
  bool any = false;
  for (const CpuSignal& c : s.cpus) {
    if (!n.queue_cpus.empty() && std::find(n.queue_cpus.begin(), n.queue_cpus.end(), c.cpu) == n.queue_cpus.end())
      continue;
    idle = std::min(idle, 1 - c.busy);
    *soaker = *soaker && c.busy_from_soaker;
    any = true;
  }
  if (!any) {
    *soaker = false;
    return std::nullopt;
  }
  return idle;
}

std::string BusSentence(const NicSignal& n, std::optional<double> idle, bool soaker) {
  std::string s = NicName(n) + ": bus path " + Printf("%.0f %%", *n.bus_utilisation * 100) + " of " + n.bus_bottleneck;
  if (!n.bus_link.empty()) s += " (" + n.bus_link + ")";
  if (!idle) return s + " with no CPU measured";
  return s + " with " + Printf("%.0f %%", *idle * 100) + " CPU idle" + (soaker ? "" : " (accounting)");
}

RuleResult BusRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  const NicSignal* best = nullptr;
  std::optional<double> best_idle;
  bool best_soaker = false;
  r.score = 0;
  for (const NicSignal& n : s.nics) {
    if (!n.bus_utilisation) continue;
    bool soaker = false;
    std::optional<double> idle = PathIdle(s, n, &soaker);
    if (n.bus_emulated) {
      r.evidence.push_back(BusSentence(n, idle, soaker) +
                           ": an emulated (hypervisor) link, not a physical limit: never a bus verdict");
      continue;
    }
    double util = Ramp(*n.bus_utilisation, t.bus_utilisation_min - 0.1, t.bus_utilisation_min);
    // Unmeasured CPUs are not idle ones: no bus score without them.
    double idle_f =
        idle ? Ramp(*idle, t.bus_cpu_idle_min - 0.1, t.bus_cpu_idle_min) * (soaker ? 1 : kAccountingIdleWeight) : 0;
    double drops = n.nic_drops_per_second > t.drop_floor_per_second ? 1.0 : kBusNoDrops;
    double score = util * idle_f * drops;
    if (!best || score > r.score || (score == r.score && *n.bus_utilisation > *best->bus_utilisation)) {
      best = &n, r.score = score, best_idle = idle, best_soaker = soaker;
    }
  }
  if (!best) {
    if (r.evidence.empty()) r.caveats.push_back("bus: no bus model this window (no PCI topology)");
    return r;
  }
  r.resource = !best->bus_segment.empty() && best->bus_link_nics > 1 ? "segment " + best->bus_segment : NicName(*best);
  r.evidence.insert(r.evidence.begin(), BusSentence(*best, best_idle, best_soaker));
  if (best->nic_drops_per_second > t.drop_floor_per_second) {
    r.evidence.insert(r.evidence.begin() + 1, NicName(*best) + ": NIC drops (its driver's loss counters) " +
                                                  FormatRate(best->nic_drops_per_second) + " packets/s");
  } else if (*best->bus_utilisation >= t.bus_utilisation_min) {
    r.caveats.push_back("bus: " + NicName(*best) + " is busy on the bus but loses nothing at the NIC");
  }
  if (!best_idle) {
    r.caveats.push_back("bus: no CPU was measured this window, so none is known to be idle");
  } else if (*best_idle < t.bus_cpu_idle_min && *best->bus_utilisation >= t.bus_utilisation_min) {
    r.caveats.push_back("bus: the CPUs serving " + NicName(*best) + " have only " + FormatPercent(*best_idle) +
                        " idle left, under " + FormatPercent(t.bus_cpu_idle_min));
  }
  if (best_soaker == false && r.score > 0)
    r.caveats.push_back("bus: CPU idle from accounting only (hidden time would not show)");
  return r;
}

// 1 well below `limit`, falling to 0.5 at it, 0 at or above it.
double Below(double x, double limit) { return x >= limit ? 0.0 : 1.0 - 0.5 * Ramp(x, limit - 0.2, limit); }

RuleResult NoneRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  double score = s.ladder.first_losing == Rung::kNone ? 1.0 : 0.0;
  r.evidence.push_back(LadderSentence(s.ladder));
  if (s.cpus.empty()) {  // nothing measured is not "not saturated"
    score = 0;
    r.caveats.push_back("none: no CPU was measured this window");
  }
  const CpuSignal* busiest = nullptr;
  for (const CpuSignal& c : s.cpus)
    if (!busiest || c.busy > busiest->busy) busiest = &c;
  if (busiest) {
    // The soaker's delivered idle is the truth: below saturation is not
    // saturated. Accounting alone says idle is left when it is not (the seed's
    // hidden time), so it must stay under busy_min_for_none.
    double limit = busiest->busy_from_soaker ? 1 - t.cpu_idle_max : t.busy_min_for_none;
    score = std::min(score, Below(busiest->busy, limit));
    std::string line = "busiest " + CpuSentence(*busiest);
    // The limit named with where it comes from: the two differ on purpose.
    std::string named = FormatPercent(limit) + (busiest->busy_from_soaker
                                                    ? " busy (saturated: under verdict.cpu_idle_max delivered idle)"
                                                    : " busy (verdict.busy_min_for_none: accounting alone hides time)");
    if (busiest->busy >= limit) {
      r.caveats.push_back("none: " + line + ": not under " + named);
    } else {
      r.evidence.push_back(line + ": under " + named);
    }
  }
  for (const ThreadSignal& th : s.threads) {
    score = std::min(score, Below(th.cpu_share, t.thread_busy_min));
    if (th.cpu_share >= t.thread_busy_min)
      r.caveats.push_back("none: thread " + th.thread + " at " + FormatPercent(th.cpu_share) + " of a CPU");
  }
  for (const NicSignal& n : s.nics) {
    if (!n.bus_utilisation || n.bus_emulated) continue;
    score = std::min(score, Below(*n.bus_utilisation, t.bus_utilisation_min));
    if (*n.bus_utilisation >= t.bus_utilisation_min)
      r.caveats.push_back("none: " + NicName(n) + " bus path at " + FormatPercent(*n.bus_utilisation));
  }
  if (s.ladder.first_losing != Rung::kNone) r.caveats.push_back("none: " + LadderSentence(s.ladder));
  r.score = score;
  return r;
}

constexpr Rule kRules[] = {
    {Bound::kCpu, "cpu", &CpuRule},    {Bound::kInterrupt, "interrupt", &InterruptRule},
    {Bound::kBus, "bus", &BusRule},    {Bound::kWait, "wait", &WaitRule},
    {Bound::kNone, "none", &NoneRule},
};

}  // namespace

double Ramp(double x, double lo, double hi) {
  if (hi <= lo) return x >= hi ? 1.0 : 0.0;
  return std::clamp((x - lo) / (hi - lo), 0.0, 1.0);
}

std::string CpuName(int cpu) { return "cpu" + std::to_string(cpu); }

// How saturated a CPU is: 0 below 1 - 2 x cpu_idle_max busy, full at
// 1 - cpu_idle_max, weighted by how far its source can be trusted.
double CpuSaturation(const CpuSignal& c, const VerdictThresholds& t) {
  double s = Ramp(c.busy, 1 - 2 * t.cpu_idle_max, 1 - t.cpu_idle_max);
  return c.busy_from_soaker ? s : s * kAccountingWeight;
}

// "cpu1 saturated (97.0 % busy by the soaker, saturated from 95.0 %)": the
// word only at the threshold, "near saturation" on the ramp below it, "not
// saturated" under the ramp; the busy figure from the source CpuSaturation
// judged (delivered idle when the soaker ran, else /proc/stat accounting).
std::string SaturationSentence(const CpuSignal& c, const VerdictThresholds& t) {
  const double at = 1 - t.cpu_idle_max;
  const char* state = c.busy >= at ? " saturated" : CpuSaturation(c, t) > 0 ? " near saturation" : " not saturated";
  return CpuName(c.cpu) + state + " (" + FormatPercent(c.busy) + " busy" +
         (c.busy_from_soaker ? " by the soaker" : " by /proc/stat accounting, no soaker") + ", saturated from " +
         FormatPercent(at) + ")";
}

// "cpu0: 2.1 % delivered idle (soaker), 81.0 % accounting busy, 18.6 % hidden"
std::string CpuSentence(const CpuSignal& c) {
  std::string s = CpuName(c.cpu) + ": ";
  if (c.busy_from_soaker) {
    s += FormatPercent(c.soaker_idle.value_or(1 - c.busy)) + " delivered idle (soaker), " +
         FormatPercent(c.accounting_busy) + " accounting busy";
    if (c.hidden >= 0.01) s += ", " + FormatPercent(c.hidden) + " hidden time";
  } else {
    s += FormatPercent(c.accounting_busy) + " accounting busy (no soaker measurement)";
  }
  if (c.steal >= 0.05) s += ", " + FormatPercent(c.steal) + " steal (counted as busy)";
  return s;
}

std::string OffPathSentence(const Signals& s) {
  if (s.off_path_packets_per_second < kOffPathShownPerSecond ||
      s.off_path_packets_per_second <= s.offered_packets_per_second)
    return "";
  return "load: " + s.off_path_busiest + " received " + FormatRate(s.off_path_packets_per_second) +
         " packets/s, off the packet path: not counted as offered load (the packet path is every interface but "
         "loopback; verdict.packet_path_interfaces names the interfaces to count, and over lo an echo's request "
         "and reply are both received)";
}

std::vector<std::string> LoopbackSentences(const Signals& s) {
  std::vector<std::string> out;
  for (const NicSignal& n : s.nics) {
    if (!n.loopback || n.rx_packets_per_second < kOffPathShownPerSecond) continue;
    if (n.loopback_by_capture) {
      out.push_back("load: " + n.interface +
                    " counted once per echo by its live capture: " + FormatRate(n.rx_packets_per_second) +
                    " requests/s received, " + FormatRate(n.tx_packets_per_second) + " replies/s sent");
    } else {
      out.push_back("load: " + n.interface + " received " + FormatRate(n.rx_packets_per_second) +
                    " packets/s, counted as offered load; over loopback an echo's request and reply are both "
                    "received, so an echo counts twice: a live capture of " +
                    n.interface + " (collectors.pcap.interfaces) counts it once");
    }
  }
  return out;
}

std::string LadderSentence(const LadderSignal& l) {
  switch (l.first_losing) {
    case Rung::kSocket: return "losses at the socket rung: " + FormatRate(l.socket) + " datagrams/s";
    case Rung::kBacklog: return "losses start at the backlog rung: " + FormatRate(l.backlog) + " packets/s";
    case Rung::kNic: return "losses start at the nic rung: " + FormatRate(l.nic) + " packets/s";
    case Rung::kNone: break;
  }
  return "no rung loses packets (nic " + FormatRate(l.nic) + "/s, backlog " + FormatRate(l.backlog) + "/s, socket " +
         FormatRate(l.socket) + "/s)";
}

std::span<const Rule> VerdictRules() { return kRules; }

std::string FormatPercent(double ratio) { return Printf("%.1f %%", ratio * 100); }

std::string FormatRate(double per_second) {
  if (per_second >= 10000) return Printf("%.1f k", per_second / 1000);
  if (per_second >= 10) return Printf("%.0f", per_second);
  return Printf("%.1f", per_second);
}

std::string FormatScore(double score) { return Printf("%.2f", score); }

}  // namespace bottleneckd
