#include "analysis/cpu_budget.h"

#include <algorithm>
#include <string>
#include <utility>

#include "analysis/rules.h"

namespace bottleneckd {
namespace {

// Takes what `claim` asks of *left, at most all of it; the rest of the claim
// is overlap.
double Allot(double claim, double* left, double* overlap) {
  claim = std::max(0.0, claim);
  double got = std::min(claim, *left);
  *left -= got;
  *overlap += claim - got;
  return got;
}

CpuBudget BudgetOf(const Signals& s, const CpuSignal& c) {
  CpuBudget b;
  b.cpu = c.cpu;
  b.idle_delivered = c.busy_from_soaker;
  b.interrupts_measured = c.interrupt_measured;
  double busy = std::clamp(c.busy, 0.0, 1.0);
  b.idle = 1 - busy;
  double left = busy;
  b.steal = Allot(c.steal, &left, &b.overlap);
  double hardirq = c.interrupt_measured ? c.hardirq_ratio : c.interrupt_ratio - c.softirq_ratio;
  b.hardirq = Allot(hardirq, &left, &b.overlap);
  b.softirq = Allot(c.softirq_ratio, &left, &b.overlap);
  b.delivery = Allot(c.delivery_ratio, &left, &b.overlap);
  b.delivery_learned = c.delivery_learned;
  double threads = 0;
  b.threads_measured = true;
  for (const ThreadSignal& th : s.threads) {
    if (th.cpu != c.cpu) continue;
    threads += th.cpu_share;
    b.threads_measured = b.threads_measured && th.state.has_value();
  }
  b.threads = Allot(threads, &left, &b.overlap);
  // Task time by the ticks: accounting busy less its own steal and interrupt
  // ticks, less the threads' share of it.
  double tasks = c.accounting_busy - c.steal - c.accounting_interrupt_ratio - threads;
  b.tasks = Allot(tasks, &left, &b.overlap);
  b.unexplained = left;
  return b;
}

}  // namespace

std::vector<CpuBudget> CpuBudgets(const Signals& s) {
  std::vector<CpuBudget> out;
  out.reserve(s.cpus.size());
  for (const CpuSignal& c : s.cpus) out.push_back(BudgetOf(s, c));
  return out;
}

std::array<BudgetPart, 8> BudgetParts(const CpuBudget& b) {
  return {{{"steal", b.steal},
           {"hardirq", b.hardirq},
           {"softirq", b.softirq},
           {"delivery", b.delivery},
           {"threads", b.threads},
           {"tasks", b.tasks},
           {"unexplained", b.unexplained},
           {"idle", b.idle}}};
}

std::string CpuBudgetSentence(const CpuBudget& b) {
  std::array<BudgetPart, 8> all = BudgetParts(b);
  std::vector<BudgetPart> parts(all.begin(), all.end() - 1);  // idle last, whatever its size
  std::stable_sort(parts.begin(), parts.end(),
                   [](const BudgetPart& x, const BudgetPart& y) { return x.ratio > y.ratio; });
  std::string s = CpuName(b.cpu) + ":";
  const char* sep = " ";
  for (const auto& [name, v] : parts) {
    if (v < 0.0005) continue;
    s += sep + std::string(name) + " " + FormatPercent(v);
    if (std::string_view(name) == "threads" && !b.threads_measured) s += " (ticks)";
    if ((std::string_view(name) == "hardirq" || std::string_view(name) == "softirq") && b.interrupts_measured)
      s += " (measured)";
    if (std::string_view(name) == "delivery") s += " (estimate)";
    sep = ", ";
  }
  s += sep + std::string("idle ") + FormatPercent(b.idle) + (b.idle_delivered ? " (soaker)" : " (accounting)");
  if (b.overlap >= 0.005) s += "; the sources claimed " + FormatPercent(b.overlap) + " more than the busy time";
  return s;
}

}  // namespace bottleneckd
