// The wait rule (docs/verdict-rules.md section 2): the plateau below 100 %
// that no resource explains. The socket loses datagrams while a target
// thread, its CPU unsaturated, spends most of the window off the CPU in its
// own waits (a sleep, a lock, a peer): the thread's waiting is the limit.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/cpu_budget.h"
#include "analysis/rules.h"
#include "analysis/wait_class.h"
#include "analysis/wait_history.h"
#include "collectors/wait_object.h"

namespace bottleneckd {
namespace {

// A thread that ran less than this share of the window is idle, not waiting
// on the work (a pool's spare thread); it is never the wait, unless it
// receives the work (ThreadState::receiver) or its process is stalled
// (ProcessStalled).
constexpr double kWaitRunningMin = 0.05;
// A reader whose waits are the limit loses everything above its capacity; a
// reader that waits for its own input loses only bursts. The wait counts in
// full from this share of the offered load lost at the socket, not at all
// below the lower one. The echo lab's K=0 top step lost 0.45 % in bursts
// while the echo sat in recvfrom 73 % of the time, the simulator's
// burst-loss 0.75 %; the waiting echo loses 30-60 %, the lock handoff 26 %.
constexpr double kWaitLossLow = 0.01, kWaitLossFull = 0.05;
// Wait places named in the evidence, most first.
constexpr size_t kPlacesShown = 3;

// A blocking datagram receive sleeps in __skb_wait_for_more_packets for the
// next datagram: a reader waiting for its input keeps up, its wait is no
// limit (the echo lab's K=0 top step with irqtime on: 97.5 % of the window
// off the CPU, all of it there, beside 1.2 % lost at the socket in bursts).
// Which waits are the input is ClassOfPlace's (analysis/wait_class.h).

// Sampled places (no eBPF: one wchan sample a window, the last 30) are
// instants, not time, and discount only when nearly all of them say so. In
// lab.echo's waiting echo 14 % of the waiting samples fell in the receive
// (read as shares its label wavered, 23 of 43 windows `wait` instead of 40 of
// 44); in its lock handoff 44 % (the lab's own sampler) while the socket lost
// 46 %: counted from 40 %, the handoff's run named the worker thread
// instead. In its light run 3 of 3, while a stall of the VM lost 5.5 % of
// one window at the socket (fresh-clone CI of f0b488d: the run read `wait`).
// The sampled share counts from kSampledInputLow, in full from
// kSampledInputFull, and only over at least kSampledPlacesMin waiting
// samples (analysis/wait_class.h).
constexpr double kSampledInputLow = 0.6, kSampledInputFull = 0.9;

// Of a receive wait's resolved samples, the share on a socket connected to
// one peer: waiting there is waiting for the peer's answer, the thread's own
// wait, however its input fares (one synchronous DNS, memcached or RPC call
// per request). The kernel function is the same for both (a datagram
// receive sleeps in __skb_wait_for_more_packets on any socket); the object tells them apart.
// 0 when no sample of the place resolved its object: the input, as before
// objects were resolved.
double PeerShare(const ThreadState::Place& p) {
  return p.object_samples > 0 ? static_cast<double>(p.peer_samples) / p.object_samples : 0;
}

// The share of the thread's waiting spent waiting for its input: measured by
// offcpu, or sampled as above; 0 when neither says. The input is what
// ClassOfPlace calls it (analysis/wait_class.h): a receive on a socket not
// connected to one peer, or on a TCP connection a listener accepted (the
// lab's tcpback waits there for udpecho's next request: 85 % of its window,
// which counted as its own before and tied it with udpecho's 93 %); of
// those, the samples on a peer's socket are not (PeerShare).
double InputShare(const ThreadState& st) {
  double input = 0, all = 0;
  for (const ThreadState::Place& p : st.places) {
    double weight = st.places_measured ? p.ratio : p.samples;
    all += weight;
    if (ClassOfPlace(p) == WaitClass::kInput) input += weight * (1 - PeerShare(p));
  }
  if (all <= 0) return 0;
  double share = input / all;
  if (st.places_measured) return share;
  if (all < kSampledPlacesMin) return 0;
  return share * Ramp(share, kSampledInputLow, kSampledInputFull);
}

// The waiting the rule weighs: off the CPU, less the wait for its input.
double OwnWaiting(const ThreadState& st) { return st.waiting * (1 - InputShare(st)); }

const CpuSignal* CpuOf(const Signals& s, int cpu) {
  for (const CpuSignal& c : s.cpus)
    if (c.cpu == cpu) return &c;
  return nullptr;
}

// How much the thread's waiting explains: its waiting share ramped to
// thread_wait_min, times what its CPU leaves unsaturated (on a full CPU a
// thread waits on the run queue, which is runnable, not its own wait).
// A thread that waited on its run queue longer than it ran was held back by
// its CPU's other work (run-queue delay), not by its own waits: the wait
// counts in full while runnable is at most the running time (half of its
// time wanting the CPU), not at all from twice it. The waiting echo and the
// lock handoff queue 1-2 % beside 14-40 % running; lab.echo's light run (two
// fresh-clone CIs, of f0b488d and 535fb8b) ran 6.9 % and queued 15.1 % in
// the window it lost 5.5 % of 2 k/s at the socket, one wchan sample seen (in
// the receive), and `wait` was published and held 3 of its 5 windows.
constexpr double kQueuedLow = 0.5, kQueuedFull = 2.0 / 3;

// Run-queue time is "other work" only past what its own process's target
// threads ran on its CPU: threads of one server handing work to each other
// on one CPU queue behind each other (the woken one preempts the waker),
// which is the server's own pipeline, not a starved CPU. The lab's pool
// dispatcher (udpecho, handing each datagram to two pool threads on its CPU)
// ran 7-8 % and queued 16-17 % of the run (its CPU 40 % busy): counted as
// held back, its wait scored 0 and the backend thread was named instead.
double QueuedBehindOthers(const Signals& s, const ThreadSignal& th) {
  const ThreadState& st = *th.state;
  double siblings = 0;
  for (const ThreadSignal& o : s.threads)
    if (&o != &th && o.state && o.pid == th.pid && th.pid > 0 && o.cpu == th.cpu) siblings += o.state->running;
  const double others = std::max(0.0, st.runnable - siblings);
  const double wanted = st.running + others;
  return wanted > 0 ? others / wanted : 0;
}

// The share of the offered load the thread's own process's inputs refused
// (collectors/input_sockets.h: its unconnected UDP sockets' drops), the loss
// its waiting can explain; nullopt when none of its inputs was read (a TCP
// server, a recording made before they were, a socket not found yet): then
// the socket rung's loss, the host's, is the one its waits are weighed by.
// The socket rung is UDP's RcvbufErrors: every datagram it counts was
// refused by some UDP socket, so a process whose UDP inputs refused none of
// them waited while another process's socket lost. Its TCP listeners are
// no part of it: their refusals are connections, not datagrams of the
// rung (they are said in the evidence, InputsNote).
std::optional<double> OwnInputLoss(const Signals& s, const ThreadSignal& th) {
  if (th.pid <= 0) return std::nullopt;
  bool read = false;
  double drops = 0;
  for (const InputSocketWindow& i : s.input_sockets)
    if (i.pid == th.pid && !i.listening) read = true, drops += i.drops_per_second;
  if (!read) return std::nullopt;
  if (s.offered_packets_per_second > 0) return drops / s.offered_packets_per_second;
  return drops > 0 ? 1.0 : 0.0;
}

// What of the window's socket loss the thread's waits explain, from its own
// inputs' refusals when they were read (OwnInputLoss), else the socket
// rung's share of the offered load; 0 when the socket is not the first
// losing rung.
double LossWeight(const Signals& s, const ThreadSignal& th) {
  if (s.ladder.first_losing != Rung::kSocket) return 0;
  if (auto own = OwnInputLoss(s, th)) return Ramp(*own, kWaitLossLow, kWaitLossFull);
  const double share = s.offered_packets_per_second > 0 ? s.ladder.socket / s.offered_packets_per_second : 1.0;
  return Ramp(share, kWaitLossLow, kWaitLossFull);
}

// A process whose own inputs refused datagrams while none of its target
// threads ran kWaitRunningMin of the window takes no work at all: its
// threads are stopped in their waits (a deadlock, a backend that never
// answers), and what they wait on is the limit, however little they ran.
// An idle pool's spare thread stays idle: its receiver runs. A server
// deadlocked before the daemon followed it (its receiving thread blocked on
// a lock another thread never gives back, never seen receiving; a live
// run, 2026-12-07) read `undetermined`, "weak evidence: no rule found any",
// with every datagram refused at its input.
bool ProcessStalled(const Signals& s, const ThreadSignal& th) {
  const std::optional<double> own = OwnInputLoss(s, th);
  if (!own || *own <= 0) return false;
  for (const ThreadSignal& o : s.threads)
    if (o.pid == th.pid && o.state && o.state->running >= kWaitRunningMin) return false;
  return true;
}

double WaitScore(const Signals& s, const ThreadSignal& th, const VerdictThresholds& t) {
  // A thread that receives the work is never idle while it loses: it may run
  // little because its own waits hold it (the lab's pipe consumer ran 6 %).
  if (!th.state || (th.state->running < kWaitRunningMin && !th.state->receiver && !ProcessStalled(s, th))) return 0;
  const CpuSignal* cpu = CpuOf(s, th.cpu);
  double free = cpu ? 1 - CpuSaturation(*cpu, t) : 1;
  double own = 1 - Ramp(QueuedBehindOthers(s, th), kQueuedLow, kQueuedFull);
  return Ramp(OwnWaiting(*th.state), t.thread_wait_min - 0.15, t.thread_wait_min) * free * own;
}

// " on peer udp 10.0.0.1:40000 -> 10.0.0.2:7000 (12 of 14 resolved samples
// on a peer)", " on udp 0.0.0.0:7000 (unconnected)": the object its samples
// in the place waited on, the one seen most (from the descriptor of
// /proc/PID/task/TID/syscall); "" when none resolved.
std::string ObjectNote(const ThreadState::Place& p) {
  if (p.object.empty()) return "";
  std::string s = " on ";
  if (p.peer_samples * 2 > p.object_samples) s += "peer ";
  s += p.object;
  if (p.peer_samples > 0)
    s += " (" + std::to_string(p.peer_samples) + " of " + std::to_string(p.object_samples) +
         " resolved samples on a peer)";
  return s;
}

// " (97.0 % woken by thread udpwork, tid 4243 of pid 4242; 3.0 % by a timer
// or an interrupt on an idle CPU)": who ended the place's measured waits
// (offcpu's sched_waking), the two largest; "" when none was seen.
std::string WakersNote(const ThreadState::Place& p) {
  std::string s;
  int shown = 0;
  for (const WakerShare& w : p.wakers) {
    if (w.tid == kNoWaker || shown == 2) continue;
    s += shown ? "; " : " (";
    s += FormatPercent(w.ratio) + (shown++ ? " by " : " woken by ");
    if (w.tid == kWokenByInterrupt) {
      s += "a timer or an interrupt on an idle CPU";
    } else if (w.tid == kOtherWaker) {
      s += "other threads (past the " + std::to_string(kOffCpuWakerSlots) + " first named)";
    } else {
      s += "thread " + (w.name.empty() ? std::string("(exited)") : w.name) + ", tid " + std::to_string(w.tid) +
           (w.pid > 0 ? " of pid " + std::to_string(w.pid) : "") + (w.softirq ? " (in a softirq on its CPU)" : "");
    }
  }
  return shown ? s + ")" : s;
}

// "thread udpecho: 58.0 % of the window off the CPU in its own waits (running
// 40.1 %, runnable 1.9 %, schedstat; 14.2 k voluntary, 3.0 involuntary
// switches/s), sampled in hrtimer_nanosleep (system call clock_nanosleep)"
std::string WaitPlacesSentence(const ThreadSignal& th) {
  const ThreadState& st = *th.state;
  std::string s = "thread " + th.thread + ": " + FormatPercent(st.waiting) +
                  " of the window off the CPU in its own waits (running " + FormatPercent(st.running) + ", runnable " +
                  FormatPercent(st.runnable) + ", schedstat";
  if (st.voluntary_per_second && st.involuntary_per_second)
    s += "; " + FormatRate(*st.voluntary_per_second) + " voluntary, " + FormatRate(*st.involuntary_per_second) +
         " involuntary switches/s";
  s += ")";
  if (st.places_measured) {
    if (st.places.empty()) return s + "; measured by eBPF (sched_switch): no wait of its own this window";
    s += "; measured by eBPF (sched_switch) in ";
    for (size_t i = 0; i < st.places.size() && i < kPlacesShown; ++i)
      s += (i ? ", " : "") + st.places[i].where + ObjectNote(st.places[i]) + " " + FormatPercent(st.places[i].ratio) +
           WakersNote(st.places[i]);
    return s + " of its time off the CPU";
  }
  // Followed by offcpu and measured under half of its waiting (signals.cc
  // StateOf): its places are the samples'.
  if (st.measured_missed)
    s += "; offcpu (eBPF) measured " + FormatPercent(*st.measured_missed) +
         " of the window in its waits: a wait under way since before it followed the thread counts from the "
         "thread's next switch (docs/offcpu.md)";
  if (!st.places.empty()) {
    // The recent windows' samples (Analyzer's WaitHistory), most first.
    s += "; sampled in ";
    for (size_t i = 0; i < st.places.size() && i < kPlacesShown; ++i)
      s += (i ? ", " : "") + st.places[i].where + ObjectNote(st.places[i]) + " " + std::to_string(st.places[i].samples);
    return s + " of its last " + std::to_string(st.place_samples) + " samples (one a window)";
  }
  std::string where = WaitPlace(st.wchan, st.syscall);
  if (where.empty() && st.hidden)
    return s +
           "; what it waits on cannot be seen: the daemon has no ptrace access to it (its wchan and syscall "
           "were refused: the packaged service runs as user bottleneckd without CAP_SYS_PTRACE; run the "
           "daemon as the server's user or as root to see the object)";
  if (where.empty()) return s + "; where it waits was not seen (running when sampled)";
  return s + ", sampled in " + where + (st.object.empty() ? "" : " on " + st.object);
}

// "; while its input udp 0.0.0.0:7000 refused 2.1 k datagrams/s (212 KiB
// queued at the window's end; the socket's drops, /proc/PID/net/udp)": the
// thread's process's unconnected UDP sockets and TCP listeners
// (collectors/input_sockets.h), the work waiting or lost while it waited;
// "" when none was seen.
std::string InputsNote(const Signals& s, const ThreadSignal& th) {
  std::string out;
  int shown = 0;
  for (const InputSocketWindow& i : s.input_sockets) {
    if (i.pid != th.pid || shown == 2) continue;
    out += shown++ ? "; its input " : "; while its input ";
    if (i.listening) {
      // "tcp 0.0.0.0:8080 (listening) held 128 connections in its accept
      // queue at the window's end (/proc/PID/net/tcp); its namespace's
      // listeners refused 40 connections/s (TcpExt ListenDrops, ...)"
      out += i.protocol + " " + i.local + " (listening) held " + std::to_string(i.receive_queue) +
             (i.receive_queue == 1 ? " connection" : " connections") +
             " in its accept queue at the window's end (/proc/" + std::to_string(i.pid) + "/net/" + i.protocol + ")";
      if (i.namespace_drops)
        out += "; its namespace's listeners refused " +
               (i.drops_per_second > 0 ? FormatRate(i.drops_per_second) + " connections/s" : std::string("nothing")) +
               " (TcpExt ListenDrops, /proc/" + std::to_string(i.pid) + "/net/netstat)";
      continue;
    }
    out += i.protocol + " " + i.local + " refused " +
           (i.drops_per_second > 0 ? FormatRate(i.drops_per_second) + " datagrams/s" : std::string("nothing")) + " (" +
           std::to_string((i.receive_queue + 512) / 1024) + " KiB" +
           " queued at the window's end; the socket's drops, /proc/" + std::to_string(i.pid) + "/net/" + i.protocol +
           ")";
  }
  return out;
}

// "; its file waits' device vda (254:0) was 93.0 % busy (1.2 k writes/s,
// 0 reads/s; /proc/diskstats)": the devices of the files its places waited
// on (collectors/wait_object.h `device`), each once; "" when none.
std::string DisksNote(const Signals& s, const ThreadSignal& th) {
  std::string out;
  std::vector<std::string_view> said;
  for (const ThreadState::Place& p : th.state->places) {
    const std::string_view device = DeviceOfObject(p.object);
    if (device.empty() || std::find(said.begin(), said.end(), device) != said.end()) continue;
    said.push_back(device);
    auto d = std::find_if(s.disks.begin(), s.disks.end(), [&](const DiskWindow& w) { return w.device == device; });
    if (d == s.disks.end()) {
      out += "; its file waits' device " + std::string(device) +
             " is not a block device in /proc/diskstats (tmpfs, overlay or a network filesystem), or was not read";
      continue;
    }
    out += "; its file waits' device " + d->name + " (" + d->device + ") was " + FormatPercent(d->busy_ratio) +
           " busy (" + FormatRate(d->writes_per_second) + " writes/s, " + FormatRate(d->reads_per_second) +
           " reads/s; /proc/diskstats)";
  }
  return out;
}

// WaitPlacesSentence, and how much of the waiting was for the thread's input
// when its places say.
std::string WaitSentence(const Signals& sig, const ThreadSignal& th) {
  std::string s = WaitPlacesSentence(th) + InputsNote(sig, th) + DisksNote(sig, th);
  if (th.state->running < kWaitRunningMin && ProcessStalled(sig, th))
    s += "; no target thread of its process ran " + FormatPercent(kWaitRunningMin) +
         " of the window while its inputs refused work: the process is stalled in its threads' waits";
  const double input = th.state->waiting * InputShare(*th.state);
  std::string where;
  for (const ThreadState::Place& p : th.state->places)
    if (where.empty() && ClassOfPlace(p) == WaitClass::kInput) {
      where = p.where.substr(0, p.where.find(' '));
      // A pool worker's futex: the work handed over by the thread receiving it.
      if (p.handoff > 0.5) where += ": work handed over by a thread that receives it (its wakers)";
    }
  if (input > 0)
    s += "; " + FormatPercent(input) + " of the window waiting for its input (" + where +
         (th.state->places_measured ? "" : ", by its samples") + "), which is no limit and not counted";
  for (const ThreadState::Place& p : th.state->places)
    if (ClassOfPlace(p) != WaitClass::kOther && PeerShare(p) > 0)
      s += "; its receive waits on a socket connected to one peer (" + p.object +
           ") wait for that peer's answer: its own waits, counted";
  // Sampled (no eBPF): a futex's waker is not seen, so a lock and a pool
  // worker's wait for work handed over look alike; said, not guessed.
  if (!th.state->places_measured)
    for (const ThreadState::Place& p : th.state->places)
      if (ClassOfPlace(p) == WaitClass::kLock) {
        s += th.state->measured_missed
                 ? "; who ended its futex waits (a lock's holder, or a thread handing it work) is seen only once "
                   "offcpu measures one (eBPF: sched_waking), so its futex waits count as a lock"
                 : "; who ended its futex waits (a lock's holder, or a thread handing it work) is seen only with "
                   "offcpu (eBPF: sched_waking), so its futex waits count as a lock";
        break;
      }
  if (TooFewSampledWaits(*th.state))
    s += "; too few of its samples caught it waiting (" + std::to_string(SampledWaits(*th.state)) + " of " +
         std::to_string(th.state->place_samples) + ", at least " + std::to_string(kSampledPlacesMin) +
         " needed) to say what it waits on: unseen (offcpu's eBPF measures it" +
         (th.state->measured_missed ? " once that wait ends)" : ")");
  if (std::string by = WaitSharesSentence(WaitShares(*th.state)); !by.empty())
    s += "; by what it waited on (analysis/wait_class.h): " + by + " of the window";
  return s;
}

// Work enters at the threads that receive it (ThreadState::receiver): one
// of them waiting on its own stalls every request behind it, and a thread
// downstream of it waits for what it hands over. So a receiver whose
// waiting qualifies (kReceiverFirst) is named before any thread that does
// not receive: a pool worker on its futex, which without offcpu's wakers
// reads as a lock (lab.echo's pool: udppool waited 90 % there, udpecho 60
// % on its peer, and the longer wait was named).
constexpr double kReceiverFirst = 0.5;

// "thread udpecho receives the work, but its wait scored 0.41, under
// 0.50, to be named first (its own waiting 61.0 % of the window; runnable
// 28.0 % beside 11.0 % running, 53.0 % of the CPU it wanted queued behind
// other work than its own threads; cpu1 0.00 saturated; its inputs' loss
// weight 1.00)": the factors of WaitScore, each as the rule read it.
std::string PassedOverSentence(const Signals& s, const ThreadSignal& th, const VerdictThresholds& t) {
  const ThreadState& st = *th.state;
  double score = WaitScore(s, th, t);
  const bool own_inputs = OwnInputLoss(s, th).has_value();
  const double loss = own_inputs ? LossWeight(s, th) : 1.0;
  score *= loss;
  const CpuSignal* cpu = CpuOf(s, th.cpu);
  std::string out = "thread " + th.thread + " receives the work, but its wait scored " + FormatScore(score) +
                    ", under " + FormatScore(kReceiverFirst) + ", to be named first (its own waiting " +
                    FormatPercent(OwnWaiting(st)) + " of the window; runnable " + FormatPercent(st.runnable) +
                    " beside " + FormatPercent(st.running) + " running, " + FormatPercent(QueuedBehindOthers(s, th)) +
                    " of the CPU it wanted queued behind other work than its own threads";
  if (cpu) out += "; " + CpuName(cpu->cpu) + " " + FormatScore(CpuSaturation(*cpu, t)) + " saturated";
  if (own_inputs) out += "; its inputs' loss weight " + FormatScore(loss);
  return out + ")";
}

}  // namespace

RuleResult WaitRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  const ThreadSignal* best = nullptr;
  double best_score = -1;
  auto ahead = [&](const ThreadSignal& th, double score) {
    if (!best) return true;
    const bool first = th.state->receiver && score >= kReceiverFirst;
    const bool best_first = best->state->receiver && best_score >= kReceiverFirst;
    if (first != best_first) return first;
    return score > best_score || (score == best_score && th.state->waiting > best->state->waiting);
  };
  // While the socket loses, a thread whose own inputs were read is weighed
  // by what they refused: one waiting while another process's socket lost is
  // not the wait (OwnInputLoss).
  const bool losing = s.ladder.first_losing == Rung::kSocket;
  for (const ThreadSignal& th : s.threads) {
    if (!th.state) continue;
    double score = WaitScore(s, th, t);
    if (losing && OwnInputLoss(s, th)) score *= LossWeight(s, th);
    if (ahead(th, score)) best = &th, best_score = score;
  }
  if (!best) {
    r.caveats.push_back(s.threads.empty() ? "wait: no target thread (collectors.threads.targets) to see waiting"
                                          : "wait: the target threads' schedstat was not read");
    return r;
  }
  r.resource = "thread " + best->thread;
  r.evidence.push_back(WaitSentence(s, *best));
  r.evidence.push_back(LadderSentence(s.ladder));
  if (const CpuSignal* cpu = CpuOf(s, best->cpu)) r.evidence.push_back(CpuSentence(*cpu));
  for (const CpuBudget& b : CpuBudgets(s))
    if (b.cpu == best->cpu) r.evidence.push_back("budget of " + CpuBudgetSentence(b));
  // A receiver passed over says why, so a reader (and a lab that expected
  // it) sees what kept it from being named first.
  const bool named_first = best->state->receiver && best_score >= kReceiverFirst;
  if (losing && !named_first)
    for (const ThreadSignal& th : s.threads)
      if (&th != best && th.state && th.state->receiver) r.evidence.push_back(PassedOverSentence(s, th, t));
  double losses = 0;
  if (losing) {
    // Without a packet path (offered 0: loopback not listed) the share is unknown: the losses count.
    double share = s.offered_packets_per_second > 0 ? s.ladder.socket / s.offered_packets_per_second : 1.0;
    // A thread weighed by its own inputs' refusals has that in its score.
    losses = OwnInputLoss(s, *best) ? 1 : LossWeight(s, *best);
    if (s.offered_packets_per_second > 0)
      r.evidence.insert(r.evidence.begin() + 2, "the socket loses " + FormatPercent(share) + " of the offered " +
                                                    FormatRate(s.offered_packets_per_second) + " packets/s");
    if (auto own = OwnInputLoss(s, *best); own && *own < kWaitLossFull)
      r.caveats.push_back("wait: thread " + best->thread + "'s own inputs refused " + FormatPercent(*own) +
                          " of the offered load, under " + FormatPercent(kWaitLossFull) +
                          (*own > 0 ? "" : ": the socket's losses were another process's"));
    else if (best_score > 0 && losses < 1)
      r.caveats.push_back("wait: the socket loses " + FormatPercent(share) + " of the offered load, under " +
                          FormatPercent(kWaitLossFull) + ": bursts a reader waiting for its input also loses");
  }
  r.score = best_score * losses;
  if (best->state && QueuedBehindOthers(s, *best) > kQueuedLow)
    r.caveats.push_back("wait: thread " + best->thread + " queued for its CPU " + FormatPercent(best->state->runnable) +
                        " of the window beside " + FormatPercent(best->state->running) +
                        " running: held back by other work on its CPU, not by its own waits");
  if (best_score > 0 && s.ladder.first_losing == Rung::kNone)
    r.caveats.push_back("wait: thread " + best->thread + " waits " + FormatPercent(best->state->waiting) +
                        " of the window, but nothing is lost: it keeps up");
  else if (best_score > 0 && s.ladder.first_losing != Rung::kSocket)
    r.caveats.push_back("wait: losses start below the socket, before the thread's waits matter");
  return r;
}

}  // namespace bottleneckd
