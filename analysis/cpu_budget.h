// The time budget of each CPU over a window: every second accounted once,
// by one source each, and what no source explains shown, never folded into
// another part (docs/verdict-rules.md section 10).
//
// The parts are allotted in order, each capped by what the CPU's busy time
// leaves, so they sum to the window exactly:
//   busy       the soaker's (1 - delivered idle) when it ran, else /proc/stat's
//   steal      /proc/stat
//   hardirq,
//   softirq    irqtime's eBPF measurement when it ran, else /proc/stat's ticks
//   delivery   interrupt delivery and entry/exit that the interrupt source
//              above does not see: the host's learned cost per interrupt
//              (analysis/delivery_cost.h) times the CPU's interrupts; an
//              estimate, 0 until learned
//   threads    the target threads that ran on the CPU (schedstat nanoseconds)
//   tasks      every other task: /proc/stat user + nice + system less the above
//   unexplained  busy that none of them claims: with the soaker, time charged
//              to nobody that the soaker did not get (the seeds' hidden time:
//              interrupt entry and exit, delivery, what the handlers' own
//              clocks miss)
//   idle       1 - busy
// `overlap` is what the sources claimed beyond the busy time (two clocks that
// count one second each: the kernel charges softirq work to the thread it
// interrupted without CONFIG_IRQ_TIME_ACCOUNTING, and schedstat counts it
// again); it is cut from the later parts and shown, not hidden.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "analysis/signals.h"

namespace bottleneckd {

struct CpuBudget {
  int cpu = -1;
  double steal = 0, hardirq = 0, softirq = 0, delivery = 0, threads = 0, tasks = 0, unexplained = 0, idle = 0;
  double overlap = 0;
  bool idle_delivered = false;       // busy and idle from the soaker
  bool interrupts_measured = false;  // hardirq and softirq from irqtime
  bool threads_measured = false;     // every target thread on it had schedstat
  bool delivery_learned = false;     // a learned delivery cost was applied (an estimate)
};

// A budget's parts in their order (steal, hardirq, softirq, delivery,
// threads, tasks, unexplained, idle), named as the metrics' `part` label and
// the reports' columns; they sum to 1.
struct BudgetPart {
  const char* name;
  double ratio;
};
std::array<BudgetPart, 8> BudgetParts(const CpuBudget& b);
// The same parts as members, in BudgetParts' order: for code that fills a
// budget back in (the run store) or sums budgets (a run's mean).
inline constexpr std::array<double CpuBudget::*, 8> kBudgetPartMembers = {
    &CpuBudget::steal,   &CpuBudget::hardirq, &CpuBudget::softirq,     &CpuBudget::delivery,
    &CpuBudget::threads, &CpuBudget::tasks,   &CpuBudget::unexplained, &CpuBudget::idle};

// One budget per CPU of the window's signals, in CPU order.
std::vector<CpuBudget> CpuBudgets(const Signals& s);

// "cpu1: threads 40.0 %, tasks 3.1 %, softirq 1.2 %, idle 55.0 % (soaker),
// unexplained 0.7 %": the non-zero parts, largest first, idle last.
std::string CpuBudgetSentence(const CpuBudget& b);

}  // namespace bottleneckd
