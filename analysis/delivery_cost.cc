#include "analysis/delivery_cost.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/cpu_budget.h"
#include "analysis/rules.h"

namespace bottleneckd {
namespace {

// A window teaches the cost only where the soaker held most of the CPU
// (delivered idle plus what it lost): an interrupt that lands on a task is
// charged to the task by every clock, so only those landing on the soaker
// show as unexplained time.
constexpr double kSoakerHeldMin = 0.5;
// A window whose sources claimed more than the busy time has its unexplained
// share cut at 0 (tick samples over-counting interrupts): it says nothing of
// the cost. A few points are the soaker and the ticks disagreeing on a quiet
// CPU (lab.irqtime: with 0.01 here, 24 of its ~60 windows taught the cost).
constexpr double kOverlapMax = 0.05;

InterruptSource SourceOf(const CpuSignal& c) {
  return c.interrupt_measured ? InterruptSource::kMeasured : InterruptSource::kTicks;
}

}  // namespace

void DeliveryFit::Add(double x, double y) {
  if (!std::isfinite(x) || !std::isfinite(y)) return;
  if (n >= 2 * kDeliveryHalfLife) {
    for (double* v : {&n, &sx, &sy, &sxx, &sxy, &syy}) *v /= 2;
  }
  n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
}

double DeliveryFit::SpreadPerSecond() const {
  if (n < 2) return 0;
  double var = sxx / n - (sx / n) * (sx / n);
  return var > 0 ? std::sqrt(var) : 0;
}

std::optional<double> DeliveryFit::SecondsPerInterrupt() const {
  if (n < kDeliveryMinSamples || SpreadPerSecond() < kDeliveryMinSpread) return std::nullopt;
  double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  if (!std::isfinite(b) || b <= 0) return std::nullopt;
  return b;
}

double DeliveryFit::Intercept() const {
  std::optional<double> b = SecondsPerInterrupt();
  return b ? (sy - *b * sx) / n : 0;
}

double DeliveryFit::R2() const {
  double vx = n * sxx - sx * sx, vy = n * syy - sy * sy;
  if (n < 2 || vx <= 0 || vy <= 0) return 0;
  double cov = n * sxy - sx * sy;
  return cov * cov / (vx * vy);
}

double AllInterruptsPerSecond(const CpuSignal& c) { return c.interrupts_per_second + c.system_interrupts_per_second; }

const char* InterruptSourceName(InterruptSource s) { return s == InterruptSource::kMeasured ? "measured" : "ticks"; }

void DeliveryCost::Observe(const Signals& s) {
  std::vector<CpuBudget> budgets = CpuBudgets(s);
  for (size_t i = 0; i < s.cpus.size() && i < budgets.size(); ++i) {
    const CpuSignal& c = s.cpus[i];
    const CpuBudget& b = budgets[i];
    if (!b.idle_delivered || b.overlap > kOverlapMax || b.idle + b.unexplained < kSoakerHeldMin) continue;
    fits_[Index(SourceOf(c))].Add(AllInterruptsPerSecond(c), b.unexplained);
  }
}

void DeliveryCost::Apply(Signals* s) const {
  for (CpuSignal& c : s->cpus) {
    std::optional<double> cost = fit(SourceOf(c)).SecondsPerInterrupt();
    if (!cost) continue;
    double room = std::max(0.0, c.busy - c.steal - c.interrupt_ratio);
    c.delivery_ratio = std::min(room, *cost * AllInterruptsPerSecond(c));
    c.delivery_learned = true;
    if (c.busy > 0) c.interrupt_share = std::min(1.0, (c.interrupt_ratio + c.delivery_ratio) / c.busy);
  }
  for (ThreadSignal& th : s->threads)
    for (const CpuSignal& c : s->cpus)
      if (c.cpu == th.cpu) th.cpu_interrupt_share = c.interrupt_share;
}

std::string DeliveryCostSentence(const DeliveryFit& f, InterruptSource src) {
  std::string from = src == InterruptSource::kMeasured ? "beyond measured interrupt time" : "beyond /proc/stat's ticks";
  std::optional<double> b = f.SecondsPerInterrupt();
  if (!b) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "not learned yet (%.0f windows with the soaker, interrupts spread %.0f/s; needs %d and %.0f/s)", f.n,
                  f.SpreadPerSecond(), kDeliveryMinSamples, kDeliveryMinSpread);
    return "interrupt delivery cost " + from + ": " + buf;
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.1f us per interrupt (an estimate: %.0f windows, R2 %.2f)", *b * 1e6, f.n, f.R2());
  return "interrupt delivery cost " + from + ": " + buf;
}

}  // namespace bottleneckd
