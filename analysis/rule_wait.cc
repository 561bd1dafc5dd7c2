// The wait rule (docs/verdict-rules.md section 2): the plateau below 100 %
// that no resource explains. The socket loses datagrams while a target
// thread, its CPU unsaturated, spends most of the window off the CPU in its
// own waits (a sleep, a lock, a peer): the thread's waiting is the limit.
#include <string>

#include "analysis/cpu_budget.h"
#include "analysis/rules.h"

namespace bottleneckd {
namespace {

// A thread that ran less than this share of the window is idle, not waiting
// on the work (a pool's spare thread); it is never the wait.
constexpr double kWaitRunningMin = 0.05;

const CpuSignal* CpuOf(const Signals& s, int cpu) {
  for (const CpuSignal& c : s.cpus)
    if (c.cpu == cpu) return &c;
  return nullptr;
}

// How much the thread's waiting explains: its waiting share ramped to
// thread_wait_min, times what its CPU leaves unsaturated (on a full CPU a
// thread waits on the run queue, which is runnable, not its own wait).
double WaitScore(const Signals& s, const ThreadSignal& th, const VerdictThresholds& t) {
  if (!th.state || th.state->running < kWaitRunningMin) return 0;
  const CpuSignal* cpu = CpuOf(s, th.cpu);
  double free = cpu ? 1 - CpuSaturation(*cpu, t) : 1;
  return Ramp(th.state->waiting, t.thread_wait_min - 0.15, t.thread_wait_min) * free;
}

// "thread udpecho: 58.0 % of the window off the CPU in its own waits (running
// 40.1 %, runnable 1.9 %, schedstat; 14.2 k voluntary, 3.0 involuntary
// switches/s), sampled in hrtimer_nanosleep (system call clock_nanosleep)"
std::string WaitSentence(const ThreadSignal& th) {
  const ThreadState& st = *th.state;
  std::string s = "thread " + th.thread + ": " + FormatPercent(st.waiting) +
                  " of the window off the CPU in its own waits (running " + FormatPercent(st.running) + ", runnable " +
                  FormatPercent(st.runnable) + ", schedstat";
  if (st.voluntary_per_second && st.involuntary_per_second)
    s += "; " + FormatRate(*st.voluntary_per_second) + " voluntary, " + FormatRate(*st.involuntary_per_second) +
         " involuntary switches/s";
  s += ")";
  if (st.wchan.empty() && (st.syscall.empty() || st.syscall == "none"))
    return s + "; where it waits was not seen (running when sampled, or no ptrace access)";
  s += ", sampled in " + (st.wchan.empty() ? std::string("the kernel") : st.wchan);
  if (!st.syscall.empty() && st.syscall != "none") s += " (system call " + st.syscall + ")";
  return s;
}

}  // namespace

RuleResult WaitRule(const Signals& s, const VerdictThresholds& t) {
  RuleResult r;
  const ThreadSignal* best = nullptr;
  double best_score = -1;
  bool measured = false;
  for (const ThreadSignal& th : s.threads) {
    measured = measured || th.state.has_value();
    if (!th.state) continue;
    double score = WaitScore(s, th, t);
    if (score > best_score || (score == best_score && th.state->waiting > best->state->waiting))
      best = &th, best_score = score;
  }
  if (!best) {
    r.caveats.push_back(s.threads.empty() ? "wait: no target thread (collectors.threads.targets) to see waiting"
                                          : "wait: the target threads' schedstat was not read");
    return r;
  }
  r.resource = "thread " + best->thread;
  r.evidence.push_back(WaitSentence(*best));
  r.evidence.push_back(LadderSentence(s.ladder));
  if (const CpuSignal* cpu = CpuOf(s, best->cpu)) r.evidence.push_back(CpuSentence(*cpu));
  for (const CpuBudget& b : CpuBudgets(s))
    if (b.cpu == best->cpu) r.evidence.push_back("budget of " + CpuBudgetSentence(b));
  double losses = s.ladder.first_losing == Rung::kSocket ? 1.0 : 0.0;
  r.score = best_score * losses;
  if (best_score > 0 && s.ladder.first_losing == Rung::kNone)
    r.caveats.push_back("wait: thread " + best->thread + " waits " + FormatPercent(best->state->waiting) +
                        " of the window, but nothing is lost: it keeps up");
  else if (best_score > 0 && losses == 0)
    r.caveats.push_back("wait: losses start below the socket, before the thread's waits matter");
  return r;
}

}  // namespace bottleneckd
